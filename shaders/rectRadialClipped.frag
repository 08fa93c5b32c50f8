#version 450
#extension GL_GOOGLE_include_directive : require
// Radial gradients (kind 3) under clips.
#define KIND 3
#define CLIPPED
#include "rect.frag.glsl"
