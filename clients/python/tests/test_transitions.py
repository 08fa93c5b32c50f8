"""Insertion and removal transitions through the daemon (manual clock), against values worked
out by hand from docs/scene-format.md's transitions."""
import unittest

from support import DaemonTestCase, cubic_bezier


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

    def test_match_starts_at_the_source_frame(self):
        a = self.square(x=50, y=50, size=20)
        b = self.square(x=300, y=200, size=100)
        b.corner_radius = 10
        self.conn.commit()
        with self.conn.transaction(duration=1.0, timing="linear"):
            self.conn.match(a, b)
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
