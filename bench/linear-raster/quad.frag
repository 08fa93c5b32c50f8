#version 450
// The fragment shaders tried against llvmpipe's linear path: TEX (a texel), TEX_PC (texel ×
// a push-constant color), FLAT_COLOR (texel × a flat varying, Lamina's shape), SOLID_PC (a
// push-constant color only), NOPERSP (TEX with a noperspective texture position), VEC4_UV
// (TEX with the position in a vec4 input: NIR then swizzles it into a vec2).
#if defined(NOPERSP)
layout(location = 0) noperspective in vec2 inUV;
#elif defined(VEC4_UV)
layout(location = 0) in vec4 inUV4;
#define inUV inUV4.xy
#else
layout(location = 0) in vec2 inUV;
#endif
#if defined(FLAT_COLOR)
layout(location = 1) flat in vec4 inColor;
#endif
layout(set = 0, binding = 0) uniform sampler2D image;
layout(push_constant) uniform PC { vec4 color; } pc;
layout(location = 0) out vec4 outColor;
void main() {
#if defined(SOLID_PC)
    outColor = pc.color;
#elif defined(TEX_PC)
    outColor = texture(image, inUV) * pc.color;
#elif defined(FLAT_COLOR)
    outColor = texture(image, inUV) * inColor;
#else
    outColor = texture(image, inUV);
#endif
}
