#version 450
#extension GL_GOOGLE_include_directive : require
// Shape atlas items (kind 7) under clips: the outputs rectShapeClipped.frag reads.
#define KIND 7
#define CLIPPED
#include "rect.vert.glsl"
