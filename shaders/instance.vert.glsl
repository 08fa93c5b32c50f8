// Per-instance inputs shared by the rect*.vert variants and mesh.vert. Mirrors `RectInstance` in
// Sources/LaminaFrame/RectInstance.swift (checked by RectInstanceLayoutTests): each field is
// a vec4 at the location `RectInstance.fields` gives it; an instance in the ring is the prefix
// of the struct its kind reads (`RectInstance.stride`), so a variant reads only locations
// inside that prefix. Locations 0–2 are the motion part (what the item's transform and opacity
// alone decide), the rest the content part: colors come without the opacity and the cover
// rect ungrown; `quad()` and `emit` apply them.

// Local (bounds) coordinates → clip space, as three rows of coefficients applied to
// (x, y, 1): clip.x, clip.y and clip.w (xyz). Device-pixel scaling, y-down, and the
// CATransform3D row-vector convention are folded in on the CPU; perspective stays in w so the
// GPU divides. The w lanes: the anti-aliasing margins in local units across the edges
// x = const (inClipX.w) and y = const (inClipY.w), and the opacity (inClipW.w).
layout(location = 0) in vec4 inClipX;
layout(location = 1) in vec4 inClipY;
layout(location = 2) in vec4 inClipW;
layout(location = 3) in vec4 inBounds;         // local minX, minY, maxX, maxY
layout(location = 4) in vec4 inCover;          // local rect covered (the quad before its AA margins)
layout(location = 5) in vec4 inRadii;          // minXMinY, maxXMinY, minXMaxY, maxXMaxY (images: sides grown)
layout(location = 6) in vec4 inFillColor;      // premultiplied (gradients: straight, stop a), no opacity
layout(location = 7) in vec4 inBorderColor;    // premultiplied (gradients: straight, stop b), no opacity
layout(location = 8) in vec4 inParams;         // border width, kind, shadow sigma, innermost clip + 1
layout(location = 9) in vec4 inGradientPoints; // start.xy, end.xy
layout(location = 10) in vec4 inGradientRange; // location a, location b, draw t in [z, w)
layout(location = 11) in vec4 inGradientLocations; // up to four stops' locations
layout(location = 12) in vec4 inGradientColor2;    // third and fourth stop colors (straight)
layout(location = 13) in vec4 inGradientColor3;

// The local quad to rasterize: the cover rect grown by the margins on each side — by half of
// them (and a little) for sharp rects, whose coverage is zero beyond half a pixel; not at all
// for shape atlas pieces (KIND 7: the entry's outer texels are zero); on the sides inRadii
// marks for image pieces (KIND 6: the frame's edges, so nine-slice pieces do not overlap).
// Plain and sharp rects (KIND 0, 8) cover their bounds: they read inBounds (their instances'
// stride ends before the cover rect).
vec4 quad() {
    vec4 margins = vec4(-inClipX.w, -inClipY.w, inClipX.w, inClipY.w);
#if KIND == 6
    return inCover + margins * inRadii;
#elif KIND == 7
    return inCover;
#elif KIND == 8
    return inBounds + margins * (0.5 * 1.0001);
#elif defined(SHARP)
    return inCover + margins * (0.5 * 1.0001);
#elif KIND == 0
    return inBounds + margins;
#else
    return inCover + margins;
#endif
}

#if KIND == 8 || defined(SHARP)
// The pixel distances to a sharp rect's four edges (inside positive: left, right, top, bottom),
// affine in screen space: the local distances times the device pixels per local unit across
// each pair of edges (the inverse margins).
vec4 edges(vec2 local) {
    return vec4(local.x - inBounds.x, inBounds.z - local.x, local.y - inBounds.y, inBounds.w - local.y)
        / vec4(inClipX.w, inClipX.w, inClipY.w, inClipY.w);
}
#endif

#if KIND == 8
// Sharp rects (KIND 8, rectSharp[Clipped]): a rect without radii or border under an affine
// transform. Its pixel distances to the four edges (inside positive: left, right, top,
// bottom) are affine in screen space, so they are interpolated from the vertices (`edges`).
// Fill color; params for the clip only.
layout(location = 3) flat out vec4 outFillColor;
#ifdef CLIPPED
layout(location = 5) flat out vec4 outParams;
#endif
layout(location = 9) noperspective out vec4 outEdges;

void emit(vec2 local) {
    vec3 p = vec3(local, 1.0);
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, dot(inClipW.xyz, p));
    outEdges = edges(local);
    outFillColor = inFillColor * inClipW.w;
#ifdef CLIPPED
    outParams = inParams;
