#version 450
// Group opacity: the group's premultiplied pixels (rendered offscreen at target size) times
// the group's opacity, blended over the target (ONE, ONE_MINUS_SRC_ALPHA).
// MASK (CALayer.mask): the mask's composited alpha, which the pipeline's blend multiplies
// into the target (destination-in: ZERO, SRC_ALPHA); nothing is discarded, so where the mask
// is clear the target is cleared.
// COLOR_MATRIX (CALayer.filters' color filters): the group's pixels unpremultiplied, through a
// 4×5 matrix (rows r, g, b, a and the offsets), clamped to [0, 1], premultiplied again, times
// the opacity, blended over the target as the composite.
layout(set = 0, binding = 0) uniform sampler2D group;
#ifdef COLOR_MATRIX
layout(push_constant) uniform Filter { vec4 opacity; vec4 r; vec4 g; vec4 b; vec4 a; vec4 offset; } composite;
#else
layout(push_constant) uniform Composite { vec4 opacity; } composite;
#endif
layout(location = 0) out vec4 outColor;

void main() {
#if defined(COLOR_MATRIX)
    vec4 p = texelFetch(group, ivec2(gl_FragCoord.xy), 0);
    vec4 c = p.a > 0.0 ? vec4(p.rgb / p.a, p.a) : vec4(0.0);
    vec4 f = clamp(vec4(dot(composite.r, c), dot(composite.g, c), dot(composite.b, c), dot(composite.a, c))
                   + composite.offset, 0.0, 1.0);
    vec4 o = vec4(f.rgb * f.a, f.a) * composite.opacity.x;
    if (o.a <= 0.0) discard;
    outColor = o;
#elif defined(MASK)
    outColor = vec4(texelFetch(group, ivec2(gl_FragCoord.xy), 0).a);
#else
    vec4 c = texelFetch(group, ivec2(gl_FragCoord.xy), 0) * composite.opacity.x;
    if (c.a <= 0.0) discard;
    outColor = c;
#endif
}
