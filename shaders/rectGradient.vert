#version 450
#extension GL_GOOGLE_include_directive : require
// Gradient segments: the outputs rectAxial|Radial|Conic*.frag read (the same for kinds 2-4).
#define KIND 2
#include "rect.vert.glsl"
