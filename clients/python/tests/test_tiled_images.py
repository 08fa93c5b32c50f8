"""createTiledImage (docs/python.md, Images): a tiled image whose tiles this program draws on
request, against a real laminad; and a named error."""
import threading
import time
import unittest

from lamina import ErrorCode, RequestFailed

from support import DaemonTestCase, png_pixels, tiled_layer


def color(column, row):
    """Each tile one colour, from its column and row (level 0 only here)."""
    return (40 + 30 * column, 40 + 30 * row, 220)


class TiledImageTests(DaemonTestCase):
    def test_visible_tiles_are_asked_for_and_drawn(self):
        asked = []
        lock = threading.Lock()

        def provider(request, memory):
            with lock:
                asked.append(request)
            r, g, b = color(request.column, request.row)
            memory[:] = bytes((r, g, b, 255)) * (request.width * request.height)
            return True

        image = self.conn.create_tiled_image("drawn", 1000, 600, provider)
        self.assertEqual((image.width, image.height), (1000, 600))
        # At 1:1 from (10, 20), 64-pixel tiles: canvas pixel (10 + x, 20 + y) is tile (x // 64, y // 64).
        tiled_layer(self.conn, "drawn", (10, 20, 1000, 600), 64)
        self.conn.commit()
        points = ((32, 32), (150, 100), (100, 150), (170, 170), (5, 70))
        deadline = time.monotonic() + 20
        while True:
            _, _, rows = png_pixels(self.conn.capture().png)
            got = [tuple(rows[20 + y][(10 + x) * 4:(10 + x) * 4 + 3]) for x, y in points]
            want = [color(x // 64, y // 64) for x, y in points]
            if all(max(abs(a - b) for a, b in zip(g, w)) <= 2 for g, w in zip(got, want)):
                break
            self.assertLess(time.monotonic(), deadline, got)
            time.sleep(0.05)
        # Exactly the tiles in view were asked for, each once: the canvas (W × H) shows image
        # pixels 0…W−10 × 0…H−20.
        width, height, _ = png_pixels(self.conn.capture().png)
        columns, rows_ = -(-(width - 10) // 64), -(-(height - 20) // 64)
        expected = [(c, r) for c in range(columns) for r in range(rows_)]
        deadline = time.monotonic() + 20
        while True:
            with lock:
                keys = sorted((q.column, q.row) for q in asked)
            if len(keys) >= len(expected) or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        time.sleep(0.2)
        with lock:
            keys = sorted((q.column, q.row) for q in asked)
        self.assertEqual(keys, expected)
        self.assertTrue(all(q.level == 0 and q.name == "drawn" and (q.x, q.y) == (64 * q.column, 64 * q.row)
                            and (q.width, q.height) == (64, 64) for q in asked))

    def test_unanswered_tiles_are_cancelled_after_two_seconds_and_others_asked(self):
        """A client that drops requests: after 2 s on the daemon's (manual) clock each is
        cancelled (``on_cancelled`` tells the program) and tiles never asked take the slots."""
        asked, cancelled = [], []
        lock = threading.Lock()

        def provider(request, memory):
            with lock:
                asked.append((request.column, request.row))
            return False

        def on_cancelled(request):
            with lock:
                cancelled.append((request.column, request.row))

        def wait(items, count):
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:
                with lock:
                    if len(items) >= count:
                        break
                time.sleep(0.01)
            time.sleep(0.2)
            with lock:
                return list(items)

        self.conn.create_tiled_image("dropped", 2048, 2048, provider, on_cancelled=on_cancelled)
        tiled_layer(self.conn, "dropped", (0, 0, 2048, 2048), 32, levels_of_detail=1)
        self.conn.commit()
        first = wait(asked, 16)
        self.assertEqual(len(first), 16)
        self.conn.advance_clock(1.9)
        self.conn.ping()
        self.assertEqual(len(wait(asked, 17)), 16)
        self.assertEqual(wait(cancelled, 1), [])
        self.conn.advance_clock(0.2)
        both = wait(asked, 32)
        self.assertEqual(len(both), 32)
        self.assertEqual(sorted(wait(cancelled, 16)), sorted(first))
        self.assertFalse(set(both[16:]) & set(first))

    def test_a_bad_size_is_a_named_error(self):
        with self.assertRaises(RequestFailed) as cm:
            self.conn.create_tiled_image("zero", 0, 10, lambda request, memory: True)
        self.assertEqual(cm.exception.code, ErrorCode.INVALID_VALUE)
        self.assertIn("pixels a side", str(cm.exception))
        self.assertEqual(self.conn.create_tiled_image("ok", 10, 10, lambda request, memory: True).width, 10)


if __name__ == "__main__":
    unittest.main()
