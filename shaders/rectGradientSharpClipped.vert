#version 450
#extension GL_GOOGLE_include_directive : require
// Gradient segments on sharp rects under clips: the outputs rect*SharpClipped.frag read.
#define KIND 2
#define SHARP
#define CLIPPED
#include "rect.vert.glsl"
