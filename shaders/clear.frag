#version 450
// A pass's clear drawn (PassRecorder): transparent black over the scissor; the pipeline blends
// nothing and writes stencil 0. On lavapipe a render pass's clear of less than its whole image
// maps the image on the submitting thread (waiting for the rasterizer) and fills it there; a
// draw is binned and filled by the rasterizer threads like any other.
layout(location = 0) out vec4 outColor;

void main() {
    outColor = vec4(0.0);
}
