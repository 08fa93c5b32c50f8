#version 450
#extension GL_GOOGLE_include_directive : require
// Blurred shadows (DrawItem.Kind.shadowGroup), one pass of the separable Gaussian, drawn with
// shadow.vert over a quad in device pixels: the source image's alpha along this pixel's row
// (horizontal pass) or column (vertical pass), weighted by the Gaussian sampled at integer
// offsets over ±radius (≈ 3σ) and normalized, times the instance's premultiplied color and
// its clips' coverage. Reads are clamped to `area`, the part of the source its pass cleared
// (the content's bounding box grown by the blur), outside which the source is undefined.
//
// Cheap on llvmpipe, where every tap is CPU work: the weights come incrementally (each the
// previous times a ratio that itself changes by a constant factor: two multiplies, no exp;
// GPU Gems 3, ch. 40), and each tap is one texelFetch at a whole pixel (on llvmpipe a bilinear
// fetch costs some four of them, so the 2·radius + 1 whole-pixel taps beat radius + 1 paired
// bilinear ones; and a tap reads the same texel wherever the source lies in its image, so a
// blur is the same byte for byte moved by whole pixels). Resampling (σ 0, `resample` ≠ 1: the
// half-size copy's [1 3 3 1] filter, the upsampling) reads bilinearly.
// COLOR (a filter's Gaussian blur, CALayer.filters): the same weights over all four
// (premultiplied) channels, drawn times the instance's alpha.
// BACKDROP (with COLOR: CALayer.backgroundFilters' last step): the blurred value (σ 0: the
// source as it is) mixed with the backdrop (set 2: what the pass drew before the layer) by
// the instance's alpha (the layer's opacity) times its clips' coverage (its rounded bounds
// and its ancestors' clips), written in place of the pass's pixel (no blending).
#define CLIPPED
#include "common.frag.glsl"

layout(set = 1, binding = 0) uniform sampler2D source;  // set 0: the clips (common.frag.glsl)
#ifdef BACKDROP
layout(set = 2, binding = 0) uniform sampler2D backdrop;
#endif
layout(push_constant) uniform Blur {
    vec4 step;  // xy: direction, (1, 0) or (0, 1); z: sigma in pixels; w: radius in pixels
    vec4 area;  // valid source pixels: minX, minY, maxX, maxY (exclusive)
    vec4 resample;  // x: the source is read at the pixel's position times this (2: a half-size
                    // copy, [1 3 3 1]/8 both ways; ½: a half-size image upsampled bilinearly; else 1)
} blur;

layout(location = 0) out vec4 outColor;

vec2 invSize;
vec2 low, high;
ivec2 lowTexel, highTexel;

// The source's alpha at pixel position q (pixel centres at +0.5), kept inside the valid area
// (read bilinearly); tapAt: at whole pixel i, kept inside it.
#ifdef COLOR
vec4 alphaAt(vec2 q) {
    return texture(source, clamp(q, low, high) * invSize);
}
vec4 tapAt(ivec2 i) {
    return texelFetch(source, clamp(i, lowTexel, highTexel), 0);
}
#else
float alphaAt(vec2 q) {
    return texture(source, clamp(q, low, high) * invSize).a;
}
float tapAt(ivec2 i) {
    return texelFetch(source, clamp(i, lowTexel, highTexel), 0).a;
}
#endif

void main() {
    float sigma = blur.step.z;
    int radius = int(blur.step.w);
#ifdef COLOR
    vec4 sum;
#else
    float sum;
#endif
    float total = 1.0;
    if (sigma > 0.0) {
        // Whole-pixel taps (the source read at the pixel's own position).
        lowTexel = ivec2(blur.area.xy);
        highTexel = ivec2(blur.area.zw) - 1;
        ivec2 p = ivec2(gl_FragCoord.xy);
        ivec2 direction = ivec2(blur.step.xy);
        sum = tapAt(p);
        // g(i) = exp(−i²/2σ²): g(i + 1) = g(i)·r(i), r(i) = q^(2i + 1), q = exp(−1/2σ²).
        float q = exp(-0.5 / (sigma * sigma));
        float g = 1.0, r = q, qq = q * q;
        for (int i = 1; i <= radius; i++) {
            g *= r; r *= qq;
            sum += g * (tapAt(p + i * direction) + tapAt(p - i * direction));
            total += 2.0 * g;
        }
    } else {
        invSize = 1.0 / vec2(textureSize(source, 0));
        low = blur.area.xy + 0.5;
        high = blur.area.zw - 0.5;
        vec2 q = gl_FragCoord.xy * blur.resample.x;
        if (blur.resample.x > 1.5) {
            // Downsampling by 2: the [1 3 3 1]/8 filter both ways (16 pixels around the
            // half-size pixel's 2 × 2) as four bilinear reads, each at ¾ of a pixel from the
            // centre (a read between pixels 3 : 1 from the nearer). Its variance, ¾ pixel², is
            // in FramePlanner.downsampledSigma. It is three 2-pixel boxes in a row (response
            // cos³ πf): at the half-size image's Nyquist frequency it passes 0.35 of the
            // amplitude, which then aliases, where one 2 × 2 box passes 0.71.
            sum = 0.25 * (alphaAt(q + vec2(-0.75, -0.75)) + alphaAt(q + vec2(0.75, -0.75))
                          + alphaAt(q + vec2(-0.75, 0.75)) + alphaAt(q + vec2(0.75, 0.75)));
        } else {
            sum = alphaAt(q);
        }
    }
#if defined(BACKDROP)
    float coverage = inFillColor.a;
    if (inParams.w > 0.5) coverage *= clipsCoverage();
    outColor = mix(texelFetch(backdrop, ivec2(gl_FragCoord.xy), 0), sum / total, coverage);
#elif defined(COLOR)
    vec4 c = sum / total * inFillColor.a;
    if (inParams.w > 0.5) c *= clipsCoverage();
    if (c.a <= 0.0 && c.r <= 0.0 && c.g <= 0.0 && c.b <= 0.0) discard;
    outColor = c;
#else
    float a = sum / total;
    if (inParams.w > 0.5) a *= clipsCoverage();
    if (a <= 0.0) discard;
    outColor = inFillColor * a;
#endif
}
