// The color of a gradient's stops at t (rect.frag's gradients, masked.frag): up to four stops
// (count n) in inFillColor, inBorderColor, inGradientColor2 and inGradientColor3 at the
// locations inGradientLocations, which the includer declares; linear between neighbours in
// sRGB-encoded, straight-alpha space; the end colors extend.
vec4 gradientColor(float t, int n) {
    vec4 L = inGradientLocations;
    if (n <= 1 || t <= L.x) return inFillColor;
    if (n == 2 || t <= L.y) return mix(inFillColor, inBorderColor, clamp((t - L.x) / max(L.y - L.x, 1e-6), 0.0, 1.0));
    if (n == 3 || t <= L.z) return mix(inBorderColor, inGradientColor2, clamp((t - L.y) / max(L.z - L.y, 1e-6), 0.0, 1.0));
    return mix(inGradientColor2, inGradientColor3, clamp((t - L.z) / max(L.w - L.z, 1e-6), 0.0, 1.0));
}
