#version 450
#extension GL_GOOGLE_include_directive : require
// Image and shape pieces (KIND 6 and 7, one module: the vertex side is VS_PIECE), sampled from
// set 1. CLIPPED multiplies the clip chain.
//
// KIND 6: one piece of a layer's contents (or of any image item). The piece's rect
// (inGradientPoints) maps linearly onto its part of the image (inGradientLocations, unit
// square); the sampler applies the item's minification and magnification filters, with the
// derivatives of that map (so pieces of a nine-slice choose their mip level from their own
// stretch). inParams.z: 0 = the image's premultiplied texels × inFillColor (opacity), 1 =
// texel.r as coverage × inFillColor (an A8 atlas). The frame's edges (inBounds) are
// anti-aliased. The texture position is clamped to inBorderColor (as in image.frag: a
// small-image atlas entry's texel centres, or the unit square).
//
// KIND 7: a shape layer's fill and stroke from the shape atlas (LaminaFrame's ShapeAtlas):
// texel r is the fill's coverage, g the stroke's, each the exact area coverage of the texel's
// pixel box (rasterized on the CPU by the coverage meshes' own computation,
// CoverageMesh.rasterize, at the layer's device scale); inLocal is the atlas position. The
// quad is the entry's frame, whose outer texels are zero, so no edge coverage is needed; an
// unrotated layer at a whole-pixel offset samples texel centres (exact), others bilinearly.
// The stroke is drawn over the fill, as two items would blend.
#include "common.frag.glsl"

layout(location = 8) flat in vec4 inGradientLocations;
layout(set = 1, binding = 0) uniform sampler2D image;
layout(location = 0) out vec4 outColor;

void main() {
    vec4 color;
    if (KIND == 7) {
        vec2 t = textureLod(image, inLocal, 0.0).rg;
        vec4 stroke = inBorderColor * t.y;
        color = stroke + inFillColor * (t.x * (1.0 - stroke.a));
    } else {
        vec2 dx = dFdx(inLocal);
        vec2 dy = dFdy(inLocal);
        vec4 piece = inGradientPoints;
        vec4 source = inGradientLocations;
        vec2 perLocal = (source.zw - source.xy) / max(piece.zw - piece.xy, vec2(1e-6));
        vec2 uv = source.xy + (inLocal - piece.xy) * perLocal;
        vec4 texel = textureGrad(image, clamp(uv, inBorderColor.xy, inBorderColor.zw), dx * perLocal, dy * perLocal);
        color = (inParams.z > 0.5 ? inFillColor * texel.r : texel * inFillColor)
            * coverage(inLocal, inBounds, vec4(0.0), dx, dy);
    }
    emitColor(color, outColor);
}
