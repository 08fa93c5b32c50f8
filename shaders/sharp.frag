#version 450
#extension GL_GOOGLE_include_directive : require
// Sharp rects (KIND 8): a rect without radii or border under an affine
// transform (RectInstance.Kind.sharp; others are KIND 0). The pixel's coverage is the product
// of its overlaps with the rect along the two pairs of edges, each from the pixel distances to
// the two edges (interpolated: affine in screen space): exact area coverage for an
// axis-aligned rect, the same one-pixel ramp per edge as KIND 0 when rotated, and no distance
// field, derivatives or branches per pixel. CLIPPED multiplies the clip chain.
#include "common.frag.glsl"

layout(location = 11) noperspective in vec4 inEdges;
layout(location = 0) out vec4 outColor;

void main() {
    emitColor(inFillColor * edgeCoverage(inEdges), outColor);
}
