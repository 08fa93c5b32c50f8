// The body of rectImage[Clipped].frag (KIND 6): one piece of a layer's contents (or of any
// image item). The piece's rect (inGradientPoints) maps linearly onto its part of the image
// (inGradientLocations, unit square); the sampler (set 1) applies the item's minification and
// magnification filters, with the derivatives of that map (so pieces of a nine-slice choose
// their mip level from their own stretch). inParams.z: 0 = the image's premultiplied texels
// × inFillColor (opacity), 1 = texel.r as coverage × inFillColor (an A8 atlas). The frame's
// edges (inBounds) are anti-aliased; CLIPPED multiplies the clip chain.
#include "common.frag.glsl"

layout(location = 8) flat in vec4 inGradientLocations;
layout(set = 1, binding = 0) uniform sampler2D image;
layout(location = 0) out vec4 outColor;

void main() {
    vec2 dx = dFdx(inLocal);
    vec2 dy = dFdy(inLocal);
    vec4 piece = inGradientPoints;
    vec4 source = inGradientLocations;
    vec2 perLocal = (source.zw - source.xy) / max(piece.zw - piece.xy, vec2(1e-6));
    vec2 uv = source.xy + (inLocal - piece.xy) * perLocal;
    vec4 texel = textureGrad(image, uv, dx * perLocal, dy * perLocal);
    vec4 color = (inParams.z > 0.5 ? inFillColor * texel.r : texel * inFillColor)
        * coverage(inLocal, inBounds, vec4(0.0), dx, dy);
    emitColor(color, outColor);
}
