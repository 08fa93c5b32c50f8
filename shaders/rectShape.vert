#version 450
#extension GL_GOOGLE_include_directive : require
// Shape atlas items (kind 7): the outputs rectShape.frag reads.
#define KIND 7
#include "rect.vert.glsl"
