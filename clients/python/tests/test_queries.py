"""Presentation and hit-test queries, captures, images and text measurement."""
import math
import unittest

from support import CANVAS, DaemonTestCase, png_file, png_pixels

import lamina
from lamina import ErrorCode, RequestFailed


class HitTestTests(DaemonTestCase):
    def test_topmost_own_layer(self):
        below = self.square(x=100, y=100, size=100)
        above = self.square(x=150, y=150, size=100, color="#0000ff")
        self.conn.commit()
        self.assertIs(self.conn.hit_test((60, 60)).layer, below)
        self.assertIs(self.conn.hit_test((120, 120)).layer, above)          # overlap: the later sublayer
        self.assertEqual(self.conn.hit_test((390, 20)), lamina.HitTestResult("none", 0, None))
        self.assertIs(above.hit_test((190, 190)), above)

    def test_hidden_transformed_and_masked(self):
        a = self.square(x=100, y=100, size=100)
        self.conn.commit()
        with self.conn.transaction(disable_actions=True):
            a.hidden = True
        self.assertEqual(self.conn.hit_test((100, 100)).kind, "none")
        with self.conn.transaction(disable_actions=True):
            a.hidden = False
            a.transform = lamina.Transform3D.scale(2)          # about the anchor: now 0…200
        self.assertIs(self.conn.hit_test((10, 10)).layer, a)

    def test_shape_layers_hit_by_their_path(self):
        shape = self.conn.make_shape_layer()
        shape.bounds = (0, 0, 100, 100)
        shape.position = (50, 50)
        shape.path = lamina.Path.ellipse((0, 0, 100, 100))
        self.conn.root.add_sublayer(shape)
        self.conn.commit()
        self.assertIs(self.conn.hit_test((50, 50)).layer, shape)
        self.assertEqual(self.conn.hit_test((3, 3)).kind, "none")      # inside the bounds, outside the circle

    def test_another_clients_layer(self):
        other = self.connect("neighbour")
        theirs = other.make_layer()
        theirs.bounds = (0, 0, 50, 50)
        theirs.position = (375, 275)
        theirs.background_color = "#00ff00"
        other.root.add_sublayer(theirs)
        other.commit()
        self.assertEqual(self.conn.hit_test((375, 275)), lamina.HitTestResult("other", 0, None))


