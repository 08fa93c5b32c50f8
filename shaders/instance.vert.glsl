// Per-instance inputs and outputs shared by rect.vert and mesh.vert. Mirrors `RectInstance` in
// Sources/LaminaFrame/RectInstance.swift (checked by RectInstanceLayoutTests): each field is
// a vec4 at the location `RectInstance.fields` gives it; an instance in the ring is the prefix
// of the struct its kind reads (`RectInstance.stride`), so a module reads only locations
// inside that prefix. Locations 0–2 are the motion part (what the item's transform and opacity
// alone decide), the rest the content part: colors come without the opacity and the cover
// rect ungrown; `quad()` and `emit` apply them.
//
// One vertex module per input set (shaders/variants.list: the `module` lines): VS_SHARP (kind 8,
// 96 bytes), VS_MESH (kind 5, 96), VS_PLAIN (kind 0, 128), VS_SHADOW (kind 1, 144), VS_PIECE
// (image and shape pieces, kinds 6 and 7, 176), VS_IMAGE (image pieces under an affine
// transform, kind 12, 176), VS_GRADIENT (kinds 2–4 and 9–11, 224) and VS_MASKED (gradients
// masked by a shape's coverage, kinds 13 and 14, 224: masked.frag). The
// list's `inputs=` defines IN<location> for each instance field the module reads, which is
// also the pipeline's attribute table. Within a module the specialization constants pick the
// kind's code (KIND: 6 or 7 in VS_PIECE; SHARP in VS_GRADIENT). CLIPPED (defined for the
// clipped variants of the kinds whose fragment stage reads the params only for the clip
// index: gradients, meshes, sharp rects) passes the params on. CLIP_VARYINGS (every clipped
// module) reads the item's innermost clip from the clip buffer instead and passes it on flat
// (common.frag.glsl says why and where): meshes, sharp rects and gradients then pass no params.

layout(constant_id = 0) const int KIND = 0;
layout(constant_id = 1) const bool SHARP = false;

// Local (bounds) coordinates → clip space, as three rows of coefficients applied to
// (x, y, 1): clip.x, clip.y and clip.w (xyz). Device-pixel scaling, y-down, and the
// CATransform3D row-vector convention are folded in on the CPU; perspective stays in w so the
// GPU divides. The w lanes: the anti-aliasing margins in local units across the edges
// x = const (inClipX.w) and y = const (inClipY.w), and the opacity (inClipW.w).
layout(location = 0) in vec4 inClipX;
layout(location = 1) in vec4 inClipY;
layout(location = 2) in vec4 inClipW;
#ifdef IN3
layout(location = 3) in vec4 inBounds;         // local minX, minY, maxX, maxY
#endif
#ifdef IN4
layout(location = 4) in vec4 inCover;          // local rect covered (the quad before its AA margins)
#endif
#ifdef IN5
layout(location = 5) in vec4 inRadii;          // minXMinY, maxXMinY, minXMaxY, maxXMaxY (images: sides grown)
#endif
layout(location = 6) in vec4 inFillColor;      // premultiplied (gradients: straight, stop a), no opacity
#ifdef IN7
layout(location = 7) in vec4 inBorderColor;    // premultiplied (gradients: straight, stop b), no opacity
#endif
#ifdef IN8
layout(location = 8) in vec4 inParams;         // border width, kind, shadow sigma, innermost clip + 1
#endif
#ifdef IN9
layout(location = 9) in vec4 inGradientPoints; // start.xy, end.xy
#endif
#ifdef IN10
layout(location = 10) in vec4 inGradientRange; // location a, location b, draw t in [z, w)
#endif
#ifdef IN11
layout(location = 11) in vec4 inGradientLocations; // up to four stops' locations
#endif
#ifdef IN12
layout(location = 12) in vec4 inGradientColor2;    // third and fourth stop colors (straight)
#endif
#ifdef IN13
layout(location = 13) in vec4 inGradientColor3;
#endif

#ifdef CLIP_VARYINGS
#define CLIP_VARYING out
#include "clips.glsl"
#endif

// Each module writes exactly what its fragment module reads (shaders/variants.list pairs
// them), so the pipeline interface has no unused parts.
#if defined(VS_PLAIN) || defined(VS_SHADOW) || defined(VS_PIECE) || defined(VS_GRADIENT) || defined(VS_IMAGE) \
    || defined(VS_MASKED)
