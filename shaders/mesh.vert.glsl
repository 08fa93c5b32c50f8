// The body of mesh.vert and meshClipped.vert.
// Tessellated meshes (shape layers): vertices from binding 0, the item's instance (transform,
// color, trim, clip index) from binding 1 (one instance per draw, chosen by firstInstance).
#define MESH_SHADER
#define KIND 5
#include "instance.vert.glsl"

layout(location = 14) in vec4 inVertex; // x, y (local), coverage, distance along the path

layout(location = 8) out float outCoverage;
layout(location = 9) out float outDistance;

void main() {
    emit(inVertex.xy);
    outCoverage = inVertex.z;
    outDistance = inVertex.w;
}
