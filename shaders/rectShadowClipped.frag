#version 450
#extension GL_GOOGLE_include_directive : require
// Shadows (kind 1) under clips.
#define KIND 1
#define CLIPPED
#include "rect.frag.glsl"
