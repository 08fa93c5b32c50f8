"""The image part of scripts/gen-references (see its docstring): source images by formula,
the decoder tests' PNG / WebP / JPEG files, and the image-contents scenes drawn by cairo.
Imported by scripts/gen-references; standard library and python3-cairo only."""
import math
import os
import struct
import subprocess
import zlib


def write_png(path, w, h, pixel):
    """An 8-bit RGBA PNG whose pixel (x, y) is `pixel(x, y)` = (r, g, b, a), straight alpha."""
    raw = bytearray()
    for y in range(h):
        raw.append(0)  # filter: none
        for x in range(w):
            raw.extend(pixel(x, y))

    def chunk(kind, data):
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body) & 0xFFFFFFFF)
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 6, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b"")
    with open(path, "wb") as f:
        f.write(png)
    print("wrote", path)


# The decoder tests' pattern (LaminaImageTests computes the same formula): smooth ramps, so
# that JPEG stays close; alpha from 0 (top left) to 255.
PATTERN_W, PATTERN_H = 23, 17


def pattern(x, y, opaque=False):
    return (x * 11, y * 15, (x + y) * 6, 255 if opaque else min(255, (x + y) * 7))


def decoder_images(directory):
    """pattern.png (exact), pattern.webp (lossless, RGB kept under alpha 0: cwebp -exact),
    pattern.jpg (opaque pattern, quality 95, no chroma subsampling)."""
    os.makedirs(directory, exist_ok=True)
    png = os.path.join(directory, "pattern.png")
    write_png(png, PATTERN_W, PATTERN_H, pattern)
    subprocess.run(["cwebp", "-quiet", "-lossless", "-exact", png, "-o", os.path.join(directory, "pattern.webp")],
                   check=True)
    print("wrote", os.path.join(directory, "pattern.webp"))
    ppm = os.path.join(directory, "pattern-opaque.ppm")
    with open(ppm, "wb") as f:
        f.write(b"P6 %d %d 255\n" % (PATTERN_W, PATTERN_H))
        for y in range(PATTERN_H):
            for x in range(PATTERN_W):
                f.write(bytes(pattern(x, y, opaque=True)[:3]))
    with open(os.path.join(directory, "pattern.jpg"), "wb") as out:
        subprocess.run(["cjpeg", "-quality", "95", "-sample", "1x1", ppm], stdout=out, check=True)
    os.remove(ppm)
    print("wrote", os.path.join(directory, "pattern.jpg"))


# MARK: - Image contents scenes (Tests/LaminaRenderTests/ImageGoldenTests.swift: same names and
# descriptions; keep the two in step). Canvas white; a layer's frame (x, y, w, h) in points.

def grid_pixel(x, y):
    """image-source-grid.png, 8 × 6: every pixel its own color, the last column half transparent."""
    return (x * 32 + 16, y * 40 + 20, 30 + 200 * ((x + y) % 2), 255 if x < 7 else 128)


def frame_pixel(x, y):
    """image-source-frame.png, 12 × 12: 3-pixel red corners, blue edges, a translucent yellow middle."""
    edge_x, edge_y = x < 3 or x >= 9, y < 3 or y >= 9
    if edge_x and edge_y:
        return (220, 40, 40, 255)
    if edge_x or edge_y:
        return (40, 60, 200, 255)
    return (250, 230, 120, 200)


GRAY = (0.85, 0.85, 0.85)


def place(w, h, b, gravity):
    """Core Animation's placement of natural size (w, h) in bounds b = (x, y, bw, bh); y down,
    `top` the visual top."""
    bx, by, bw, bh = b
    if gravity == "resize":
        return b
    if gravity in ("resizeAspect", "resizeAspectFill"):
        s = (min if gravity == "resizeAspect" else max)(bw / w, bh / h)
        return (bx + bw / 2 - w * s / 2, by + bh / 2 - h * s / 2, w * s, h * s)
    x = bx if "left" in gravity.lower() else bx + bw - w if "right" in gravity.lower() else bx + bw / 2 - w / 2
    y = by if gravity.startswith("top") else by + bh - h if gravity.startswith("bottom") else by + bh / 2 - h / 2
    return (x, y, w, h)


def axis_cuts(lo, hi, c0, c1, s0, ssize, pixels, scale):
    """Nine-slice cuts along one axis: destination and source (unit) positions."""
    before, after = c0 * ssize * pixels / scale, (1 - c1) * ssize * pixels / scale
    if before + after > hi - lo:
        k = (hi - lo) / (before + after)
        before, after = before * k, after * k
    return [lo, lo + before, hi - after, hi], [s0, s0 + c0 * ssize, s0 + c1 * ssize, s0 + ssize]


