#version 450
#extension GL_GOOGLE_include_directive : require
// Sharp rects (kind 8).
#define KIND 8
#include "sharp.frag.glsl"
