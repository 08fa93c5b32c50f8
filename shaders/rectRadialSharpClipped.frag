#version 450
#extension GL_GOOGLE_include_directive : require
// Radial gradients (kind 3) on sharp rects (RectInstance.Kind.radialSharp) under clips.
#define KIND 3
#define SHARP
#define CLIPPED
#include "rect.frag.glsl"
