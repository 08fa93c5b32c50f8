#version 450
// Blurred shadows' passes (shadow.frag): one instanced 4-vertex strip over the blurred area,
// from a `RectInstance` (see instance.vert.glsl); only what shadow.frag reads goes on: the
// premultiplied color with the opacity and the params (innermost clip index + 1 in w). The
// quad's instance is a sharp rect (an item at the identity, without radii or border): its
// bounds (a sharp rect's cover rect, beyond its stride) grown by half its margins (and a
// little), as quad() in instance.vert.glsl.
layout(location = 0) in vec4 inClipX;
layout(location = 1) in vec4 inClipY;
layout(location = 2) in vec4 inClipW;
layout(location = 3) in vec4 inBounds;
layout(location = 6) in vec4 inFillColor;
layout(location = 8) in vec4 inParams;

layout(location = 3) flat out vec4 outFillColor;
layout(location = 5) flat out vec4 outParams;

void main() {
    // Triangle strip corners: 0 (min,min), 1 (max,min), 2 (min,max), 3 (max,max).
    vec2 corner = vec2(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1));
    vec4 quad = inBounds + vec4(-inClipX.w, -inClipY.w, inClipX.w, inClipY.w) * (0.5 * 1.0001);
    vec3 p = vec3(mix(quad.xy, quad.zw, corner), 1.0);
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, dot(inClipW.xyz, p));
    outFillColor = inFillColor * inClipW.w;
    outParams = inParams;
}
