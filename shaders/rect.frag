#version 450
#extension GL_GOOGLE_include_directive : require
// Analytic items of every kind (body in rect.frag.glsl).
#include "rect.frag.glsl"
