#version 450
#extension GL_GOOGLE_include_directive : require
// A gradient masked by a shape (KIND 13 axial, 14 radial; LaminaFrame's
// `ImageDraw.Mode.maskedGradient`): a shape atlas entry's or frame page image's coverage quad,
// as piece.frag's KIND 7 draws it (inLocal the atlas position; the quad is the entry's frame,
// whose outer texels are zero), colored per pixel by the gradient instead of a flat color.
// The mask's alpha is the stroke's coverage over the fill's (texel g over r, as two items
// blend); inGradient is the gradient's own coordinate at the pixel (the vertex stage's affine
// map of the quad's local position: for an axial gradient x is t, for a radial one t is its
// length). The gradient layer's bounds are the item's clip (CLIPPED: the clip chain).
#define MASKED
#include "common.frag.glsl"

layout(location = 1) in vec2 inGradient;
layout(location = 8) flat in vec4 inGradientLocations;
layout(location = 9) flat in vec4 inGradientColor2;
layout(location = 11) flat in vec4 inGradientColor3;
layout(set = 1, binding = 0) uniform sampler2D image;
layout(location = 0) out vec4 outColor;

#include "gradient.glsl"

void main() {
    float t = KIND == 13 ? inGradient.x : length(inGradient);
    if (t < inGradientRange.z || t >= inGradientRange.w) discard;
    vec4 c = gradientColor(t, int(inGradientRange.x + 0.5));
    vec2 m = textureLod(image, inLocal, 0.0).rg;
    float a = m.y + m.x * (1.0 - m.y);
    emitColor(vec4(c.rgb * c.a, c.a) * a, outColor);
}
