#version 450
#extension GL_GOOGLE_include_directive : require
// Meshes under clips (body in mesh.vert.glsl).
#define CLIPPED
#include "mesh.vert.glsl"
