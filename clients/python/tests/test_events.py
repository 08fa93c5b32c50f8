"""Events: callbacks on the delivery thread and iterators, in the daemon's order."""
import threading
import unittest

from support import DaemonTestCase

import lamina
from lamina import AnimationStarted, AnimationStopped, BasicAnimation, TransactionCompleted



def _bare_connection():
    """A Connection with no socket and no reader: the state its event dispatch uses, for
    feeding it decoded events by hand."""
    import queue

    from lamina.connection import Connection
    c = Connection.__new__(Connection)
    c._lock = threading.Lock()
    c._subscribers = []
    c._pointer_handlers = {}
    c._pending_path = None
    c._jobs = queue.Queue()
    return c

class EventTests(DaemonTestCase):
    def test_animation_events_and_completion_in_order(self):
        layer = self.square()
        self.conn.commit()
        seen = []
        threads = set()

        def note(what):
            threads.add(threading.current_thread().name)
            seen.append(what)

        self.conn.on_animation_event = lambda e: note(("event", type(e).__name__, e.key))
        events = self.conn.events()
        with self.conn.transaction(completion=lambda: note("completion")):
            layer.add(BasicAnimation("opacity", from_value=0, to_value=1, duration=1.0), key="fade",
                      on_start=lambda: note("start"), on_stop=lambda finished: note(("stop", finished)))
        self.conn.advance_clock(0.5)
        self.conn.ping()
        self.conn.advance_clock(0.6)
        layer.presentation_value("opacity")   # a query after the advance: the frame's events come first
        self.assertTrue(self.conn.drain_events(5))
        self.assertEqual(seen, ["start", ("event", "AnimationStarted", "fade"), ("stop", True),
                                ("event", "AnimationStopped", "fade"), "completion"])
        self.assertEqual(threads, {"lamina-delivery"})
        got = [events.get(timeout=5) for _ in range(3)]
        self.assertEqual(got[0], AnimationStarted(layer.id, "fade"))
        self.assertEqual(got[1], AnimationStopped(layer.id, "fade", True))
        self.assertIsInstance(got[2], TransactionCompleted)

    def test_removed_animation_stops_unfinished(self):
        layer = self.square()
        self.conn.commit()
        stops = []
        layer.add(BasicAnimation("opacity", from_value=0, to_value=1, duration=5.0), key="long",
                  on_stop=stops.append)
        self.conn.commit()
        layer.remove_animation("long")
        self.conn.commit()
        self.conn.ping()
        layer.presentation_value("opacity")
        self.conn.drain_events(5)
        self.assertEqual(stops, [False])

    def test_completion_with_no_animation_fires_at_the_next_frame(self):
        layer = self.square()
        done = threading.Event()
        with self.conn.transaction(completion=done.set):
            layer.opacity = 0.5     # a new layer: no implicit animation
        layer.presentation_value("opacity")
        self.assertTrue(done.wait(5))

    def test_nested_completions_fire_inner_first(self):
        layer = self.square()
        self.conn.commit()
        order = []
        with self.conn.transaction(duration=1.0, completion=lambda: order.append("outer")):
            layer.opacity = 0.0                       # 1 s, counted for outer
            with self.conn.transaction(duration=0.5, completion=lambda: order.append("inner")):
                layer.position = (80, 80)             # 0.5 s, counted for both
        self.conn.advance_clock(0.6)
        layer.presentation_value("opacity")
        self.conn.drain_events(5)
        self.assertEqual(order, ["inner"])
        self.conn.advance_clock(0.5)
        layer.presentation_value("opacity")
        self.conn.drain_events(5)
        self.assertEqual(order, ["inner", "outer"])

    def test_reduce_motion_changes_reach_other_clients(self):
        other = self.connect("switch")
        changes = []
        self.conn.on_reduce_motion_change = changes.append
        with self.conn.events() as events:
            other.set_reduce_motion(True)
            self.assertEqual(events.get(timeout=5), lamina.ReduceMotionChanged(True))
            other.set_reduce_motion(False)
            self.assertEqual(events.get(timeout=5), lamina.ReduceMotionChanged(False))
        self.conn.drain_events(5)
        self.assertEqual(changes, [True, False])
        self.assertFalse(self.conn.reduce_motion)

    def test_iterator_ends_with_disconnected(self):
        c = self.connect()
        stream = c.events()
        c.close()
        self.assertEqual(list(stream), [lamina.events.Disconnected()])

    def test_callback_exceptions_do_not_stop_delivery(self):
        layer = self.square()
        self.conn.commit()
        seen = []
        import io
        import sys
        old, sys.stderr = sys.stderr, io.StringIO()
        try:
            layer.add(BasicAnimation("opacity", to_value=0, duration=0.1), key="a", on_start=lambda: 1 / 0,
                      on_stop=seen.append)
            self.conn.commit()
            self.conn.advance_clock(0.2)
            layer.presentation_value("opacity")
            self.conn.drain_events(5)
        finally:
            captured, sys.stderr = sys.stderr.getvalue(), old
        self.assertEqual(seen, [True])
        self.assertIn("ZeroDivisionError", captured)


