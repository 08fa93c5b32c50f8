#version 450
#extension GL_GOOGLE_include_directive : require
// Conic gradients (kind 4) under clips.
#define KIND 4
#define CLIPPED
#include "rect.frag.glsl"
