#version 450
#extension GL_GOOGLE_include_directive : require
// Radial gradients (kind 3) without clips.
#define KIND 3
#include "rect.frag.glsl"
