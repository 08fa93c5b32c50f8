// The body of the rect*.vert variants (KIND defined by each; see instance.vert.glsl): one
// instanced 4-vertex strip per analytic item, the item's quad in local units.
#include "instance.vert.glsl"

void main() {
    // Triangle strip corners: 0 (min,min), 1 (max,min), 2 (min,max), 3 (max,max).
    vec2 corner = vec2(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1));
    vec4 q = quad();
    emit(mix(q.xy, q.zw, corner));
}
