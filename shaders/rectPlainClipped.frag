#version 450
#extension GL_GOOGLE_include_directive : require
// Plain rects (kind 0) under clips.
#define KIND 0
#define CLIPPED
#include "rect.frag.glsl"
