#version 450
#extension GL_GOOGLE_include_directive : require
// rect.vert for the rectPlain pipeline: only the outputs rectPlain.frag reads.
#define PLAIN_RECT
#include "instance.vert.glsl"

void main() {
    // Triangle strip corners: 0 (min,min), 1 (max,min), 2 (min,max), 3 (max,max).
    vec2 corner = vec2(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1));
    emit(mix(inQuad.xy, inQuad.zw, corner));
}
