#version 450
#extension GL_GOOGLE_include_directive : require
// Axial gradients (kind 2) on sharp rects (RectInstance.Kind.axialSharp) under clips.
#define KIND 2
#define SHARP
#define CLIPPED
#include "rect.frag.glsl"
