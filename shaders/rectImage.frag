#version 450
#extension GL_GOOGLE_include_directive : require
// Image pieces (kind 6).
#define KIND 6
#include "image.frag.glsl"