class PresentationTests(DaemonTestCase):
    def test_sub_key_paths_and_frame(self):
        layer = self.square(x=60, y=70, size=40)
        layer.anchor_point = (0, 0)
        self.conn.commit()
        self.assertEqual(layer.presentation_value("position.x"), 60.0)
        self.assertEqual(layer.presentation_value("bounds.size"), lamina.Size(40, 40))
        self.assertEqual(layer.presentation_value("frame"), lamina.Rect(60, 70, 40, 40))
        self.assertEqual(layer.frame, lamina.Rect(60, 70, 40, 40))
        with self.conn.transaction(disable_actions=True):
            layer.transform = lamina.Transform3D.rotation(math.pi / 2)
        # A quarter turn about the top-left anchor: the box swings to the left of the anchor.
        for got, want in zip(layer.presentation_value("frame"), (20, 70, 40, 40)):
            self.assertAlmostEqual(got, want, places=9)
        for got, want in zip(layer.frame, (20, 70, 40, 40)):
            self.assertAlmostEqual(got, want, places=9)
        self.assertAlmostEqual(layer.presentation_value("transform.rotation.z"), math.pi / 2, places=9)

    def test_frame_setter(self):
        layer = self.square()
        layer.frame = (10, 20, 30, 40)
        self.conn.commit()
        self.assertEqual(layer.bounds, lamina.Rect(0, 0, 30, 40))
        self.assertEqual(layer.position, lamina.Point(25, 40))
        self.assertEqual(layer.presentation_value("bounds"), lamina.Rect(0, 0, 30, 40))
        self.assertEqual(layer.presentation_value("position"), lamina.Point(25, 40))

    def test_presentation_of_every_property(self):
        text = self.conn.make_text_layer()
        text.string = "hi"
        text.font_size = 12
        self.conn.root.add_sublayer(text)
        self.conn.commit()
        p = text.presentation()
        self.assertEqual((p.string, p.font_size, p.opacity), ("hi", 12.0, 1.0))
        self.assertEqual(p.value("bounds.size"), lamina.Size(0, 0))
        with self.assertRaises(AttributeError):
            p.fill_color

    def test_custom_properties(self):
        layer = self.square()
        layer.set_value("custom.phase", 0.25)
        layer.set_value("custom.weights", [1, 2, 3])
        self.conn.commit()
        self.assertEqual(layer.presentation_value("custom.phase"), 0.25)
        self.assertEqual(layer.presentation_value("custom.weights"), [1.0, 2.0, 3.0])
        self.assertEqual(layer.value("custom.phase"), 0.25)
        layer.add(lamina.BasicAnimation("custom.phase", to_value=1.25, duration=1.0))
        self.conn.commit()
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(layer.presentation_value("custom.phase"), 0.75, places=9)

    def test_capture_shows_the_layer(self):
        self.square(x=50, y=50, size=100, color="#ff0000")
        self.conn.commit()
        cap = self.conn.capture()
        width, height, rows = png_pixels(cap.png)
        self.assertEqual((cap.width, cap.height), (width, height))
        self.assertEqual((width, height), CANVAS)
        self.assertEqual(rows[50][50 * 4:50 * 4 + 4], b"\xff\x00\x00\xff")
        self.assertEqual(rows[250][300 * 4:300 * 4 + 3], b"\x00\x00\x00")   # the black background

    def test_stats_and_tree(self):
        parent = self.square(x=100, y=100)
        child = self.conn.make_layer("shape")
        parent.add_sublayer(child)
        self.conn.commit()
        tree = self.conn.tree()
        mine = [l for l in tree["layers"] if l["owner"] == self.conn.client_id]
        ids = {l["id"]: l for l in mine}
        prefix = "%d:" % self.conn.client_id
        self.assertEqual(ids[prefix + "%d" % parent.id]["sublayers"], [prefix + "%d" % child.id])
        self.assertEqual(ids[prefix + "%d" % child.id]["kind"], "shape")
        self.assertIn("frames", self.conn.stats())
        self.assertGreater(self.conn.ping(), 0)


class HierarchyTests(DaemonTestCase):
    def test_insert_remove_delete(self):
        a, b, c = self.square(), self.square(), self.conn.make_layer()
        self.conn.root.insert_sublayer(c, 0)
        self.assertEqual(self.conn.root.sublayers, [c, a, b])
        b.remove_from_superlayer()
        a.add_sublayer(b)
        self.conn.commit()
        self.assertIs(b.superlayer, a)
        tree = {l["id"]: l for l in self.conn.tree()["layers"]}
        cid = self.conn.client_id
        self.assertEqual(tree["%d:0" % cid]["sublayers"], ["%d:%d" % (cid, c.id), "%d:%d" % (cid, a.id)])
        a.delete()
        self.conn.commit()
        self.assertIsNone(b.superlayer)
        self.assertEqual(self.conn.root.sublayers, [c])
        with self.assertRaises(RequestFailed) as cm:
            self.conn.presentation_value(a.id, "opacity")
        self.assertEqual(cm.exception.code, ErrorCode.UNKNOWN_LAYER)
        self.assertEqual(b.presentation_value("opacity"), 1.0)   # alive, detached

    def test_cycle_is_refused(self):
        a, b = self.square(), self.conn.make_layer()
        a.add_sublayer(b)
        self.conn.commit()
        b.add_sublayer(a)
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual(cm.exception.code, ErrorCode.INVALID_HIERARCHY)


