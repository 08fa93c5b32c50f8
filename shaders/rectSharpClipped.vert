#version 450
#extension GL_GOOGLE_include_directive : require
// Sharp rects (kind 8) under clips: the outputs rectSharpClipped.frag reads.
#define KIND 8
#define CLIPPED
#include "rect.vert.glsl"