class InputDecodingTests(unittest.TestCase):
    """Input and display events need a viewer's window; their decoding is checked on bytes."""

    def test_pointer_key_and_display_events(self):
        import struct

        from lamina import _wire
        c = _bare_connection()
        c._delegates, c._completions, c._pending_errors = {}, {}, []
        c.on_event = c.on_pointer = c.on_key = c.on_display_change = c.on_animation_event = None
        c.on_reduce_motion_change = c.on_error = None
        stream = lamina.connection.EventStream(c)
        c._subscribers.append(stream)
        got = []
        c.on_pointer = got.append
        c.on_key = got.append
        c.on_display_change = got.append
        c._dispatch(_wire.POINTER_DOWN, 0, struct.pack("<IddddBHddd", 7, 1.5, 2.5, 10, 20, 1, 3, 0, 0, 4.25))
        c._dispatch(_wire.KEY_UP, 0, struct.pack("<IIHBd", 0, 65, 8, 1, 5.5))
        c._dispatch(_wire.DISPLAY_CHANGED, 0, struct.pack("<IIdd", 800, 600, 2.0, 60.0))
        c._dispatch(0xA5, 0, b"future")   # unknown: skipped
        while not c._jobs.empty():
            c._jobs.get()()
        self.assertEqual(got[0], lamina.PointerEvent("down", 7, 1.5, 2.5, 10, 20, 1, 3, 0, 0, 4.25, 7))
        self.assertEqual(got[1], lamina.KeyEvent("up", 0, 65, 8, True, 5.5))
        self.assertEqual(got[2], lamina.Display(800, 600, 2.0, 60.0))
        self.assertEqual(c.display, lamina.Display(800, 600, 2.0, 60.0))
        self.assertEqual(stream.get(0), got[0])
        self.assertEqual(stream.get(0), got[1])
        self.assertEqual(stream.get(0), lamina.DisplayChanged(got[2]))
        with self.assertRaises(TimeoutError):
            stream.get(0.01)

    def test_a_pointer_path_bubbles_the_event_after_it(self):
        """Decoded from bytes: a ``pointerPath`` (0x96) then its event; the handlers along the
        path, innermost first, each with its hop's point; a malformed path or one for another
        layer leaves the event to its own layer. (Against a real daemon with injected input:
        Tests/LaminaTests/PythonPointerBubblingTests.swift runs bubbling_driver.py.)"""
        import struct

        from lamina import _wire
        c = _bare_connection()
        c.on_event = c.on_pointer = None
        seen = []

        def handler(name, result=None):
            return lambda e: (seen.append((name, e.layer, e.target, e.x, e.y)), result)[1]

        c._pointer_handlers = {7: handler("seven"), 3: handler("three"), 0: handler("root")}
        c.on_pointer = lambda e: seen.append(("general", e.layer, e.target, e.x, e.y))

        def deliver(path_body, layer=7):
            del seen[:]
            if path_body is not None:
                c._dispatch(_wire.POINTER_PATH, 0, path_body)
            c._dispatch(_wire.POINTER_DOWN, 0, struct.pack("<IddddBHddd", layer, 1.5, 2.5, 10, 20, 0, 0, 0, 0, 1.0))
            while not c._jobs.empty():
                c._jobs.get()()
            return list(seen)

        def path(*hops):
            return struct.pack("<I", len(hops)) + b"".join(struct.pack("<Idd", *h) for h in hops)

        full = path((7, 1.5, 2.5), (5, 3.0, 4.0), (3, 6.0, 8.0), (0, 12.0, 16.0))
        self.assertEqual(deliver(full), [("seven", 7, 7, 1.5, 2.5), ("three", 3, 7, 6.0, 8.0),
                                         ("root", 0, 7, 12.0, 16.0), ("general", 7, 7, 1.5, 2.5)])
        c._pointer_handlers[3] = handler("three", lamina.HANDLED)
        self.assertEqual(deliver(full), [("seven", 7, 7, 1.5, 2.5), ("three", 3, 7, 6.0, 8.0)])
        c._pointer_handlers[3] = handler("three", 1)   # truthy but not HANDLED: goes on
        self.assertEqual(len(deliver(full)), 4)
        own = [("seven", 7, 7, 1.5, 2.5), ("general", 7, 7, 1.5, 2.5)]
        self.assertEqual(deliver(None), own)                                  # no path: its own layer
        self.assertEqual(deliver(path((9, 0.0, 0.0), (0, 1.0, 1.0))), own)   # another layer's path
        self.assertEqual(deliver(struct.pack("<I", 0)), own)                 # no hops
        self.assertEqual(deliver(path((7, 1.5, 2.5), (0, float("nan"), 1.0))), own)
        self.assertEqual(deliver(struct.pack("<I", 3) + struct.pack("<Idd", 7, 1.5, 2.5)), own)   # short
        # The path is used once: the next event without one reaches its own layer only.
        deliver(full)
        self.assertEqual(deliver(None), own)


if __name__ == "__main__":
    unittest.main()
