// Fragment-side inputs and functions shared by rect.frag, piece.frag, sharp.frag, mesh.frag and
// shadow.frag (see instance.vert.glsl). The specialization constants (set per pipeline from
// shaders/variants.list; llvmpipe compiles each pipeline with them folded, so a pixel runs only
// its own kind's code): KIND, the `RectInstance.Kind` drawn (a gradient's type for the sharp
// ones); SHARP, gradients on sharp rects. CLIPPED, a define (a module of its own: it adds the
// clip buffer, a descriptor set that unclipped draws do not bind, and reads the params): the
// frame's clip buffer and the clip chain, which multiplies the color.

layout(constant_id = 0) const int KIND = 0;
layout(constant_id = 1) const bool SHARP = false;

// LOCAL_INTERPOLATION: how inLocal is interpolated — perspective-correct unless the module
// defines it (image.frag: `noperspective`, its vertex module's output matching).
#ifndef LOCAL_INTERPOLATION
#define LOCAL_INTERPOLATION
#endif
layout(location = 0) LOCAL_INTERPOLATION in vec2 inLocal;
// MASKED (masked.frag) reads its own inputs at locations 1 and 6.
#ifndef MASKED
layout(location = 1) flat in vec4 inBounds;
layout(location = 2) flat in vec4 inRadii;
#endif
layout(location = 3) flat in vec4 inFillColor;
layout(location = 4) flat in vec4 inBorderColor;
#ifndef CLIP_H0_LOCATION
#define CLIP_H0_LOCATION 10
#endif
#if !(defined(CLIP_VARYINGS) && CLIP_H0_LOCATION == 5)
layout(location = 5) flat in vec4 inParams;
#endif
#ifndef MASKED
layout(location = 6) flat in vec4 inGradientPoints;
#endif
layout(location = 7) flat in vec4 inGradientRange;

#ifdef CLIPPED
#define CLIP_VARYING in
#include "clips.glsl"
#ifdef CLIP_VARYINGS
// The item's innermost clip (clips[params.w − 1]), read once per vertex by the vertex stage and
// passed on flat: a pixel reads the clip buffer only for that clip's ancestors. (llvmpipe
// turns a buffer read at a per-pixel index into a loop over the lanes: reading the innermost
// clip per pixel made an image layer clipped by its bounds cost ~6× one without the clip.)
// Locations 10 (CLIP_H0_LOCATION) and 12–15: free in every module but the gradients', which
// use 6–11 and read the params only for the clip index, so their clipped modules put the
// first row at 5, in the params' place (CLIP_H0_LOCATION=5: no params then), and stay within
// the 16 locations every Vulkan device has. (Declared in clips.glsl: clipH0 … clipRadii.)
#endif
#endif

// Signed distance from p to a rounded rect (negative inside) and its gradient `normal`
// (unit length, in local units). Radii per corner, y-down: x = minXMinY, y = maxXMinY,
// z = minXMaxY, w = maxXMaxY. Each radius must not exceed the smaller half extent (the CPU
// clamps), so the quadrant picks the right corner.
float roundedRectDistance(vec2 p, vec4 rect, vec4 radii, out vec2 normal) {
    vec2 center = 0.5 * (rect.xy + rect.zw);
    vec2 halfSize = 0.5 * (rect.zw - rect.xy);
    vec2 q = p - center;
    vec2 side = vec2(q.x < 0.0 ? -1.0 : 1.0, q.y < 0.0 ? -1.0 : 1.0);
    float r = q.x < 0.0 ? (q.y < 0.0 ? radii.x : radii.z) : (q.y < 0.0 ? radii.y : radii.w);
    vec2 d = abs(q) - halfSize + r;
    if (d.x > 0.0 && d.y > 0.0) {
        normal = normalize(d) * side;
    } else {
        normal = d.x > d.y ? vec2(side.x, 0.0) : vec2(0.0, side.y);
    }
    return min(max(d.x, d.y), 0.0) + length(max(d, 0.0)) - r;
}

// Coverage of the pixel by a rounded rect: a 1-pixel-wide ramp centred on the edge. The
// local distance becomes pixels through the distance's screen-space gradient, taken
// analytically from its local gradient and the derivatives of the local position
// (`localPerPixelX/Y`), which stay exact where the distance itself bends (tiny shapes, corners).
float coverage(vec2 p, vec4 rect, vec4 radii, vec2 localPerPixelX, vec2 localPerPixelY) {
    vec2 normal;
    float d = roundedRectDistance(p, rect, radii, normal);
    float localPerPixel = length(vec2(dot(normal, localPerPixelX), dot(normal, localPerPixelY)));
    return clamp(0.5 - d / max(localPerPixel, 1e-6), 0.0, 1.0);
}

#ifdef CLIPPED
// Coverage by one clip: the pixel centre is mapped into the clip layer's plane by the
// homography rows h0..h2 ([px py 1] × H⁻¹); its derivatives are taken analytically (no dFdx,
// so this may run in non-uniform control flow).
float clipCoverage(ClipData clip) {
    if (clip.rect.z < clip.rect.x) return 0.0;
    vec3 q = gl_FragCoord.x * clip.h0.xyz + gl_FragCoord.y * clip.h1.xyz + clip.h2.xyz;
    if (q.z <= 0.0) return 0.0;
    vec2 local = q.xy / q.z;
    vec2 ddx = (clip.h0.xy - local * clip.h0.z) / q.z;
    vec2 ddy = (clip.h1.xy - local * clip.h1.z) / q.z;
    return coverage(local, clip.rect, clip.radii, ddx, ddy);
}

// Product of the coverage by the item's innermost clip (inParams.w − 1) and all its
// ancestors. Parents come before their children (the CPU checks), so the walk ends.
float clipsCoverage() {
#ifdef CLIP_VARYINGS
    float c = clipCoverage(ClipData(clipH0, clipH1, clipH2, clipRect, clipRadii));
    int index = int(clipH0.w + 0.5) - 1;
#else
    float c = 1.0;
    int index = int(inParams.w + 0.5) - 1;
#endif
    while (index >= 0 && c > 0.0) {
        ClipData clip = clips[index];
        c *= clipCoverage(clip);
        index = int(clip.h0.w + 0.5) - 1;
    }
    return c;
}
#endif

// Coverage of a rect without radii under an affine transform from the pixel distances to its
// four edges (inside positive: left, right, top, bottom; the vertex stage's `edges`,
// interpolated): the product of its overlaps with the pixel along the two pairs of edges —
// exact area coverage when axis-aligned, a one-pixel ramp per edge when rotated (sharp rects,
// sharp gradients, lean image pieces).
float edgeCoverage(vec4 edges) {
    vec4 c = clamp(edges + 0.5, 0.0, 1.0);
    return max(c.x + c.y - 1.0, 0.0) * max(c.z + c.w - 1.0, 0.0);
}

// The end of a fragment: `color` (premultiplied) times the clip chain's coverage in the clipped
// variants; discarded where nothing is left, else written to `result` (the output).
void emitColor(vec4 color, out vec4 result) {
#ifdef CLIPPED
    if (color.a > 0.0) color *= clipsCoverage();
#endif
    if (color.a <= 0.0) {
        discard;
    }
    result = color;
}
