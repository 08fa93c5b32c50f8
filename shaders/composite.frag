#version 450
// Group opacity: the group's premultiplied pixels (rendered offscreen at target size) times
// the group's opacity, blended over the target (ONE, ONE_MINUS_SRC_ALPHA).
layout(set = 0, binding = 0) uniform sampler2D group;
layout(push_constant) uniform Composite { vec4 opacity; } composite;
layout(location = 0) out vec4 outColor;

void main() {
    vec4 c = texelFetch(group, ivec2(gl_FragCoord.xy), 0) * composite.opacity.x;
    if (c.a <= 0.0) discard;
    outColor = c;
}
