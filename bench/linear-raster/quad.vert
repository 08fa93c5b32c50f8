#version 450
// A textured quad per 6 vertices (TRIANGLE_LIST): clip position, texture position, a color.
layout(location = 0) in vec2 inPos;
layout(location = 1) in vec2 inUV;
layout(location = 2) in vec4 inColor;
#if defined(VEC4_UV)
layout(location = 0) out vec4 outUV;
#else
layout(location = 0) out vec2 outUV;
#endif
#if defined(FLAT_COLOR)
layout(location = 1) flat out vec4 outColor;
#endif
void main() {
    gl_Position = vec4(inPos, 0.0, 1.0);
#if defined(VEC4_UV)
    outUV = vec4(inUV, 0.0, 1.0);
#else
    outUV = inUV;
#endif
#if defined(FLAT_COLOR)
    outColor = inColor;
#endif
}
