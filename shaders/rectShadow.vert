#version 450
#extension GL_GOOGLE_include_directive : require
// Shadows (kind 1): the outputs rectShadow*.frag read.
#define KIND 1
#include "rect.vert.glsl"
