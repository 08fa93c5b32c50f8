#version 450
#extension GL_GOOGLE_include_directive : require
// Conic gradients (kind 4) without clips.
#define KIND 4
#include "rect.frag.glsl"
