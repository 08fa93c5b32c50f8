#version 450
#extension GL_GOOGLE_include_directive : require
// Analytic rects (kind 0: rounded rect with border) without clips: the lean variant of rect.frag
// that the renderer uses for runs of such items (llvmpipe executes every branch of an uber shader).
#define PLAIN_RECT
#include "rect.frag.glsl"
