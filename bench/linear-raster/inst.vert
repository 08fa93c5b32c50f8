#version 450
// Instanced quads as Lamina draws them: a 4-vertex TRIANGLE_STRIP per instance, corner from
// gl_VertexIndex, the quad's clip-space box (x0, y0, x1, y1) a per-instance attribute.
layout(location = 0) in vec4 inBox;
layout(location = 0) out vec4 outUV;
void main() {
    vec2 corner = vec2(gl_VertexIndex & 1, gl_VertexIndex >> 1);
    gl_Position = vec4(mix(inBox.xy, inBox.zw, corner), 0.0, 1.0);
    outUV = vec4(corner, 0.0, 1.0);
}
