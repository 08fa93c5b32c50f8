#version 450
#extension GL_GOOGLE_include_directive : require
// Gradient segments on sharp rects: the outputs rect*Sharp.frag read.
#define KIND 2
#define SHARP
#include "rect.vert.glsl"
