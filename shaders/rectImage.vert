#version 450
#extension GL_GOOGLE_include_directive : require
// Image pieces (kind 6): the outputs rectImage.frag reads.
#define KIND 6
#include "rect.vert.glsl"
