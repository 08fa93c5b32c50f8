#version 450
#extension GL_GOOGLE_include_directive : require
// Radial gradients (kind 3) on sharp rects (RectInstance.Kind.radialSharp).
#define KIND 3
#define SHARP
#include "rect.frag.glsl"
