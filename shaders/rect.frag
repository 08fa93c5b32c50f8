#version 450
// Analytic rounded rectangle with an optional border, anti-aliased by coverage computed from
// the signed distance (in local units) converted to pixels.
// Output is premultiplied; the pipeline blends with ONE, ONE_MINUS_SRC_ALPHA in sRGB-encoded space.

layout(location = 0) in vec2 inLocal;
layout(location = 1) flat in vec4 inBounds;
layout(location = 2) flat in vec4 inRadii;
layout(location = 3) flat in vec4 inFillColor;
layout(location = 4) flat in vec4 inBorderColor;
layout(location = 5) flat in vec4 inParams;

layout(location = 0) out vec4 outColor;

// Signed distance from p to a rounded rect (negative inside) and its gradient `normal`
// (unit length, in local units). Radii per corner, y-down: x = minXMinY, y = maxXMinY,
// z = minXMaxY, w = maxXMaxY. Each radius must not exceed the smaller half extent (the CPU
// clamps), so the quadrant picks the right corner.
float roundedRectDistance(vec2 p, vec4 rect, vec4 radii, out vec2 normal) {
    vec2 center = 0.5 * (rect.xy + rect.zw);
    vec2 halfSize = 0.5 * (rect.zw - rect.xy);
    vec2 q = p - center;
    vec2 side = vec2(q.x < 0.0 ? -1.0 : 1.0, q.y < 0.0 ? -1.0 : 1.0);
    float r = q.x < 0.0 ? (q.y < 0.0 ? radii.x : radii.z) : (q.y < 0.0 ? radii.y : radii.w);
    vec2 d = abs(q) - halfSize + r;
    if (d.x > 0.0 && d.y > 0.0) {
        normal = normalize(d) * side;
    } else {
        normal = d.x > d.y ? vec2(side.x, 0.0) : vec2(0.0, side.y);
    }
    return min(max(d.x, d.y), 0.0) + length(max(d, 0.0)) - r;
}

// Coverage of the pixel by a rounded rect: a 1-pixel-wide ramp centred on the edge. The
// local distance becomes pixels through the distance's screen-space gradient, taken
// analytically from its local gradient and the derivatives of the local position
// (`localPerPixelX/Y`), which stay exact where the distance itself bends (tiny shapes, corners).
float coverage(vec2 p, vec4 rect, vec4 radii, vec2 localPerPixelX, vec2 localPerPixelY) {
    vec2 normal;
    float d = roundedRectDistance(p, rect, radii, normal);
    float localPerPixel = length(vec2(dot(normal, localPerPixelX), dot(normal, localPerPixelY)));
    return clamp(0.5 - d / max(localPerPixel, 1e-6), 0.0, 1.0);
}

void main() {
    float borderWidth = inParams.x;
    // Derivatives in uniform control flow, before any branch.
    vec2 dx = dFdx(inLocal);
    vec2 dy = dFdy(inLocal);
    float outer = coverage(inLocal, inBounds, inRadii, dx, dy);
    vec4 color = inFillColor * outer;
    if (borderWidth > 0.0) {
        vec4 innerRect = inBounds + vec4(borderWidth, borderWidth, -borderWidth, -borderWidth);
        float inner = 0.0;
        if (innerRect.z > innerRect.x && innerRect.w > innerRect.y) {
            vec4 innerRadii = max(inRadii - borderWidth, vec4(0.0));
            inner = coverage(inLocal, innerRect, innerRadii, dx, dy);
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
