"""Lamina issue 28, item 2: a connection that reconnects survives its daemon's restart.

Real laminad processes on one socket path: daemon A is killed (SIGKILL) mid-animation, daemon
B is started on the same path, and the connection — left alone — reconnects and replays its
model. Its frame from B is compared with one from a daemon C that never died, at the same
animation time: every daemon runs the manual clock, and the connection's timeline follows its
own ``advance_clock`` replies, so the times are exact.
"""
import os
import shutil
import socket
import tempfile
import threading
import time
import unittest

from support import Daemon, pixel_difference, png_file, png_pixels, tiled_layer

import lamina
from lamina import BasicAnimation, KeyframeAnimation
from lamina.events import AnimationStarted, AnimationStopped, ConnectionLost, Disconnected, Reconnected

QUICK = lamina.Reconnect(initial_delay=0.02, max_delay=0.2)

# A 16×16 checkerboard: opaque white and half-transparent blue (straight alpha in the PNG).
CHECKER = png_file(16, 16, b"".join(bytes([255, 255, 255, 255]) if (x // 4 + y // 4) % 2 == 0 else bytes([0, 0, 255, 128])
                                    for y in range(16) for x in range(16)))


class Recorder:
    """What ``on_connection_change`` saw, waited for without pumping."""

    def __init__(self, conn):
        self.items = []
        self.lock = threading.Lock()
        conn.on_connection_change = self.add

    def add(self, e):
        with self.lock:
            self.items.append(type(e).__name__)

    def wait(self, count, seconds=5.0):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            with self.lock:
                if len(self.items) >= count:
                    break
            time.sleep(0.002)
        with self.lock:
            return list(self.items)


def stopped(pid):
    """Waits until the process is stopped (a signal is delivered when the kernel gets to it)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        with open("/proc/%d/stat" % pid) as f:
            if f.read().rsplit(")", 1)[1].split()[0] in ("T", "t"):
                return
        time.sleep(0.002)
    raise AssertionError("process %d did not stop" % pid)


def outcome(f):
    """"ok", or the name of the Lamina error ``f()`` raised."""
    try:
        f()
        return "ok"
    except lamina.LaminaError as e:
        return type(e).__name__


def build(conn, on_start=None, on_stop=None, completion=None):
    """A backdrop, an image layer placed by ``frame`` after its anchor point moved, a square
    sliding over 2 s and a repeating fade, committed at time 0; then a layer removed in a
    second commit. Returns (backdrop, moving, removed)."""
    image = conn.upload_image(CHECKER, "checker")
    back = conn.make_layer()
    back.frame = (0, 0, 400, 300)
    back.background_color = (0.2, 0.2, 0.3, 1)
    conn.root.add_sublayer(back)
    pic = conn.make_layer()
    pic.anchor_point = (0, 0)
    pic.frame = (8, 8, 96, 96)
    pic.contents = image
    back.add_sublayer(pic)
    moving = conn.make_layer()
    moving.bounds = (0, 0, 60, 60)
    moving.position = (40, 200)
    moving.background_color = (1, 0.2, 0, 1)
    back.add_sublayer(moving)
    removed = conn.make_layer()
    removed.frame = (250, 20, 100, 100)
    removed.background_color = (0, 1, 0, 1)
    back.add_sublayer(removed)
    # An image released while a layer shows it: the layer keeps it.
    stamp = conn.upload_image_rgba(bytes([200]) * (8 * 8 * 4), 8, 8, "stamp")
    stamped = conn.make_layer()
    stamped.frame = (240, 160, 48, 48)
    stamped.contents = stamp
    back.add_sublayer(stamped)
    pic.add(KeyframeAnimation("opacity", [1.0, 0.25], duration=0.7, autoreverses=True, repeat_count=float("inf")))
    if completion is not None:
        conn.set_completion_block(completion)   # waits for the slide (added after it)
    moving.add(BasicAnimation("position.x", 40.0, 360.0, duration=2.0), "slide", on_start=on_start, on_stop=on_stop)
    conn.commit()
    stamp.release()
    removed.delete()
    conn.commit()
    return back, moving, removed


def change_while_away(conn, back):
    conn.set_disable_actions(True)
    back.background_color = (0.1, 0.3, 0.2, 1)


class ReconnectTests(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix="lamina-reconnect-")
        self.addCleanup(shutil.rmtree, self.dir, True)
        self.path = os.path.join(self.dir, "lamina.sock")

    def daemon(self, path=None):
        d = Daemon(socket_path=path or self.path)
        self.addCleanup(d.stop)
        return d

    def test_restart_mid_animation_matches_a_daemon_that_never_died(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "survivor", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        back, moving, removed = build(conn)
        conn.advance_clock(0.5)                      # mid-slide: 0.5 s of 2
        a.kill()
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        self.assertTrue(conn.is_reconnecting)

        # While away: a commit raises Reconnecting and keeps its changes staged.
        change_while_away(conn, back)
        with self.assertRaises(lamina.Reconnecting):
            conn.commit()
        with self.assertRaises(lamina.Reconnecting):
            conn.ping()

        # Several tries fail before B exists: the connection keeps trying.
        time.sleep(0.4)
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        self.daemon()
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        self.assertFalse(conn.is_reconnecting)
        conn.commit()                                # the change made while away

        # The reference: daemon C, never killed, the same model and change.
        c = self.daemon(os.path.join(self.dir, "reference.sock"))
        ref = lamina.connect(c.socket, "reference")
        self.addCleanup(ref.close)
        ref_back, _, _ = build(ref)
        change_while_away(ref, ref_back)
        ref.commit()

        # B's replay came at B's time 0 with the slide 0.5 s in: B at 0.3 is C at 0.8.
        from_b = conn.capture(0.3).png
        mean, off = pixel_difference(from_b, ref.capture(0.8).png)
        self.assertLessEqual(mean, 1.0)
        self.assertLessEqual(off, 0.5)
        # The comparison can fail: had the animations restarted from zero, B at 0.3 would be C at 0.3.
        mean, off = pixel_difference(from_b, ref.capture(0.3).png)
        self.assertGreater(off, 0.5)

        # The removed layer is not resurrected; the others keep their model values.
        with self.assertRaises(lamina.RequestFailed) as cm:
            conn.presentation_value(removed.id, "opacity")
        self.assertEqual(cm.exception.code, lamina.ErrorCode.UNKNOWN_LAYER)
        self.assertEqual(conn.presentation_value(moving, "position.y"), 200.0)
        self.assertEqual(conn.presentation_value(moving, "position.x"), 40.0 + 320.0 * 0.5 / 2.0)
        # The released image was released in B too: its name is free again; the kept one is not.
        conn.upload_image_rgba(bytes(4), 1, 1, "stamp")
        with self.assertRaises(lamina.RequestFailed) as cm:
            conn.upload_image_rgba(bytes(4), 1, 1, "checker")
        self.assertEqual(cm.exception.code, lamina.ErrorCode.DUPLICATE_IMAGE)

    def test_surfaces_image_files_and_drawn_tiles_show_the_same_pixels_after_a_restart(self):
        """Issue 24: a surface's pool and last attached buffer, a PNG file named by descriptor
        (the file unlinked before the restart) and a client-drawn tiled image are replayed; B
        shows what A showed, each checked against its own source pixels too."""
        from test_image_files import color as file_color, rgb_png
        from test_surfaces import draw, pattern

        a = self.daemon()
        conn = lamina.connect(self.path, "pixels", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        conn.set_disable_actions(True)
        surface = conn.make_surface_layer()
        surface.frame = (10, 20, 24, 16)
        conn.root.add_sublayer(surface)
        surface.make_buffers(24, 16, count=2)
        first = surface.next_buffer()
        draw(first, 1)
        surface.present(first)
        conn.commit()
        second = surface.next_buffer()
        draw(second, 2)
        surface.present(second)                      # the last attached: pattern 2
        conn.commit()
        with tempfile.NamedTemporaryFile(suffix=".png") as f:
            f.write(rgb_png(40, 30))
            f.flush()
            conn.open_image_file(f.name, name="file")
        tiled_layer(conn, "file", (50, 20, 40, 30), 16)
        asked = []
        lock = threading.Lock()

        def provider(request, memory):
            with lock:
                asked.append(request)
            memory[:] = bytes((40 + 60 * request.column, 40 + 60 * request.row, 220, 255)) * (request.width * request.height)
            return True

        conn.create_tiled_image("drawn", 128, 64, provider)
        tiled_layer(conn, "drawn", (100, 20, 128, 64), 64)
        conn.commit()
        # Canvas point → the colour its source gives (independent of the daemon).
        want = {(10 + x, 20 + y): pattern(x, y, 2) for x, y in ((0, 0), (23, 15), (7, 9))}
        want.update({(50 + x, 20 + y): file_color(x, y) for x, y in ((0, 0), (39, 29), (17, 3))})
        want.update({(100 + x, 20 + y): (40 + 60 * (x // 64), 40 + 60 * (y // 64), 220) for x, y in ((5, 5), (70, 60))})

        def settled():
            deadline = time.monotonic() + 20
            while True:
                png = conn.capture().png
                _, _, rows = png_pixels(png)
                got = {p: tuple(rows[p[1]][p[0] * 4:p[0] * 4 + 3]) for p in want}
                if all(max(abs(g - w) for g, w in zip(got[p], want[p])) <= 2 for p in want):
                    return png
                self.assertLess(time.monotonic(), deadline, got)
                time.sleep(0.05)

        before = settled()
        with lock:
            asked_before = len(asked)
        a.kill()
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        self.daemon()
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        after = settled()
        mean, off = pixel_difference(before, after)
        self.assertLessEqual(mean, 1.0)
        self.assertLessEqual(off, 0.5)
        with lock:
            self.assertGreater(len(asked), asked_before, "the new daemon asked for the tiles again")
        # The buffer attached again is released by B; the ring goes on.
        deadline = time.monotonic() + 5
        while second.busy or first.busy:
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.01)
        third = surface.next_buffer()
        draw(third, 3)
        surface.present(third)
        conn.commit()
        _, _, rows = png_pixels(conn.capture().png)
        self.assertEqual(tuple(rows[20 + 9][(10 + 7) * 4:(10 + 7) * 4 + 3]), pattern(7, 9, 3))

    def test_changes_staged_after_a_failed_commit_keep_their_own_settings(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "settings", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        layer = conn.make_layer()
        layer.bounds = (0, 0, 10, 10)
        conn.root.add_sublayer(layer)
        conn.commit()
        a.kill()
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        conn.set_disable_actions(True)
        layer.position = (50, 50)                    # no implicit animation
        with self.assertRaises(lamina.Reconnecting):
            conn.commit()
        layer.opacity = 0.0                          # the default settings: 0.25 s easeInEaseOut
        self.daemon()
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        conn.commit()
        conn.advance_clock(0.125)                    # halfway: easeInEaseOut is symmetric
        self.assertAlmostEqual(conn.presentation_value(layer, "opacity"), 0.5, places=9)
        self.assertEqual(tuple(conn.presentation_value(layer, "position")), (50.0, 50.0))

    def test_under_the_realtime_clock_animations_go_on_by_this_processs_clock(self):
        """The timeline is this process's monotonic clock: after a restart an animation is where
        the time since its commit puts it (the time the daemon was away included)."""
        a = Daemon(clock="realtime", socket_path=self.path)
        self.addCleanup(a.stop)
        conn = lamina.connect(self.path, "realtime", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        layer = conn.make_layer()
        conn.root.add_sublayer(layer)
        layer.add(BasicAnimation("position.x", 0.0, 1000.0, duration=100.0), "x")
        before_commit = time.monotonic()
        conn.commit()
        after_commit = time.monotonic()
        time.sleep(0.3)
        a.kill()
        time.sleep(0.3)
        b = Daemon(clock="realtime", socket_path=self.path)
        self.addCleanup(b.stop)
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        before_query = time.monotonic()
        x = conn.presentation_value(layer, "position.x")
        after_query = time.monotonic()
        # 10 points a second: x / 10 seconds since the commit, within the query's span.
        low, high = before_query - after_commit - 0.05, after_query - before_commit + 0.05
        self.assertTrue(low <= x / 10 <= high, (x / 10, low, high))
        self.assertGreater(low, 0.55)               # far from a restart from zero

    def test_callbacks_continue_on_the_replayed_animation(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "callbacks", reconnect=QUICK)
        self.addCleanup(conn.close)
        changes = Recorder(conn)
        stream = conn.events()
        seen = []
        build(conn, on_start=lambda: seen.append("start"), on_stop=lambda f: seen.append("stop %s" % f),
              completion=lambda: seen.append("completion"))
        conn.advance_clock(1.5)
        conn.hit_test((1, 1))                        # answered from a frame after the commit's
        conn.drain_events(5)
        self.assertEqual(seen, ["start"])
        a.kill()
        self.daemon()
        self.assertEqual(changes.wait(2, 15), ["ConnectionLost", "Reconnected"])
        # 0.5 s of the slide is left: not over at 0.4, over at 0.6 — once, not started again.
        conn.advance_clock(0.4)
        conn.hit_test((1, 1))
        conn.drain_events(5)
        self.assertEqual(seen, ["start"])
        conn.advance_clock(0.2)
        conn.hit_test((1, 1))
        conn.drain_events(5)
        self.assertEqual(seen, ["start", "stop True", "completion"])
        conn.close()
        names = []
        for e in stream:
            if isinstance(e, (AnimationStarted, AnimationStopped)):
                names.append("%s %s" % (type(e).__name__, e.key))
            elif isinstance(e, (ConnectionLost, Reconnected, Disconnected)):
                names.append(type(e).__name__)
        # The replayed animations' second AnimationStarted is not delivered.
        self.assertEqual(names, ["AnimationStarted ", "AnimationStarted slide", "ConnectionLost", "Reconnected",
                                 "AnimationStopped slide", "Disconnected"])

    def test_a_transaction_written_before_the_restart_is_written_again(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "rewrite", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        layer = conn.make_layer()
        conn.root.add_sublayer(layer)
        layer.opacity = 0.25
        conn.flush()                                 # written to A, staged there, never committed
        a.kill()
        self.daemon()
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        layer.bounds = (0, 0, 10, 10)
        conn.commit()
        self.assertEqual(conn.presentation_value(layer, "opacity"), 0.25)
        self.assertEqual(conn.presentation_value(layer, "bounds.size.width"), 10.0)

    def test_gives_up_after_its_limit_then_raises_disconnected(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "gives-up",
                              reconnect=lamina.Reconnect(initial_delay=0.02, max_delay=0.05, give_up_after=0.3))
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        start = time.monotonic()
        a.kill()
        self.assertEqual(seen.wait(2), ["ConnectionLost", "Disconnected"])
        took = time.monotonic() - start
        self.assertTrue(0.3 <= took < 3, took)
        self.assertTrue(conn.wait_until_closed(5))
        with self.assertRaises(lamina.Disconnected):
            conn.ping()

    def test_a_daemon_that_refuses_the_replay_ends_the_connection(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "refused", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        for _ in range(3):
            conn.root.add_sublayer(conn.make_layer())
        conn.commit()
        a.kill()
        b = Daemon(socket_path=self.path, config={"maxLayersPerClient": 2})
        self.addCleanup(b.stop)
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Disconnected"])
        self.assertEqual([e.code for e in conn.pending_errors], [lamina.ErrorCode.LIMIT_EXCEEDED])
        with self.assertRaises(lamina.Disconnected):
            conn.ping()

    def test_backoff_doubles_to_its_cap(self):
        self.assertEqual(lamina.Reconnect().delays(8), [0.05, 0.1, 0.2, 0.4, 0.8, 1.6, 2.0, 2.0])
        self.assertEqual(lamina.Reconnect(0.3, 1.0).delays(4), [0.3, 0.6, 1.0, 1.0])
        self.assertEqual(lamina.Reconnect(0).delays(3), [0.001, 0.002, 0.004])   # never a busy loop
        self.assertIsNone(lamina.Reconnect().give_up_after)

    def test_without_reconnection_the_daemons_end_is_the_connections_end(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "plain")
        self.addCleanup(conn.close)
        self.assertIsNone(conn.reconnect)
        seen = Recorder(conn)
        layer = conn.make_layer()
        conn.root.add_sublayer(layer)
        conn.commit()
        a.kill()
        self.assertEqual(seen.wait(1), ["Disconnected"])
        layer.opacity = 0.5
        with self.assertRaises(lamina.Disconnected):
            conn.commit()
        self.daemon()                                # a daemon back on the path changes nothing
        time.sleep(0.2)
        self.assertEqual(seen.wait(1), ["Disconnected"])

    def test_a_commit_waiting_when_the_daemon_dies_raises_disconnected_and_is_staged_again(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "pending", reconnect=QUICK)
        self.addCleanup(conn.close)
        seen = Recorder(conn)
        layer = conn.make_layer()
        conn.root.add_sublayer(layer)
        layer.opacity = 0.25
        os.kill(a.process.pid, 19)                   # SIGSTOP: the commit's reply never comes
        stopped(a.process.pid)
        result = []
        t = threading.Thread(target=lambda: result.append(outcome(conn.commit)))
        t.start()
        time.sleep(0.2)
        self.assertEqual(result, [])
        a.kill()
        t.join(5)
        self.assertEqual(result, ["Disconnected"])
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        # Nothing committed is lost: the commit's changes were staged again, and go to B.
        self.daemon()
        self.assertEqual(seen.wait(2, 15), ["ConnectionLost", "Reconnected"])
        conn.commit()
        self.assertEqual(conn.presentation_value(layer, "opacity"), 0.25)

    def test_close_while_a_daemon_hangs_before_its_welcome_ends_the_connection_at_once(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "hung", reconnect=QUICK)
        seen = Recorder(conn)
        a.kill()
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        # A socket that accepts (the kernel's backlog) and never answers: a daemon hung before
        # its welcome.
        os.unlink(self.path)
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.addCleanup(listener.close)
        listener.bind(self.path)
        listener.listen(8)
        time.sleep(0.5)                              # the connection is waiting for a welcome now
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        start = time.monotonic()
        conn.close()
        self.assertEqual(seen.wait(2), ["ConnectionLost", "Disconnected"])
        self.assertLess(time.monotonic() - start, 1)

    def test_close_while_reconnecting_ends_the_connection_at_once(self):
        a = self.daemon()
        conn = lamina.connect(self.path, "close", reconnect=True)
        self.assertEqual(conn.reconnect, lamina.Reconnect())
        seen = Recorder(conn)
        a.kill()
        self.assertEqual(seen.wait(1), ["ConnectionLost"])
        start = time.monotonic()
        conn.close()
        self.assertEqual(seen.wait(2), ["ConnectionLost", "Disconnected"])
        self.assertLess(time.monotonic() - start, 1)
        with self.assertRaises(lamina.Disconnected):
            conn.ping()

if __name__ == "__main__":
    unittest.main()
