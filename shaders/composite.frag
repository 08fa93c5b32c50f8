#version 450
// Group opacity: the group's premultiplied pixels (rendered offscreen at target size) times
// the group's opacity, blended over the target (ONE, ONE_MINUS_SRC_ALPHA).
// MASK (CALayer.mask): the mask's composited alpha, which the pipeline's blend multiplies
// into the target (destination-in: ZERO, SRC_ALPHA); nothing is discarded, so where the mask
// is clear the target is cleared.
layout(set = 0, binding = 0) uniform sampler2D group;
layout(push_constant) uniform Composite { vec4 opacity; } composite;
layout(location = 0) out vec4 outColor;

void main() {
#ifdef MASK
    outColor = vec4(texelFetch(group, ivec2(gl_FragCoord.xy), 0).a);
#else
    vec4 c = texelFetch(group, ivec2(gl_FragCoord.xy), 0) * composite.opacity.x;
    if (c.a <= 0.0) discard;
    outColor = c;
#endif
}
