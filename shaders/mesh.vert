#version 450
#extension GL_GOOGLE_include_directive : require
// Tessellated meshes (shape layers): vertices from binding 0, the item's instance (transform,
// color, trim, clips) from binding 1 (one instance per draw, chosen by firstInstance).
#define MESH_SHADER
#include "instance.vert.glsl"

layout(location = 14) in vec4 inVertex; // x, y (local), coverage, distance along the path

layout(location = 8) out float outCoverage;
layout(location = 9) out float outDistance;

void main() {
    emit(inVertex.xy);
    outCoverage = inVertex.z;
    outDistance = inVertex.w;
}