class ImageTests(DaemonTestCase):
    def test_upload_show_and_release(self):
        pixels = bytes([255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 128, 128, 128, 255])
        image = self.conn.upload_image_rgba(pixels, 2, 2, "tiles")
        self.assertEqual((image.name, image.width, image.height), ("tiles", 2, 2))
        png = self.conn.upload_image(png_file(3, 1, bytes([0, 0, 255, 255] * 3)), "blue")
        self.assertEqual((png.width, png.height), (3, 1))
        layer = self.square(x=200, y=150, size=100)
        layer.contents = png
        layer.contents_gravity = "resize"
        layer.magnification_filter = "nearest"
        self.conn.commit()
        self.assertEqual(layer.contents, "blue")
        self.assertEqual(layer.presentation_value("contents"), "blue")
        _, _, rows = png_pixels(self.conn.capture().png)
        self.assertEqual(rows[150][200 * 4:200 * 4 + 4], b"\x00\x00\xff\xff")
        with self.assertRaises(RequestFailed) as cm:
            self.conn.upload_image_rgba(pixels, 2, 2, "tiles")
        self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.DUPLICATE_IMAGE, "tiles"))
        image.release()
        self.assertTrue(image.is_released)
        layer.contents = image
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual((cm.exception.code, cm.exception.layer, cm.exception.key),
                         (ErrorCode.UNKNOWN_IMAGE, layer.id, "contents"))

    def test_invalid_image(self):
        with self.assertRaises(RequestFailed) as cm:
            self.conn.upload_image(b"not an image at all", "junk")
        self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.INVALID_IMAGE, "junk"))


class TraceTests(DaemonTestCase):
    def test_a_trace_holds_frames_phases_and_this_clients_commits(self):
        import json
        self.assertEqual(self.conn.start_trace(), 10_000)
        layer = self.square(x=60, y=70, size=40)
        self.conn.commit()
        for _ in range(3):
            with self.conn.transaction(duration=0.1):
                layer.opacity = 0.5 if layer.opacity == 1 else 1.0
            self.conn.advance_clock(0.05)
            layer.presentation_value("opacity")          # waits for a frame with every commit
        trace = json.loads(self.conn.stop_trace())
        events = trace["traceEvents"]
        self.assertTrue(any(e["name"] == "frame" and e["ph"] == "X" for e in events))
        for phase in ("apply", "evaluate", "record", "submit"):
            self.assertTrue(any(e["name"] == phase and e.get("cat") == "phase" for e in events), phase)
        commits = [e for e in events if e.get("cat") == "commit" and e["name"] == "commit"]
        self.assertGreaterEqual(len(commits), 4)
        self.assertTrue(all(e["args"]["client"] == self.conn.client_id for e in commits))
        self.assertTrue(all(e["dur"] >= 0 for e in events if e["ph"] == "X"))
        with self.assertRaises(RequestFailed):          # nothing is recording now
            self.conn.stop_trace()


class TextMeasurementTests(DaemonTestCase):
    def test_lines_and_wrapping(self):
        one = self.conn.measure_text("Lamina", font_size=20)
        two = self.conn.measure_text("Lamina\nLamina", font_size=20)
        empty = self.conn.measure_text("", font_size=20)
        self.assertGreater(one.width, 0)
        self.assertAlmostEqual(two.width, one.width, places=6)
        self.assertAlmostEqual(two.height, 2 * one.height, places=6)
        self.assertEqual(empty.width, 0)
        self.assertAlmostEqual(empty.height, one.height, places=6)
        double = self.conn.measure_text("Lamina", font_size=40)
        self.assertAlmostEqual(double.width, 2 * one.width, delta=one.width * 0.05)
        words = "Lamina " * 6
        wrapped = self.conn.measure_text(words, font_size=20, width=one.width * 2.5)
        self.assertLessEqual(wrapped.width, one.width * 2.5)
        self.assertGreaterEqual(wrapped.height, 3 * one.height - 1e-6)

    def test_styled_runs(self):
        plain = self.conn.measure_text("ab", font_size=20)
        styled = self.conn.measure_text([lamina.TextRun("a"), lamina.TextRun("b", font_size=40)], font_size=20)
        self.assertGreater(styled.height, plain.height)
        with self.assertRaises(RequestFailed) as cm:
            self.conn.measure_text("x", font_size=-1)
        self.assertEqual(cm.exception.code, ErrorCode.MALFORMED)


if __name__ == "__main__":
    unittest.main()
