"""Surface layers (docs/python.md, Surfaces) against a real laminad: a buffer ring in a memfd,
pixels drawn here and read back by capture, damage, releases and frame callbacks."""
import threading
import unittest

import lamina
from lamina import ErrorCode, RequestFailed

from support import DaemonTestCase, png_pixels


def pattern(x, y, seed):
    """Opaque premultiplied R, G, B of pixel (x, y) of pattern ``seed``."""
    return ((x * 31 + seed * 40) % 256, (y * 17 + seed * 90) % 256, (x * y + seed) % 256)


def draw(buffer, seed, rect=None):
    x0, y0, w, h = rect or (0, 0, buffer.width, buffer.height)
    for y in range(y0, y0 + h):
        row = bytearray()
        for x in range(x0, x0 + w):
            r, g, b = pattern(x, y, seed)
            row += bytes((b, g, r, 255)) if buffer.format == lamina.BGRA8 else bytes((r, g, b, 255))
        at = y * buffer.stride + x0 * 4
        buffer.memory[at:at + len(row)] = row


class SurfaceTests(DaemonTestCase):
    def test_a_surface_shows_its_buffers_pixels_and_damage(self):
        layer = self.conn.make_surface_layer()
        self.assertIsInstance(layer, lamina.SurfaceLayer)
        layer.frame = (10, 20, 24, 16)
        self.conn.root.add_sublayer(layer)
        buffers = layer.make_buffers(24, 16, fmt=lamina.BGRA8, count=2)
        self.assertEqual([(b.width, b.height, b.stride) for b in buffers], [(24, 16, 96)] * 2)
        frames = []
        done = threading.Event()
        layer.on_frame = lambda t, target: (frames.append((t, target)), done.set())
        a = layer.next_buffer()
        draw(a, 1)
        layer.present(a)
        self.assertTrue(a.busy)
        self.conn.commit()
        self.assertTrue(done.wait(5))
        self.assertGreater(frames[0][1], frames[0][0])
        _, _, rows = png_pixels(self.conn.capture().png)
        for x, y in ((0, 0), (23, 15), (7, 9)):
            self.assertEqual(tuple(rows[20 + y][(10 + x) * 4:(10 + x) * 4 + 3]), pattern(x, y, 1), (x, y))
        self.assertEqual(tuple(rows[5][5 * 4:5 * 4 + 3]), (0, 0, 0))
        # The next buffer, drawn whole with another pattern, only 4×3 at (2, 5) said to change.
        b = layer.next_buffer()
        self.assertIsNot(b, a)
        draw(b, 2)
        layer.present(b, damage=[(2, 5, 4, 3)])
        self.conn.commit()
        _, _, rows = png_pixels(self.conn.capture().png)
        for x, y in ((2, 5), (5, 7), (0, 0), (6, 5), (2, 8)):
            inside = 2 <= x < 6 and 5 <= y < 8
            self.assertEqual(tuple(rows[20 + y][(10 + x) * 4:(10 + x) * 4 + 3]), pattern(x, y, 2 if inside else 1), (x, y))
        self.conn.drain_events(5)
        self.assertFalse(a.busy)

    def test_presentation_feedback_comes_with_the_frame_that_showed_each_present(self):
        layer = self.conn.make_surface_layer()
        layer.frame = (0, 0, 8, 8)
        self.conn.root.add_sublayer(layer)
        layer.make_buffers(8, 8, count=2)
        frames, feedback = [], []
        got = threading.Semaphore(0)
        layer.on_frame = lambda t, target: (frames.append(t), got.release())
        layer.on_presented = lambda f: (feedback.append(f), got.release())
        for seed in (1, 2):
            b = layer.next_buffer()
            draw(b, seed)
            layer.present(b)
            self.conn.commit()
            self.assertTrue(got.acquire(timeout=5) and got.acquire(timeout=5))
        plain = []
        self.conn.request_presentation_feedback(lambda f: (plain.append(f), got.release()))
        layer.opacity = 0.5
        self.conn.commit()
        self.assertTrue(got.acquire(timeout=5))
        self.assertEqual([f.time for f in feedback], frames)   # the frame that showed each present
        for f in feedback + plain:
            self.assertIsInstance(f, lamina.PresentationFeedback)
            self.assertFalse(f.discarded)
            self.assertTrue(0 < f.refresh_interval < 1)
        self.assertLess(feedback[0].frame, feedback[1].frame)
        self.assertLess(feedback[1].frame, plain[0].frame)

    def test_a_surface_past_the_memory_limit_is_refused(self):
        layer = self.conn.make_surface_layer()
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        with self.assertRaises(RequestFailed) as cm:
            layer.make_buffers(16384, 16384, count=1)   # 1 GiB: over the default 256 MiB
        self.assertEqual(cm.exception.code, ErrorCode.LIMIT_EXCEEDED)


if __name__ == "__main__":
    unittest.main()
