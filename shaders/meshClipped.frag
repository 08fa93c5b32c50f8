#version 450
#extension GL_GOOGLE_include_directive : require
// Tessellated meshes under clips (body in mesh.frag.glsl).
#define CLIPPED
#include "mesh.frag.glsl"
