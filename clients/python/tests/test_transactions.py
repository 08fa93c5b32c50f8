"""Transactions: nesting, the explicit begin/commit form, completions replaced, a raising block."""
import threading
import unittest

from support import DaemonTestCase

import lamina


class TransactionTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.layer = self.square()
        self.conn.commit()

    def test_begin_and_commit_transaction(self):
        self.conn.begin()
        self.conn.set_animation_duration(4.0)
        self.conn.set_animation_timing_function("linear")
        self.layer.opacity = 0.0
        self.conn.begin()
        self.conn.set_disable_actions(True)
        self.layer.border_width = 3.0
        self.assertIsNone(self.conn.commit_transaction())     # inner: nothing sent yet
        self.assertIsInstance(self.conn.commit_transaction(), int)
        self.conn.advance_clock(1.0)
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.75, places=9)
        self.assertEqual(self.layer.presentation_value("borderWidth"), 3.0)

    def test_a_named_filters_number_animates_implicitly(self):
        with self.conn.transaction(disable_actions=True):
            self.layer.filters = [lamina.Filter("gaussianBlur", radius=2, name="blur"),
                                  lamina.Filter("saturate", amount=1, name="sat")]
        self.conn.begin()
        self.conn.set_animation_duration(2.0)
        self.conn.set_animation_timing_function("linear")
        self.layer.set_value("filters.blur.radius", 10)
        self.layer.set_value("filters.sat.amount", 0)
        self.assertEqual(self.layer.value("filters.blur.radius"), 10.0)   # the model at once
        self.assertEqual(self.layer.filters[1].amount, 0.0)
        self.conn.commit_transaction()
        self.conn.advance_clock(0.5)   # a quarter of the way, linear
        self.assertAlmostEqual(self.layer.presentation_value("filters.blur.radius"), 4.0, places=9)
        self.assertAlmostEqual(self.layer.presentation_value("filters.sat.amount"), 0.75, places=9)
        p = self.layer.presentation()   # the whole list, read by key path
        self.assertAlmostEqual(p.value("filters.blur.radius"), 4.0, places=9)
        self.assertAlmostEqual(p.filters[1].amount, 0.75, places=9)
        for bad in ("filters.blur.amount", "filters.nope.radius", "backgroundFilters.blur.radius"):
            with self.assertRaises(lamina.PropertyError):
                self.layer.set_value(bad, 1)

    def test_sequence_numbers_increase(self):
        with self.conn.transaction() as a:
            self.layer.opacity = 0.5
        with self.conn.transaction() as b:
            self.layer.opacity = 0.25
        self.assertEqual(b.sequence, a.sequence + 1)

    def test_a_replaced_completion_never_runs(self):
        ran = []
        done = threading.Event()
        with self.conn.transaction(completion=lambda: ran.append("first")) as tx:
            tx.set_completion(lambda: (ran.append("second"), done.set()))
            self.layer.opacity = 0.5
        self.conn.advance_clock(0.3)
        self.layer.presentation_value("opacity")
        self.assertTrue(done.wait(5))
        self.conn.drain_events(5)
        self.assertEqual(ran, ["second"])

    def test_a_raising_block_commits_what_it_staged_and_raises(self):
        with self.assertRaises(KeyError):
            with self.conn.transaction(disable_actions=True):
                self.layer.opacity = 0.5
                raise KeyError("boom")
        self.assertEqual(self.layer.presentation_value("opacity"), 0.5)
        with self.conn.transaction(disable_actions=True):   # the stack is balanced again
            self.layer.opacity = 0.25
        self.assertEqual(self.layer.presentation_value("opacity"), 0.25)

    def test_a_refused_commit_drops_its_completion(self):
        ran = []
        self.layer.opacity = float("nan")
        with self.assertRaises(lamina.RequestFailed):
            with self.conn.transaction(completion=lambda: ran.append("x")):
                self.layer.corner_radius = 2.0
        self.conn.advance_clock(1.0)
        self.layer.presentation_value("opacity")
        self.conn.drain_events(5)
        self.assertEqual(ran, [])


if __name__ == "__main__":
    unittest.main()
