#version 450
#extension GL_GOOGLE_include_directive : require
// Rounded rects, shadows and gradients: two modules (shaders/variants.list), rectFrag (kinds 0
// and 1) and, with GRADIENT defined, rectGradientFrag (kinds 2–4, and 9–11 with SHARP), whose
// inputs differ. One pipeline per kind, specialized (KIND, SHARP, CLIPPED: common.frag.glsl),
// so that a pixel pays only for its own kind (llvmpipe runs every branch of a shader over its
// SIMD block, but compiles each pipeline with the constants folded; see the README's
// "Performance on lavapipe"). KIND is the `RectInstance.Kind` drawn: 0 rounded rect with
// border, 1 blurred rounded rect (shadow), 2/3/4 an axial/radial/conic gradient (up to four
// stops per instance). CLIPPED: multiply by the item's clip chain. Coverage from signed
// distances; output premultiplied, blended ONE, ONE_MINUS_SRC_ALPHA in sRGB-encoded space.
#include "common.frag.glsl"

#ifdef GRADIENT
layout(location = 8) flat in vec4 inGradientLocations;
layout(location = 9) flat in vec4 inGradientColor2;
layout(location = 10) flat in vec4 inGradientColor3;
#endif

layout(location = 0) out vec4 outColor;

#ifdef GRADIENT
// Gradients on rects without radii under an affine transform (kinds 9–11, SHARP): the coverage
// of sharp.frag (kind 8) from the interpolated pixel distances to the edges.
layout(location = 11) noperspective in vec4 inEdges;
#endif

#ifdef GRADIENT
#include "gradient.glsl"
#endif

#ifndef GRADIENT
// erf approximation (Abramowitz–Stegun 7.1.27 form), max error about 5e-4.
vec2 erf2(vec2 x) {
    vec2 s = sign(x), a = abs(x);
    vec2 t = 1.0 + (0.278393 + (0.230389 + 0.078108 * (a * a)) * a) * a;
    t *= t;
    return s - s / (t * t);
}

float gaussian(float x, float sigma) {
    return exp(-(x * x) / (2.0 * sigma * sigma)) / (2.5066283 * sigma);
}

// Blur along x of the rounded rect's row at height y (relative to its centre): the exact
// Gaussian integral over the row's extent, where the corner circle narrows it.
float blurredRow(float x, float y, float sigma, float corner, vec2 halfSize) {
    float delta = min(halfSize.y - corner - abs(y), 0.0);
    float curved = halfSize.x - corner + sqrt(max(0.0, corner * corner - delta * delta));
    vec2 integral = 0.5 + 0.5 * erf2((x + vec2(-curved, curved)) * (0.70710678 / sigma));
    return integral.y - integral.x;
}

// Gaussian blur (standard deviation sigma) of a rounded rect's coverage at p: exact along x
// per row, integrated along y with four samples over ±3σ (after Evan Wallace's "fast rounded
// rectangle shadows"; the corner radius is the one of p's quadrant). Exact for sharp corners.
float blurredRoundedRect(vec2 p, vec4 rect, vec4 radii, float sigma) {
    vec2 center = 0.5 * (rect.xy + rect.zw);
    vec2 halfSize = 0.5 * (rect.zw - rect.xy);
    vec2 q = p - center;
    float corner = q.x < 0.0 ? (q.y < 0.0 ? radii.x : radii.z) : (q.y < 0.0 ? radii.y : radii.w);
    if (corner <= 0.0) {
        vec2 ex = erf2(vec2(q.x + halfSize.x, q.x - halfSize.x) * (0.70710678 / sigma));
        vec2 ey = erf2(vec2(q.y + halfSize.y, q.y - halfSize.y) * (0.70710678 / sigma));
        return 0.25 * (ex.x - ex.y) * (ey.x - ey.y);
    }
    float low = q.y - halfSize.y;
    float high = q.y + halfSize.y;
    float start = clamp(-3.0 * sigma, low, high);
    float end = clamp(3.0 * sigma, low, high);
    float step = (end - start) / 4.0;
    float y = start + step * 0.5;
    float value = 0.0;
    for (int i = 0; i < 4; i++) {
        value += blurredRow(q.x, q.y - y, sigma, corner, halfSize) * gaussian(y, sigma) * step;
        y += step;
    }
    return value;
}
#endif

void main() {
    // Derivatives in uniform control flow, before any branch.
    vec2 dx = dFdx(inLocal);
    vec2 dy = dFdy(inLocal);
    vec4 color;
#ifdef GRADIENT
    vec2 s = inGradientPoints.xy, e = inGradientPoints.zw;
    vec2 p = inLocal - s;
    float t;
    if (KIND == 2) {
        vec2 d = e - s;
        t = dot(p, d) / max(dot(d, d), 1e-12);
    } else if (KIND == 3) {
        t = length(p / max(abs(e - s), vec2(1e-6)));
    } else {
        vec2 d = e - s;
        // Angle from the direction towards `end`, clockwise on screen (y down).
        t = fract((atan(p.y, p.x) - atan(d.y, d.x)) / 6.28318531);
    }
    if (t < inGradientRange.z || t >= inGradientRange.w) discard;
    vec4 c = gradientColor(t, int(inGradientRange.x + 0.5));
    if (SHARP) {
        color = vec4(c.rgb * c.a, c.a) * edgeCoverage(inEdges);
    } else {
        color = vec4(c.rgb * c.a, c.a) * coverage(inLocal, inBounds, inRadii, dx, dy);
    }
#else
    if (KIND == 1) {
        float sigma = inParams.z;
        float localPerPixel = max(length(dx), length(dy));
        float a = sigma > 0.05 * localPerPixel
            ? blurredRoundedRect(inLocal, inBounds, inRadii, sigma)
            : coverage(inLocal, inBounds, inRadii, dx, dy);
        color = inFillColor * clamp(a, 0.0, 1.0);
    } else {
        float borderWidth = inParams.x;
        float outer = coverage(inLocal, inBounds, inRadii, dx, dy);
        color = inFillColor * outer;
        if (borderWidth > 0.0) {
            vec4 innerRect = inBounds + vec4(borderWidth, borderWidth, -borderWidth, -borderWidth);
            float inner = 0.0;
            if (innerRect.z > innerRect.x && innerRect.w > innerRect.y) {
                vec4 innerRadii = max(inRadii - borderWidth, vec4(0.0));
                inner = coverage(inLocal, innerRect, innerRadii, dx, dy);
            }
            float ring = max(outer - inner, 0.0);
            // The border is drawn over the background, as Core Animation does.
            vec4 border = inBorderColor * ring;
            color = border + color * (1.0 - border.a);
        }
    }
#endif
    emitColor(color, outColor);
}
