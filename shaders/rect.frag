#version 450
// Analytic rounded rectangle with an optional border, anti-aliased by coverage computed from
// the signed distance (in local units) and its screen-space gradient.
// Output is premultiplied; the pipeline blends with ONE, ONE_MINUS_SRC_ALPHA in sRGB-encoded space.

layout(location = 0) in vec2 inLocal;
layout(location = 1) flat in vec4 inBounds;
layout(location = 2) flat in vec4 inRadii;
layout(location = 3) flat in vec4 inFillColor;
layout(location = 4) flat in vec4 inBorderColor;
layout(location = 5) flat in vec4 inParams;

layout(location = 0) out vec4 outColor;

// Signed distance from p to a rounded rect (negative inside). Radii per corner, y-down:
// x = minXMinY, y = maxXMinY, z = minXMaxY, w = maxXMaxY. Each radius must not exceed
// the smaller half extent (the CPU clamps), so the quadrant picks the right corner.
float roundedRectDistance(vec2 p, vec4 rect, vec4 radii) {
    vec2 center = 0.5 * (rect.xy + rect.zw);
    vec2 halfSize = 0.5 * (rect.zw - rect.xy);
    vec2 q = p - center;
    float r = q.x < 0.0 ? (q.y < 0.0 ? radii.x : radii.z) : (q.y < 0.0 ? radii.y : radii.w);
    vec2 d = abs(q) - halfSize + r;
    return min(max(d.x, d.y), 0.0) + length(max(d, 0.0)) - r;
}

// Coverage of a pixel by the shape whose signed distance is d: a 1-pixel-wide ramp centred
// on the edge, with d converted from local units to pixels by its screen-space gradient.
float coverage(float d) {
    float pixels = length(vec2(dFdx(d), dFdy(d)));
    return clamp(0.5 - d / max(pixels, 1e-6), 0.0, 1.0);
}

void main() {
    float borderWidth = inParams.x;
    float outer = coverage(roundedRectDistance(inLocal, inBounds, inRadii));
    vec4 color = inFillColor * outer;
    if (borderWidth > 0.0) {
        vec4 innerRect = inBounds + vec4(borderWidth, borderWidth, -borderWidth, -borderWidth);
        float inner = 0.0;
        if (innerRect.z > innerRect.x && innerRect.w > innerRect.y) {
            vec4 innerRadii = max(inRadii - borderWidth, vec4(0.0));
            inner = coverage(roundedRectDistance(inLocal, innerRect, innerRadii));
        }
        float ring = max(outer - inner, 0.0);
        // The border is drawn over the background, as Core Animation does.
        vec4 border = inBorderColor * ring;
        color = border + color * (1.0 - border.a);
    }
    if (color.a <= 0.0) {
        discard;
    }
    outColor = color;
}
