#version 450
// Analytic rectangles: one instanced 4-vertex strip per DrawItem.
// Instance layout mirrors `RectInstance` in Sources/LaminaRender/RectInstance.swift
// (checked by RectInstanceLayoutTests). Each attribute is a vec4 at consecutive locations.

// Local (bounds) coordinates → clip space, as three rows of coefficients applied to
// (x, y, 1): clip.x, clip.y and clip.w. Device-pixel scaling, y-down, and the CATransform3D
// row-vector convention are folded in on the CPU; perspective stays in w so the GPU divides.
layout(location = 0) in vec4 inClipX;
layout(location = 1) in vec4 inClipY;
layout(location = 2) in vec4 inClipW;
layout(location = 3) in vec4 inBounds;      // local minX, minY, maxX, maxY
layout(location = 4) in vec4 inQuad;        // local quad to rasterize (bounds + AA margin)
layout(location = 5) in vec4 inRadii;       // minXMinY, maxXMinY, minXMaxY, maxXMaxY
layout(location = 6) in vec4 inFillColor;   // premultiplied, opacity applied
layout(location = 7) in vec4 inBorderColor; // premultiplied, opacity applied
layout(location = 8) in vec4 inParams;      // x: border width (local units), yzw: reserved

layout(location = 0) out vec2 outLocal;
layout(location = 1) flat out vec4 outBounds;
layout(location = 2) flat out vec4 outRadii;
layout(location = 3) flat out vec4 outFillColor;
layout(location = 4) flat out vec4 outBorderColor;
layout(location = 5) flat out vec4 outParams;

void main() {
    // Triangle strip corners: 0 (min,min), 1 (max,min), 2 (min,max), 3 (max,max).
    vec2 corner = vec2(float(gl_VertexIndex & 1), float((gl_VertexIndex >> 1) & 1));
    vec2 local = mix(inQuad.xy, inQuad.zw, corner);
    vec3 p = vec3(local, 1.0);
    float w = dot(inClipW.xyz, p);
    // z = 0 keeps every point with w > 0 inside the depth range and clips w <= 0 (behind the eye).
    gl_Position = vec4(dot(inClipX.xyz, p), dot(inClipY.xyz, p), 0.0, w);
    outLocal = local;
    outBounds = inBounds;
    outRadii = inRadii;
    outFillColor = inFillColor;
    outBorderColor = inBorderColor;
    outParams = inParams;
}
