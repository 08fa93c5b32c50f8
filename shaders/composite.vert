#version 450
// Group opacity: one triangle covering the target; the fragment shader reads the group's
// offscreen image at the same pixel.
void main() {
    vec2 p = vec2(float((gl_VertexIndex << 1) & 2), float(gl_VertexIndex & 2));
    gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}