#ifdef VS_IMAGE
// The texture position, linear in screen space under the affine transforms these pieces are
// drawn with (clip w is the constant m44): interpolated without the per-pixel division by w
// (image.frag reads it `noperspective` too; the values are the perspective-correct ones).
layout(location = 0) noperspective out vec2 outLocal;
#else
layout(location = 0) out vec2 outLocal;         // the local position (shape pieces: the atlas position)
#endif
#endif
#if defined(VS_PLAIN) || defined(VS_SHADOW) || defined(VS_PIECE) || defined(VS_GRADIENT)
layout(location = 1) flat out vec4 outBounds;
#endif
#if defined(VS_PLAIN) || defined(VS_SHADOW) || defined(VS_GRADIENT)
layout(location = 2) flat out vec4 outRadii;
#endif
layout(location = 3) flat out vec4 outFillColor;
#if !defined(VS_SHARP) && !defined(VS_MESH)
layout(location = 4) flat out vec4 outBorderColor;  // image pieces (kinds 6, 12): the texel clamp
#endif
#if (defined(CLIPPED) && !defined(CLIP_VARYINGS)) || defined(VS_PLAIN) || defined(VS_SHADOW) || defined(VS_PIECE)
layout(location = 5) flat out vec4 outParams;   // the clip index (and the kind's own params)
#endif
#ifdef VS_MASKED
// The quad's local position is the mask's (its coverage entry's frame); the gradient's own
// coordinate there (masked.frag), affine in it: x from the row in inBounds, y from inRadii.
layout(location = 1) out vec2 outGradient;
layout(location = 7) flat out vec4 outGradientRange;
layout(location = 8) flat out vec4 outGradientLocations;
layout(location = 9) flat out vec4 outGradientColor2;
layout(location = 11) flat out vec4 outGradientColor3;
#endif
#if defined(VS_PIECE) || defined(VS_GRADIENT)
layout(location = 6) flat out vec4 outGradientPoints;    // pieces: the piece's rect
layout(location = 8) flat out vec4 outGradientLocations; // pieces: the piece's part of the image
#endif
#ifdef VS_GRADIENT
layout(location = 7) flat out vec4 outGradientRange;
layout(location = 9) flat out vec4 outGradientColor2;
layout(location = 10) flat out vec4 outGradientColor3;
#endif
#if defined(VS_SHARP) || defined(VS_GRADIENT) || defined(VS_IMAGE)
// Sharp rects (kind 8), gradients on them (SHARP) and lean image pieces (VS_IMAGE, kind 12):
// the pixel distances to the four edges (of the image's frame).
layout(location = 11) noperspective out vec4 outEdges;
#endif

#ifndef VS_MESH
// The local quad to rasterize: the cover rect grown by the margins on each side — by half of
// them (and a little) for sharp rects, whose coverage is zero beyond half a pixel; not at all
// for shape atlas pieces (KIND 7: the entry's outer texels are zero); on the sides inRadii
// marks for image pieces (KIND 6: the frame's edges, so nine-slice pieces do not overlap; by
// half of them for the lean ones, VS_IMAGE, whose edge coverage is a sharp rect's).
// Plain and sharp rects (VS_PLAIN, VS_SHARP) cover their bounds: they read inBounds (their
// instances' stride ends before the cover rect).
vec4 quad() {
    vec4 margins = vec4(-inClipX.w, -inClipY.w, inClipX.w, inClipY.w);
#if defined(VS_PIECE)
    if (KIND == 6) return inCover + margins * inRadii;
    return inCover;
#elif defined(VS_IMAGE)
    // Lean image pieces (KIND 12): on the frame's edges by half the margins, as sharp rects.
    return inCover + margins * inRadii * (0.5 * 1.0001);
#elif defined(VS_SHARP)
    return inBounds + margins * (0.5 * 1.0001);
#elif defined(VS_GRADIENT)
    if (SHARP) return inCover + margins * (0.5 * 1.0001);
    return inCover + margins;
#elif defined(VS_MASKED)
    return inCover;  // a coverage entry's frame: its outer texels are zero
#elif defined(VS_PLAIN)
    return inBounds + margins;
#else
    return inCover + margins;
#endif
}
#endif

#if defined(VS_PIECE) || defined(VS_IMAGE)
// Where local point `local` samples the image (unit square): the piece's rect
// (inGradientPoints) mapped linearly onto its part of the image (inGradientLocations).
vec2 pieceSource(vec2 local) {
    vec4 piece = inGradientPoints, source = inGradientLocations;
    return source.xy + (local - piece.xy) * (source.zw - source.xy) / max(piece.zw - piece.xy, vec2(1e-6));
}
#endif