def draw_contents(cr, surface, bounds, gravity="resize", rect=(0, 0, 1, 1), center=(0, 0, 1, 1), scale=1,
                  nearest=False, opacity=1, clip=None):
    """The layer's contents as cairo draws an image: each piece maps its destination rect onto
    its part of the image (pad extend: edge pixels continue), bilinear or nearest."""
    import cairo
    iw, ih = surface.get_width(), surface.get_height()
    frame = place(iw * rect[2] / scale, ih * rect[3] / scale, bounds, gravity)
    fx, fy, fw, fh = frame
    xs, us = axis_cuts(fx, fx + fw, center[0], center[0] + center[2], rect[0], rect[2], iw, scale)
    ys, vs = axis_cuts(fy, fy + fh, center[1], center[1] + center[3], rect[1], rect[3], ih, scale)
    for j in range(3):
        for i in range(3):
            x0, x1, y0, y1 = xs[i], xs[i + 1], ys[j], ys[j + 1]
            if x1 <= x0 or y1 <= y0:
                continue
            cr.save()
            if clip:
                clip(cr)
                cr.clip()
            cr.rectangle(x0, y0, x1 - x0, y1 - y0)
            cr.clip()
            pattern = cairo.SurfacePattern(surface)
            pattern.set_extend(cairo.EXTEND_PAD)
            pattern.set_filter(cairo.FILTER_NEAREST if nearest else cairo.FILTER_BILINEAR)
            # User space (points) → pattern space (pixels): linear from the piece onto its source.
            ax = (us[i + 1] - us[i]) * iw / (x1 - x0)
            ay = (vs[j + 1] - vs[j]) * ih / (y1 - y0)
            pattern.set_matrix(cairo.Matrix(xx=ax, yy=ay, x0=us[i] * iw - ax * x0, y0=vs[j] * ih - ay * y0))
            cr.set_source(pattern)
            cr.paint_with_alpha(opacity)
            cr.restore()


def source(out, save_png, name, w, h, pixel):
    import cairo
    path = os.path.join(out, name + ".png")
    write_png(path, w, h, pixel)
    save_png.written(name)
    return cairo.ImageSurface.create_from_png(path)


GRAVITIES = ["center", "top", "bottom", "left", "right", "topLeft", "topRight", "bottomLeft", "bottomRight",
             "resize", "resizeAspect", "resizeAspectFill"]


