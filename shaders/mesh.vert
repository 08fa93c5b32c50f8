#version 450
#extension GL_GOOGLE_include_directive : require
// Meshes without clips (body in mesh.vert.glsl).
#include "mesh.vert.glsl"