#if defined(VS_SHARP) || defined(VS_GRADIENT) || defined(VS_IMAGE)
// The pixel distances to a sharp rect's four edges (inside positive: left, right, top, bottom),
// affine in screen space (so interpolated from the vertices): the local distances times the
// device pixels per local unit across each pair of edges (the inverse margins).
vec4 edges(vec2 local) {
    return vec4(local.x - inBounds.x, inBounds.z - local.x, local.y - inBounds.y, inBounds.w - local.y)
        / vec4(inClipX.w, inClipX.w, inClipY.w, inClipY.w);
}
#endif

#if defined(VS_GRADIENT) || defined(VS_MASKED)
// A gradient's stops (up to four colors, their locations and the instance's range of them)
// for the fragment stage. Stops are straight: the opacity goes into their alpha.
void gradientStops() {
    outFillColor = vec4(inFillColor.rgb, inFillColor.a * inClipW.w);
    outBorderColor = vec4(inBorderColor.rgb, inBorderColor.a * inClipW.w);
    outGradientColor2 = vec4(inGradientColor2.rgb, inGradientColor2.a * inClipW.w);
    outGradientColor3 = vec4(inGradientColor3.rgb, inGradientColor3.a * inClipW.w);
    outGradientLocations = inGradientLocations;
    outGradientRange = inGradientRange;
}
#endif

// Writes gl_Position for a local point and passes the instance to the fragment shader.
void emit(vec2 local) {
    vec3 p = vec3(local, 1.0);
    // z = 0 keeps every point with w > 0 inside the depth range and clips w <= 0 (behind the eye).
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, dot(inClipW.xyz, p));
#if (defined(CLIPPED) && !defined(CLIP_VARYINGS)) || defined(VS_PLAIN) || defined(VS_SHADOW) || defined(VS_PIECE)
    outParams = inParams;
#endif
#ifdef CLIP_VARYINGS
    ClipData clip = clips[int(inParams.w + 0.5) - 1];
    clipH0 = clip.h0;
    clipH1 = clip.h1;
    clipH2 = clip.h2;
    clipRect = clip.rect;
    clipRadii = clip.radii;
#endif
#if defined(VS_SHARP)
    outEdges = edges(local);
    outFillColor = inFillColor * inClipW.w;
#elif defined(VS_MESH)
    outFillColor = inFillColor * inClipW.w;
#elif defined(VS_PLAIN) || defined(VS_SHADOW)
    outLocal = local;
    outBounds = inBounds;
    outRadii = inRadii;
    outFillColor = inFillColor * inClipW.w;
#ifdef VS_PLAIN
    outBorderColor = inBorderColor * inClipW.w;
#else
    outBorderColor = vec4(0.0);  // a shadow has no border (rect.frag reads it for KIND 0 only)
#endif
#elif defined(VS_PIECE)
    outFillColor = inFillColor * inClipW.w;
    // Shape pieces: the stroke color; image pieces: the rect their texture position is clamped
    // to (the image's texel centres: a small-image atlas entry's, or the unit square).
    outBorderColor = KIND == 7 ? inBorderColor * inClipW.w : inBorderColor;
    outBounds = inBounds;
    outGradientPoints = inGradientPoints;
    outGradientLocations = inGradientLocations;
    if (KIND == 7) {
        // Shape atlas pieces: the atlas position (texels' unit square), linear in local units
        // (the piece's rect onto its part of the atlas).
        outLocal = pieceSource(local);
    } else {
        outLocal = local;
    }
#elif defined(VS_IMAGE)
    outFillColor = inFillColor * inClipW.w;
    outBorderColor = inBorderColor;  // the texel clamp (image.frag)
    outLocal = pieceSource(local);
    outEdges = edges(local);
#elif defined(VS_MASKED)
    // The coverage's atlas position: the frame (inCover) onto its part of the atlas (inGradientPoints).
    vec4 source = inGradientPoints;
    outLocal = source.xy + (local - inCover.xy) * (source.zw - source.xy) / max(inCover.zw - inCover.xy, vec2(1e-6));
    vec3 p1 = vec3(local, 1.0);
    outGradient = vec2(dot(inBounds.xyz, p1), dot(inRadii.xyz, p1));
    gradientStops();
#elif defined(VS_GRADIENT)
    outLocal = local;
    outBounds = inBounds;
    outRadii = inRadii;
    outGradientPoints = inGradientPoints;
    gradientStops();
    outEdges = SHARP ? edges(local) : vec4(0.0);
#endif
}