def image_gravity(out, save):
    # 12 layers in 4 columns × 3 rows, layer k at (2 + 44 (k % 4), 2 + 24 (k / 4), 40, 20), gray
    # background, contents the 8 × 6 grid with gravity GRAVITIES[k] (linear); the
    # resizeAspectFill layer has masksToBounds (its 40 × 30 contents clipped to its bounds).
    from importlib import import_module
    refs = import_module("__main__")
    grid = source(out, save, "image-source-grid", 8, 6, grid_pixel)
    surface, cr = refs.canvas(176, 72)
    for k, gravity in enumerate(GRAVITIES):
        b = (2 + 44 * (k % 4), 2 + 24 * (k // 4), 40, 20)
        cr.set_source_rgb(*GRAY)
        cr.rectangle(*b)
        cr.fill()
        clip = (lambda c, b=b: c.rectangle(*b)) if gravity == "resizeAspectFill" else None
        draw_contents(cr, grid, b, gravity=gravity, clip=clip)
    save(surface, "image-gravity")


def image_rect_filter(out, save):
    # Layer A (4, 4, 64, 48): contentsRect (0.25, 0, 0.5, 0.5) of the grid (4 × 3 pixels)
    # stretched (resize), magnificationFilter nearest. Layer B (72, 4, 60, 48): the whole grid
    # stretched, linear, opacity 0.5, cornerRadius 8 with masksToBounds (the contents clipped
    # to the rounded bounds).
    from importlib import import_module
    refs = import_module("__main__")
    grid = source(out, save, "image-source-grid", 8, 6, grid_pixel)
    surface, cr = refs.canvas(136, 56)
    draw_contents(cr, grid, (4, 4, 64, 48), rect=(0.25, 0, 0.5, 0.5), nearest=True)
    draw_contents(cr, grid, (72, 4, 60, 48), opacity=0.5,
                  clip=lambda c: refs.rounded_rect(c, 72, 4, 60, 48, 8))
    save(surface, "image-rect-filter")


def image_nine_slice(out, save):
    # The 12 × 12 frame image, contentsCenter (0.25, 0.25, 0.5, 0.5). Layer A (4, 4, 64, 40),
    # nearest: 3 × 3 corners. Layer B (76, 4, 40, 56), contentsScale 2 (1.5-point corners), linear.
    from importlib import import_module
    refs = import_module("__main__")
    frame = source(out, save, "image-source-frame", 12, 12, frame_pixel)
    surface, cr = refs.canvas(120, 64)
    center = (0.25, 0.25, 0.5, 0.5)
    draw_contents(cr, frame, (4, 4, 64, 40), center=center, nearest=True)
    draw_contents(cr, frame, (76, 4, 40, 56), center=center, scale=2)
    save(surface, "image-nine-slice")


def image_cropped(out, save):
    # Contents cut by a square masksToBounds (no corner radius), under rotations. Gray
    # background per layer. A (8, 12, 48, 32) rotated 20° about its centre: the 8 × 6 grid
    # resizeAspectFill (48 × 36, 2 points over the top and the bottom). B (68, 12, 40, 40)
    # rotated -15°: the 12 × 12 frame, contentsCenter (0.25, 0.25, 0.5, 0.5), contentsScale 0.25,
    # topLeft (48 × 48 with 12-point corners: the right and bottom corners cut at 40). C (116, 4,
    # 40, 52), unrotated: the grid's contentsRect (0.25, 0, 0.5, 1), contentsScale 0.1,
    # bottomRight (40 × 60: 8 points over the top); nearest.
    from importlib import import_module
    refs = import_module("__main__")
    grid = source(out, save, "image-source-grid", 8, 6, grid_pixel)
    frame = source(out, save, "image-source-frame", 12, 12, frame_pixel)
    surface, cr = refs.canvas(160, 64)
    layers = [((8, 12, 48, 32), 20, grid, dict(gravity="resizeAspectFill")),
              ((68, 12, 40, 40), -15, frame, dict(gravity="topLeft", center=(0.25, 0.25, 0.5, 0.5), scale=0.25)),
              ((116, 4, 40, 52), 0, grid, dict(gravity="bottomRight", rect=(0.25, 0, 0.5, 1), scale=0.1,
                                               nearest=True))]
    for (x, y, w, h), degrees, image, options in layers:
        cr.save()
        cr.translate(x + w / 2, y + h / 2)
        cr.rotate(math.radians(degrees))
        cr.translate(-w / 2, -h / 2)
        cr.set_source_rgb(*GRAY)
        cr.rectangle(0, 0, w, h)
        cr.fill()
        draw_contents(cr, image, (0, 0, w, h), clip=lambda c, w=w, h=h: c.rectangle(0, 0, w, h), **options)
        cr.restore()
    save(surface, "image-cropped")


def warm_pixel(x, y):
    """image-source-warm.png, 10 × 10: opaque, red 255 with green and blue rising along x and y."""
    return (255, 20 * x + 10, 20 * y + 10, 255)


def cool_pixel(x, y):
    """image-source-cool.png, 10 × 10: opaque, red 0, green rising along y, blue falling along x."""
    return (0, 25 * y, 250 - 20 * x, 255)


def image_atlas(out, save):
    # Two small images that Lamina packs side by side in its small-image atlas (warm first, then
    # cool to its right: every edge of each has a contrasting neighbour or empty texels), drawn
    # so that filtering reaches their edge texels. White canvas 208 × 112, no backgrounds.
    # 1 (4, 4, 60, 60): warm, resize, linear (magnified 6×). 2 (68, 4, 60, 60): cool, resize,
    # nearest both ways. 3 (132, 4, 6, 6): warm, resize, linear (minified 10 → 6). 4 (132, 14,
    # 30, 30): warm's contentsRect (0.6, 0.2, 0.4, 0.6), resize, linear (its right edge is the
    # image's). 5 (166, 14, 30, 30): cool, gravity center, contentsScale 0.5 (20 × 20), linear.
    # 6 (8, 74, 48, 32) rotated 20° about its centre: warm, resize, linear. 7 (80, 74, 40, 30)
    # rotated -15°: cool, resizeAspect (30 × 30), nearest both ways.
    from importlib import import_module
    refs = import_module("__main__")
    warm = source(out, save, "image-source-warm", 10, 10, warm_pixel)
    cool = source(out, save, "image-source-cool", 10, 10, cool_pixel)
    surface, cr = refs.canvas(208, 112)
    layers = [((4, 4, 60, 60), 0, warm, {}),
              ((68, 4, 60, 60), 0, cool, dict(nearest=True)),
              ((132, 4, 6, 6), 0, warm, {}),
              ((132, 14, 30, 30), 0, warm, dict(rect=(0.6, 0.2, 0.4, 0.6))),
              ((166, 14, 30, 30), 0, cool, dict(gravity="center", scale=0.5)),
              ((8, 74, 48, 32), 20, warm, {}),
              ((80, 74, 40, 30), -15, cool, dict(gravity="resizeAspect", nearest=True))]
    for (x, y, w, h), degrees, image, options in layers:
        cr.save()
        cr.translate(x + w / 2, y + h / 2)
        cr.rotate(math.radians(degrees))
        cr.translate(-w / 2, -h / 2)
        draw_contents(cr, image, (0, 0, w, h), **options)
        cr.restore()
    save(surface, "image-atlas")


IMAGE_SCENES = [image_gravity, image_rect_filter, image_nine_slice, image_cropped, image_atlas]
