#version 450
#extension GL_GOOGLE_include_directive : require
// Meshes, with and without clips (compiled once, VS_MESH: shaders/variants.list).
// Shape meshes (coverage meshes, Sources/LaminaGeometry/CoverageMesh.swift): a quad whose
// vertices come from binding 0 and the item's instance (transform, color, clip index) from
// binding 1 (one instance per draw, chosen by firstInstance). The fragment shader reads the
// mesh's tiles and edges from the arena, from the record after the quad's four vertices.
#include "instance.vert.glsl"

layout(location = 14) in vec4 inVertex; // x, y (local), corner index 0…3, unused

layout(location = 8) flat out uint outMeshBase;
layout(location = 9) out vec2 outMeshLocal;

void main() {
    emit(inVertex.xy);
    // gl_VertexIndex includes the draw's vertexOffset: the mesh's first record in the arena.
    outMeshBase = uint(gl_VertexIndex - int(inVertex.z));
    outMeshLocal = inVertex.xy;
}
