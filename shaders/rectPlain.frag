#version 450
#extension GL_GOOGLE_include_directive : require
// Plain rects (kind 0: rounded rect with border) without clips.
#define KIND 0
#include "rect.frag.glsl"
