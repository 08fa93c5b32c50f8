"""openImageFile (docs/python.md, Images): a PNG file's descriptor for a tiled layer, against a
real laminad; and the named errors."""
import os
import struct
import tempfile
import time
import unittest
import zlib

from lamina import ErrorCode, RequestFailed

from support import DaemonTestCase, png_pixels, tiled_layer


def color(x, y):
    return (4 * x, 5 * y, 200)


def rgb_png(width, height):
    """An 8-bit RGB PNG of ``color`` (written here, not by the daemon's encoder)."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\0" + b"".join(bytes(color(x, y)) for x in range(width)) for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


class ImageFileTests(DaemonTestCase):
    def test_a_file_sent_by_descriptor_is_shown_by_a_tiled_layer(self):
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(rgb_png(40, 30))
            f.flush()
            image = self.conn.open_image_file(f.name, name="file")
        # The file is gone (unlinked) now; the daemon reads its own descriptor.
        self.assertEqual((image.width, image.height), (40, 30))
        tiled_layer(self.conn, "file", (10, 20, 40, 30), 16)
        self.conn.commit()
        deadline = time.monotonic() + 20
        points = ((0, 0), (39, 29), (17, 3), (25, 18))
        while True:
            _, _, rows = png_pixels(self.conn.capture().png)
            got = [tuple(rows[20 + y][(10 + x) * 4:(10 + x) * 4 + 3]) for x, y in points]
            if all(max(abs(a - b) for a, b in zip(g, color(x, y))) <= 2 for g, (x, y) in zip(got, points)):
                break
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.05)
        self.assertEqual(tuple(rows[5][5 * 4:5 * 4 + 3]), (0, 0, 0))

    def test_bad_descriptors_are_named_errors(self):
        r, w = os.pipe()
        try:
            with self.assertRaises(RequestFailed) as cm:
                self.conn.open_image_fd(r, "pipe")
            self.assertEqual(cm.exception.code, ErrorCode.INVALID_IMAGE)
            self.assertIn("not a regular file", str(cm.exception))
        finally:
            os.close(r)
            os.close(w)
        with tempfile.NamedTemporaryFile(suffix=".txt") as f:
            f.write(b"plain text, not a picture")
            f.flush()
            with self.assertRaises(RequestFailed) as cm:
                self.conn.open_image_file(f.name, name="text")
            self.assertEqual(cm.exception.code, ErrorCode.INVALID_IMAGE)
            self.assertIn("not a PNG", str(cm.exception))
        # Still serving: a good file works after the errors.
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(rgb_png(3, 2))
            f.flush()
            self.assertEqual(self.conn.open_image_file(f.name, name="good").height, 2)


if __name__ == "__main__":
    unittest.main()
