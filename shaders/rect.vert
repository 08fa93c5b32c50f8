#version 450
#extension GL_GOOGLE_include_directive : require
// The vertex stage of every analytic pipeline (kinds 0–4 and 6–11; see instance.vert.glsl for
// the input sets each module is compiled with): one instanced 4-vertex strip per item, the
// item's quad in local units.
#include "instance.vert.glsl"

void main() {
    // Triangle strip corners: 0 (min,min), 1 (max,min), 2 (min,max), 3 (max,max).
    vec2 corner = vec2(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1));
    vec4 q = quad();
    emit(mix(q.xy, q.zw, corner));
}
