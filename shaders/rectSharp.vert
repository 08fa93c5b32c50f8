#version 450
#extension GL_GOOGLE_include_directive : require
// Sharp rects (kind 8): the outputs rectSharp.frag reads.
#define KIND 8
#include "rect.vert.glsl"
