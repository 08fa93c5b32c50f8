#version 450
#extension GL_GOOGLE_include_directive : require
// Gradient segments under clips: the outputs rectAxial|Radial|ConicClipped.frag read.
#define KIND 2
#define CLIPPED
#include "rect.vert.glsl"
