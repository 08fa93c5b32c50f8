#version 450
#extension GL_GOOGLE_include_directive : require
// Plain rects (kind 0): the outputs rectPlain*.frag read.
#define KIND 0
#include "rect.vert.glsl"
