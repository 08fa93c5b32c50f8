#version 450
#extension GL_GOOGLE_include_directive : require
// Tessellated meshes without clips (body in mesh.frag.glsl).
#include "mesh.frag.glsl"
