#version 450
#extension GL_GOOGLE_include_directive : require
// Shape atlas items (kind 7).
#define KIND 7
#include "shape.frag.glsl"
