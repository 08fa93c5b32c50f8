"""The image part of scripts/gen-references (see its docstring): source images by formula,
the decoder tests' PNG / WebP / JPEG files, and the image-contents scenes drawn by cairo.
Imported by scripts/gen-references; standard library and python3-cairo only."""
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


IMAGE_SCENES = []
