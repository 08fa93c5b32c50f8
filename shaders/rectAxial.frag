#version 450
#extension GL_GOOGLE_include_directive : require
// Axial gradients (kind 2) without clips.
#define KIND 2
#include "rect.frag.glsl"
