// The body of rectShape[Clipped].frag (KIND 7): a shape layer's fill and stroke from the shape
// atlas (LaminaFrame's ShapeAtlas): texel r is the fill's coverage, g the stroke's, each the
// exact area coverage of the texel's pixel box (rasterized on the CPU by the coverage meshes'
// own computation, CoverageMesh.rasterize, at the layer's device scale). The quad is the
// entry's frame, whose outer texels are zero, so no edge coverage is needed; an unrotated
// layer at a whole-pixel offset samples texel centres (exact), others bilinearly. The stroke
// is drawn over the fill, as two items would blend. CLIPPED multiplies the clip chain.
#include "common.frag.glsl"

layout(set = 1, binding = 0) uniform sampler2D atlas;
layout(location = 0) out vec4 outColor;

void main() {
    vec2 t = textureLod(atlas, inLocal, 0.0).rg;
    vec4 stroke = inBorderColor * t.y;
    vec4 color = stroke + inFillColor * (t.x * (1.0 - stroke.a));
    emitColor(color, outColor);
}
