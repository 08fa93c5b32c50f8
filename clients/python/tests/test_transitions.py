"""Insertion and removal transitions through the daemon (manual clock), against values worked
out by hand from docs/scene-format.md's transitions."""
import threading
import unittest

from support import DaemonTestCase, cubic_bezier, png_pixels


class TransitionTests(DaemonTestCase):
    def test_opacity_insertion_then_slide_removal(self):
        row = self.conn.make_layer("layer")
        row.bounds = (0, 0, 100, 100)
        row.position = (50, 50)
        row.opacity = 0.8
        row.background_color = "#00ff00"
        row.transition = {"insertion": "opacity", "removal": {"offset": [200, 0]}}
        with self.conn.transaction(duration=0.25, timing="easeInEaseOut"):
            self.conn.root.add_sublayer(row)
        self.conn.advance_clock(0.1)
        expected = 0.8 * cubic_bezier(0.42, 0, 0.58, 1, 0.1 / 0.25)
        self.assertAlmostEqual(row.presentation_value("opacity"), expected, places=4)
        self.conn.advance_clock(0.2)
        self.assertAlmostEqual(row.presentation_value("opacity"), 0.8, places=9)
        self.assertEqual(self.conn.hit_test((50, 50)).layer, row)

        with self.conn.transaction(duration=1.0, timing="linear"):
            row.remove_from_superlayer()
        self.conn.advance_clock(0.5)
        # Halfway out: moved 100 points, still drawn but never hit.
        self.assertAlmostEqual(row.presentation_value("position")[0], 150, places=6)
        self.assertEqual(self.conn.hit_test((150, 50)).kind, "none")
        self.assertEqual(self.conn.hit_test((50, 50)).kind, "none")

    def test_a_bad_transition_is_an_error(self):
        row = self.square()
        self.conn.commit()
        row.transition = {"removal": {"move": "sideways"}}
        row.remove_from_superlayer()
        with self.assertRaises(Exception) as e:
            self.conn.commit()
        self.assertIn("move", str(e.exception))

    def test_push_transition_halfway_from_the_left(self):
        # docs/scene-format.md: push fromLeft at p = 1/2 moves the old by +w/2 and the new
        # from -w, now at -w/2; both clipped to the layer's bounds.
        panel = self.square(x=100, y=50, size=100, color="#0000ff")
        panel.bounds = (0, 0, 200, 100)
        self.conn.commit()
        with self.conn.transaction(duration=0.3, timing="linear"):
            panel.background_color = "#00ff00"
            self.conn.add_transition(panel, "push", "fromLeft", duration=1.0)
        self.conn.advance_clock(0.5)
        cap = self.conn.capture()
        width, _, rows = png_pixels(cap.png)

        def at(x, y):
            return tuple(rows[y][4 * x:4 * x + 3])
        self.assertEqual(at(50, 50), (0, 255, 0))     # the new, in the left half
        self.assertEqual(at(150, 50), (0, 0, 255))    # the old, pushed to the right half
        self.conn.advance_clock(0.6)
        width, _, rows = png_pixels(self.conn.capture().png)
        self.assertEqual(at(150, 50), (0, 255, 0))

    def test_the_completion_waits_for_the_content_transition(self):
        # docs/scene-format.md: the transaction's completion waits for its transition's end.
        panel = self.square(x=100, y=50, size=100, color="#0000ff")
        self.conn.commit()
        done = threading.Event()
        with self.conn.transaction(disable_actions=True, completion=done.set):
            panel.background_color = "#00ff00"
            self.conn.add_transition(panel, "push", "fromLeft", duration=1.0)
        self.conn.advance_clock(0.5)
        panel.presentation_value("opacity")
        self.conn.drain_events(0.2)
        self.assertFalse(done.is_set())
        self.conn.advance_clock(0.6)
        panel.presentation_value("opacity")
        self.assertTrue(done.wait(5))

    def test_a_content_transition_runs_in_the_layers_time(self):
        # The panel at speed 2: a 1 s push is over after 0.5 s of the clock (the new alone).
        panel = self.square(x=100, y=50, size=100, color="#0000ff")
        panel.speed = 2
        self.conn.commit()
        with self.conn.transaction(disable_actions=True):
            panel.background_color = "#00ff00"
            self.conn.add_transition(panel, "push", "fromLeft", duration=1.0)
        self.conn.advance_clock(0.25)
        _, _, rows = png_pixels(self.conn.capture().png)
        self.assertEqual(tuple(rows[50][4 * 75:4 * 75 + 3]), (0, 255, 0))    # new: the left half
        self.assertEqual(tuple(rows[50][4 * 125:4 * 125 + 3]), (0, 0, 255))  # old: the right half
        self.conn.advance_clock(0.3)
        _, _, rows = png_pixels(self.conn.capture().png)
        self.assertEqual(tuple(rows[50][4 * 125:4 * 125 + 3]), (0, 255, 0))

    def test_a_bad_content_transition_is_an_error(self):
        panel = self.square()
        self.conn.commit()
        with self.assertRaises(ValueError):
            self.conn.add_transition(panel, "spin")
        with self.assertRaises(ValueError):
            self.conn.add_transition(panel, "push", "sideways")
        with self.assertRaises(ValueError):
            self.conn.add_transition(panel, "push", duration=-1)

    def test_reduce_motion_turns_a_push_into_a_fade(self):
        panel = self.square(x=100, y=50, size=100, color="#0000ff")
        panel.bounds = (0, 0, 200, 100)
        self.conn.commit()
        self.conn.set_reduce_motion(True)
        self.addCleanup(self.conn.set_reduce_motion, False)
        with self.conn.transaction(duration=0.3, timing="linear"):
            panel.background_color = "#00ff00"
            self.conn.add_transition(panel, "push", "fromLeft", duration=1.0)
        self.conn.advance_clock(0.5)
        width, _, rows = png_pixels(self.conn.capture().png)
        # A cross-fade at 1/2 everywhere in the panel: half blue, half green.
        for x in (50, 150):
            r, g, b = rows[50][4 * x:4 * x + 3]
            self.assertEqual(r, 0)
            self.assertAlmostEqual(g, 128, delta=2)
            self.assertAlmostEqual(b, 128, delta=2)

    def test_reduce_motion_sends_a_slide_insertion_as_a_fade(self):
        # docs/python.md: under Reduce Motion a transition that moves is sent as "opacity".
        # Linear over 1 s: at 0.25 s the row is where the model puts it, a quarter opaque.
        self.conn.set_reduce_motion(True)
        self.addCleanup(self.conn.set_reduce_motion, False)
        row = self.conn.make_layer("layer")
        row.bounds = (0, 0, 40, 40)
        row.position = (20, 20)
        row.transition = "slide"
        with self.conn.transaction(duration=1.0, timing="linear"):
            self.conn.root.add_sublayer(row)
        self.conn.advance_clock(0.25)
        self.assertEqual(tuple(row.presentation_value("position")), (20, 20))
        self.assertAlmostEqual(row.presentation_value("opacity"), 0.25, places=9)

    def test_reduce_motion_turns_a_match_into_a_cross_fade(self):
        # docs/protocol.md: a match committed under Reduce Motion only cross-fades, neither
        # layer moving: half way (linear, 1 s) both stay at their own frames, half opaque.
        self.conn.set_reduce_motion(True)
        self.addCleanup(self.conn.set_reduce_motion, False)
        a, b = self.matched_pair()
        self.conn.advance_clock(0.5)
        self.assertEqual(tuple(b.presentation_value("position")), (300, 200))
        self.assertEqual(tuple(b.presentation_value("bounds")), (0, 0, 100, 100))
        self.assertAlmostEqual(b.presentation_value("cornerRadius"), 10, places=9)
        self.assertEqual(tuple(a.presentation_value("position")), (50, 50))
        self.assertAlmostEqual(a.presentation_value("opacity"), 0.5, places=9)
        self.assertAlmostEqual(b.presentation_value("opacity"), 0.5, places=9)

    def matched_pair(self):
        """a (20 points at (50, 50)) matched into b (100 points at (300, 200), corner radius 10)
        in a linear transaction of 1 s."""
        a = self.square(x=50, y=50, size=20)
        b = self.square(x=300, y=200, size=100)
        b.corner_radius = 10
        self.conn.commit()
        with self.conn.transaction(duration=1.0, timing="linear"):
            self.conn.match(a, b)
        return a, b

    def test_match_starts_at_the_source_frame(self):
        a, b = self.matched_pair()
        self.assertAlmostEqual(b.presentation_value("position")[0], 50, places=6)
        self.assertAlmostEqual(b.presentation_value("opacity"), 0, places=9)
        self.conn.advance_clock(0.5)
        pos = b.presentation_value("position")
        self.assertAlmostEqual(pos[0], 175, places=6)
        self.assertAlmostEqual(pos[1], 125, places=6)
        self.assertAlmostEqual(b.presentation_value("bounds")[2], 60, places=6)
        self.assertAlmostEqual(a.presentation_value("opacity"), 0.5, places=9)


if __name__ == "__main__":
    unittest.main()
