#version 450
#extension GL_GOOGLE_include_directive : require
// Image pieces (kind 6) under clips.
#define KIND 6
#define CLIPPED
#include "image.frag.glsl"
