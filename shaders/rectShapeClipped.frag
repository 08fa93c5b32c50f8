#version 450
#extension GL_GOOGLE_include_directive : require
// Shape atlas items (kind 7) under clips.
#define KIND 7
#define CLIPPED
#include "shape.frag.glsl"
