// The body of mesh.frag and meshClipped.frag (CLIPPED: multiplied by the item's clip chain).
// Tessellated meshes: color × interpolated coverage (the AA fringe), strokes trimmed on the
// distance along the path (strokeStart/strokeEnd) when inGradientRange.z is set. Drawn with
// the stencil "each pixel once" rule, so a discarded fragment leaves the pixel to later ones.
#include "common.frag.glsl"

layout(location = 8) in float inCoverage;
layout(location = 9) in float inDistance;

layout(location = 0) out vec4 outColor;

void main() {
    if (inGradientRange.z > 0.5 && (inDistance < inGradientRange.x || inDistance > inGradientRange.y)) discard;
    float c = clamp(inCoverage, 0.0, 1.0);
#ifdef CLIPPED
    c *= clipsCoverage();
#endif
    if (c <= 0.0) discard;
    outColor = inFillColor * c;
}
