#version 450
// CALayer.compositingFilter: a blend group's premultiplied pixels (set 0) times the opacity,
// blended over its backdrop (set 1: what the pass drew before it) and written in place of the
// pass's pixels (no fixed-function blending). The W3C Compositing and Blending Level 1 modes
// on unpremultiplied sRGB-encoded colors with source-over compositing:
//   co = cs (1 − αb) + cb (1 − αs) + αs αb B(Cb, Cs),  αo = αs + αb (1 − αs);
// plusLighter and plusDarker on premultiplied values (VK_BLEND_OP_PLUS_LIGHTER/DARKER_EXT):
//   αo = min(1, αs + αb); co = min(1, cs + cb) / max(0, αo − ((αs − cs) + (αb − cb))).
// The mode numbers are LaminaModel's BlendMode.index.
layout(set = 0, binding = 0) uniform sampler2D source;
layout(set = 1, binding = 0) uniform sampler2D backdrop;
layout(push_constant) uniform Blend { vec4 params; } blend;   // x: opacity, y: mode
layout(location = 0) out vec4 outColor;

float lum(vec3 c) { return dot(c, vec3(0.3, 0.59, 0.11)); }

vec3 clipColor(vec3 c) {
    float l = lum(c);
    float n = min(c.r, min(c.g, c.b));
    float x = max(c.r, max(c.g, c.b));
    if (n < 0.0) c = l + (c - l) * l / (l - n);
    if (x > 1.0) c = l + (c - l) * (1.0 - l) / (x - l);
    return c;
}

vec3 setLum(vec3 c, float l) { return clipColor(c + (l - lum(c))); }

float sat(vec3 c) { return max(c.r, max(c.g, c.b)) - min(c.r, min(c.g, c.b)); }

vec3 setSat(vec3 c, float s) {
    float mx = max(c.r, max(c.g, c.b));
    float mn = min(c.r, min(c.g, c.b));
    // Cmid scaled, Cmax = s, Cmin = 0 (each channel by its rank; equal channels share one).
    if (mx <= mn) return vec3(0.0);
    return (c - mn) * s / (mx - mn);
}

float colorDodge(float b, float s) {
    if (b <= 0.0) return 0.0;
    if (s >= 1.0) return 1.0;
    return min(1.0, b / (1.0 - s));
}

float colorBurn(float b, float s) {
    if (b >= 1.0) return 1.0;
    if (s <= 0.0) return 0.0;
    return 1.0 - min(1.0, (1.0 - b) / s);
}

float hardLight(float b, float s) {
    return s <= 0.5 ? b * 2.0 * s : b + (2.0 * s - 1.0) - b * (2.0 * s - 1.0);
}

float softLight(float b, float s) {
    if (s <= 0.5) return b - (1.0 - 2.0 * s) * b * (1.0 - b);
    float d = b <= 0.25 ? ((16.0 * b - 12.0) * b + 4.0) * b : sqrt(b);
    return b + (2.0 * s - 1.0) * (d - b);
}

vec3 separable(int mode, vec3 b, vec3 s) {
    vec3 r;
    for (int i = 0; i < 3; i++) {
        float cb = b[i], cs = s[i], v;
        switch (mode) {
        case 1: v = cb * cs; break;
        case 2: v = cb + cs - cb * cs; break;
        case 3: v = hardLight(cs, cb); break;          // overlay: hard light with the roles swapped
        case 4: v = min(cb, cs); break;
        case 5: v = max(cb, cs); break;
        case 6: v = colorDodge(cb, cs); break;
        case 7: v = colorBurn(cb, cs); break;
        case 8: v = softLight(cb, cs); break;
        case 9: v = hardLight(cb, cs); break;
        case 10: v = abs(cb - cs); break;
        case 11: v = cb + cs - 2.0 * cb * cs; break;
        default: v = cs; break;
        }
        r[i] = v;
    }
    return r;
}

void main() {
    ivec2 p = ivec2(gl_FragCoord.xy);
    vec4 s = texelFetch(source, p, 0) * blend.params.x;
    vec4 b = texelFetch(backdrop, p, 0);
    int mode = int(blend.params.y + 0.5);
    if (mode == 16 || mode == 17) {
        float a = min(1.0, s.a + b.a);
        vec3 c = mode == 16 ? min(vec3(1.0), s.rgb + b.rgb)
                            : max(vec3(0.0), a - ((s.a - s.rgb) + (b.a - b.rgb)));
        outColor = vec4(c, a);
        return;
    }
    vec3 cs = s.a > 0.0 ? clamp(s.rgb / s.a, 0.0, 1.0) : vec3(0.0);
    vec3 cb = b.a > 0.0 ? clamp(b.rgb / b.a, 0.0, 1.0) : vec3(0.0);
    vec3 mixed;
    if (mode == 12) mixed = setLum(setSat(cs, sat(cb)), lum(cb));
    else if (mode == 13) mixed = setLum(setSat(cb, sat(cs)), lum(cb));
    else if (mode == 14) mixed = setLum(cs, lum(cb));
    else if (mode == 15) mixed = setLum(cb, lum(cs));
    else mixed = separable(mode, cb, cs);
    float a = s.a + b.a * (1.0 - s.a);
    vec3 c = s.rgb * (1.0 - b.a) + b.rgb * (1.0 - s.a) + s.a * b.a * clamp(mixed, 0.0, 1.0);
    outColor = vec4(c, a);
}