#endif
}
#elif KIND == 7
// Shape atlas items (KIND 7, rectShape[Clipped]): the atlas position (texels' unit square) at
// location 0 instead of the local one, linear in local units (the piece's rect, location 9,
// onto its part of the atlas, location 11); fill and stroke colors; params for the clip only.
layout(location = 0) out vec2 outAtlas;
layout(location = 3) flat out vec4 outFillColor;
layout(location = 4) flat out vec4 outBorderColor;
#ifdef CLIPPED
layout(location = 5) flat out vec4 outParams;
#endif

void emit(vec2 local) {
    vec3 p = vec3(local, 1.0);
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, dot(inClipW.xyz, p));
    vec4 piece = inGradientPoints, source = inGradientLocations;
    outAtlas = source.xy + (local - piece.xy) * (source.zw - source.xy) / max(piece.zw - piece.xy, vec2(1e-6));
    outFillColor = inFillColor * inClipW.w;
    outBorderColor = inBorderColor * inClipW.w;
#ifdef CLIPPED
    outParams = inParams;
#endif
}
#else
// Each variant's vertex shader writes exactly what its fragment shader reads, so the pipeline
// interface has no unused parts: KIND is the `RectInstance.Kind` its pipeline draws (0 plain
// rect, 1 shadow, 2 gradients: 2–4 read the same, 5 mesh.vert, which also defines MESH_SHADER:
// meshes read no gradient range; 6 images);
// CLIPPED as in the fragment shader (params carries the clip index).
#ifndef MESH_SHADER
layout(location = 0) out vec2 outLocal;
#ifndef SHARP
layout(location = 1) flat out vec4 outBounds;
#if KIND != 6
layout(location = 2) flat out vec4 outRadii;
#endif
#endif
#if KIND != 1 && KIND != 6
layout(location = 4) flat out vec4 outBorderColor;
#endif
#if KIND >= 2
layout(location = 6) flat out vec4 outGradientPoints;    // images: the piece's rect
layout(location = 8) flat out vec4 outGradientLocations; // images: the piece's part of the image
#if KIND != 6
layout(location = 9) flat out vec4 outGradientColor2;
layout(location = 10) flat out vec4 outGradientColor3;
#endif
#endif
#endif
layout(location = 3) flat out vec4 outFillColor;
#if KIND <= 1 || KIND == 6 || defined(CLIPPED)
layout(location = 5) flat out vec4 outParams;  // gradients and meshes read it for the clip only
#endif
#if KIND >= 2 && KIND != 6 && !defined(MESH_SHADER)
layout(location = 7) flat out vec4 outGradientRange;
#endif
#ifdef SHARP
// Gradients on sharp rects (rect*Sharp*.frag): the pixel distances to the four edges, as
// KIND 8 computes them (`edges`).
layout(location = 11) noperspective out vec4 outEdges;
#endif

// Writes gl_Position for a local point and passes the instance to the fragment shader.
void emit(vec2 local) {
    vec3 p = vec3(local, 1.0);
    float w = dot(inClipW.xyz, p);
    // z = 0 keeps every point with w > 0 inside the depth range and clips w <= 0 (behind the eye).
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, w);
#ifndef MESH_SHADER
    outLocal = local;
#ifndef SHARP
    outBounds = inBounds;
#if KIND != 6
    outRadii = inRadii;
#endif
#endif
#if KIND == 2
    // Gradient stops are straight: the opacity goes into their alpha.
    outBorderColor = vec4(inBorderColor.rgb, inBorderColor.a * inClipW.w);
#elif KIND != 1 && KIND != 6
    outBorderColor = inBorderColor * inClipW.w;
#endif
#if KIND >= 2
    outGradientPoints = inGradientPoints;
    outGradientLocations = inGradientLocations;
#if KIND != 6
    outGradientColor2 = vec4(inGradientColor2.rgb, inGradientColor2.a * inClipW.w);
    outGradientColor3 = vec4(inGradientColor3.rgb, inGradientColor3.a * inClipW.w);
#endif
#endif
#endif
#if KIND == 2
    outFillColor = vec4(inFillColor.rgb, inFillColor.a * inClipW.w);
#else
    outFillColor = inFillColor * inClipW.w;
#endif
#if KIND <= 1 || KIND == 6 || defined(CLIPPED)
    outParams = inParams;
#endif
#if KIND >= 2 && KIND != 6 && !defined(MESH_SHADER)
    outGradientRange = inGradientRange;
#endif
#ifdef SHARP
    outEdges = edges(local);
#endif
}
#endif
