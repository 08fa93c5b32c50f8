#version 450
#extension GL_GOOGLE_include_directive : require
// Shadows (kind 1: Gaussian blur of a rounded rect) without clips.
#define KIND 1
#include "rect.frag.glsl"
