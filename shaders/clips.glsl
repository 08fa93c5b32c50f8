// The frame's clip buffer (ClipRecord in Sources/LaminaFrame/ClipRecord.swift; element i is
// DrawList.clips[i]), set 0 of the clipped pipelines: pixel → clip-local homography rows (h0.w =
// parent index + 1, 0 = none), the clip rect and its radii. Read by the fragment stage to walk
// a clip's ancestors, and, with CLIP_VARYINGS, by the vertex stage for the item's innermost
// clip, passed on flat as clipH0…clipRadii (common.frag.glsl says why and where): the includer
// defines CLIP_VARYING as `out` (vertex) or `in` (fragment).
struct ClipData {
    vec4 h0;
    vec4 h1;
    vec4 h2;
    vec4 rect;
    vec4 radii;
};
layout(std430, set = 0, binding = 0) readonly buffer Clips {
    ClipData clips[];
};

#ifdef CLIP_VARYINGS
#ifndef CLIP_H0_LOCATION
#define CLIP_H0_LOCATION 10
#endif
layout(location = CLIP_H0_LOCATION) flat CLIP_VARYING vec4 clipH0;
layout(location = 12) flat CLIP_VARYING vec4 clipH1;
layout(location = 13) flat CLIP_VARYING vec4 clipH2;
layout(location = 14) flat CLIP_VARYING vec4 clipRect;
layout(location = 15) flat CLIP_VARYING vec4 clipRadii;
#endif
