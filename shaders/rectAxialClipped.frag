#version 450
#extension GL_GOOGLE_include_directive : require
// Axial gradients (kind 2) under clips.
#define KIND 2
#define CLIPPED
#include "rect.frag.glsl"
