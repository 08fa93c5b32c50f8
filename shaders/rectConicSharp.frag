#version 450
#extension GL_GOOGLE_include_directive : require
// Conic gradients (kind 4) on sharp rects (RectInstance.Kind.conicSharp).
#define KIND 4
#define SHARP
#include "rect.frag.glsl"
