#version 450
#extension GL_GOOGLE_include_directive : require
// Meshes (CLIPPED defined: multiplied by the item's clip chain).
// Shapes: color × the exact fraction of the pixel inside the region, from the coverage mesh's
// tiles (Sources/LaminaGeometry/CoverageMesh.swift, whose `coverage(of:…)` is this computation
// in Swift): the pixel's footprint in local units is a box (from the derivatives of the local
// position, the pixel's area kept), and the winding number is integrated over it exactly —
// the tile's backdrop plus, per edge, the signed area of the box to the edge's right.
#include "common.frag.glsl"

layout(location = 8) flat in uint inMeshBase;
layout(location = 9) in vec2 inMeshLocal;

layout(location = 0) out vec4 outColor;

// The mesh arena (MeshArena): every mesh's 16-byte records.
layout(std430, set = 1, binding = 0) readonly buffer MeshRecords {
    uvec4 meshRecords[];
};

// ∫ clamp(u, 0, w) du from 0.
float clampIntegral(float u, float w) {
    return u <= 0.0 ? 0.0 : (u <= w ? 0.5 * u * u : w * (u - 0.5 * w));
}

// ± ∫ (box right − clamp(x(y), box)) dy over the edge's part within the box's rows; the edge
// counts +1 running down (y0 < y1), −1 up.
float edgeArea(vec4 e, float bx0, float by0, float by1, float w) {
    float s = 1.0;
    if (e.y > e.w) { e = e.zwxy; s = -1.0; }
    float ya = max(e.y, by0), yb = min(e.w, by1);
    if (yb <= ya) return 0.0;
    float k = (e.z - e.x) / (e.w - e.y);
    float u0 = e.x + (ya - e.y) * k - bx0, u1 = e.x + (yb - e.y) * k - bx0;
    float du = u1 - u0;
    float mean = abs(du) < 1e-3 * w ? clamp(0.5 * (u0 + u1), 0.0, w)
                                     : (clampIntegral(u1, w) - clampIntegral(u0, w)) / du;
    return s * (yb - ya) * (w - mean);
}

float meshCoverage(vec2 p, vec2 footprint) {
    uint base = inMeshBase + 4u;
    vec4 grid = uintBitsToFloat(meshRecords[base]);  // origin, tile size, margin
    uvec2 size = meshRecords[base + 1u].xy;           // columns, rows
    vec2 t = floor((p - grid.xy) / grid.z);
    if (t.x < 0.0 || t.y < 0.0 || t.x >= float(size.x) || t.y >= float(size.y)) return 0.0;
    uvec4 tile = meshRecords[base + 2u + uint(t.y) * size.x + uint(t.x)];
    float backdrop = float(int(tile.x));
    if (tile.z == 0u) return clamp(backdrop, 0.0, 1.0);
    vec2 box = min(footprint, vec2(2.0 * grid.w));
    float acc = backdrop * box.x * box.y;
    float bx0 = p.x - 0.5 * box.x, by0 = p.y - 0.5 * box.y, by1 = p.y + 0.5 * box.y;
    uint first = inMeshBase + tile.y;
    for (uint i = 0u; i < tile.z; i++) {
        acc += edgeArea(uintBitsToFloat(meshRecords[first + i]), bx0, by0, by1, box.x);
    }
    return clamp(acc / (box.x * box.y), 0.0, 1.0);
}

void main() {
    // The pixel's footprint in local units: the box spanned by the derivatives along each
    // axis, scaled to the pixel's area (exact for scales and translations; a rotated pixel
    // becomes an axis-aligned box of the same area).
    vec2 dx = dFdx(inMeshLocal), dy = dFdy(inMeshLocal);
    vec2 span = abs(dx) + abs(dy);
    float area = abs(dx.x * dy.y - dx.y * dy.x);
    vec2 footprint = span * sqrt(area / max(span.x * span.y, 1e-30));
    float c = meshCoverage(inMeshLocal, max(footprint, vec2(1e-6)));
#ifdef CLIPPED
    if (c > 0.0) c *= clipsCoverage();
#endif
    if (c <= 0.0) discard;
    outColor = inFillColor * c;
}
