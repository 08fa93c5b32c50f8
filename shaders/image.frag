#version 450
#extension GL_GOOGLE_include_directive : require
// Image pieces under an affine transform (KIND 12, `RectInstance.Kind.imageSharp`): what an
// image layer costs beyond its pixels kept to the texture fetch. The texture coordinate comes
// interpolated from the vertex stage (inLocal here: the piece's rect mapped linearly onto its
// part of the image, as piece.frag computes it per pixel), sampled with implicit derivatives
// (under an affine map the same level and filter choice as piece.frag's explicit ones); the
// frame's edges are anti-aliased as a sharp rect's (sharp.frag: the pixel distances to the
// four edges, interpolated, no distance field or derivatives per pixel). Coverage images (A8:
// the glyph atlas, text) need no branch: their view swizzles r into every channel, so
// texel × color is color × coverage. CLIPPED multiplies the clip chain. Kind 6 (piece.frag)
// draws the rest: pieces under perspective. The texture position is clamped to inBorderColor
// (RectInstance.borderColor: the image's outermost texel centres in an atlas page, so that
// filtering never reads a neighbouring entry and the edge texels extend as CLAMP_TO_EDGE makes
// them for an image of its own; the unit square, a no-op, for those).
// inLocal without perspective division (w is constant under the affine transforms this
// pipeline draws; llvmpipe then interpolates no input per pixel through 1/w).
#define LOCAL_INTERPOLATION noperspective
#include "common.frag.glsl"

layout(location = 11) noperspective in vec4 inEdges;
layout(set = 1, binding = 0) uniform sampler2D image;
layout(location = 0) out vec4 outColor;

void main() {
    emitColor(texture(image, clamp(inLocal, inBorderColor.xy, inBorderColor.zw)) * inFillColor * edgeCoverage(inEdges), outColor);
}
