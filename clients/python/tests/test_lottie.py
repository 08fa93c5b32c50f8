"""Lottie playback and dynamic properties through ``lamina.LottiePlayer`` against the daemon on
the manual clock. The file is a box whose x is its frame number (0 → 60 linearly over frames
0…60 at 30 fps), so the frame shown is read off its position and compared with the frame each
control's definition gives (docs/protocol.md, "Lottie playback"); its fill turns from red to
blue over the same frames."""
import json
import os
import tempfile
import threading
import unittest

from support import REPO, DaemonTestCase

import lamina

FILL = {"ty": "fl", "nm": "Fill 1", "c": {"a": 1, "k": [{"t": 0, "s": [1, 0, 0, 1]}, {"t": 60, "s": [0, 0, 1, 1]}]},
        "o": {"a": 0, "k": 100}, "r": 1}
SQUARE = {"ty": "rc", "p": {"a": 0, "k": [0, 0]}, "s": {"a": 0, "k": [20, 20]}, "r": {"a": 0, "k": 0}}
FILE = {"v": "5.7.4", "fr": 30, "ip": 0, "op": 60, "w": 200, "h": 200, "assets": [],
        "markers": [{"cm": "intro", "tm": 10, "dr": 20}, {"cm": "end", "tm": 40, "dr": 5}],
        "layers": [{"ty": 4, "nm": "Box", "ind": 1, "ip": 0, "op": 60, "st": 0,
                    "ks": {"o": {"a": 0, "k": 100},
                           "p": {"a": 1, "k": [{"t": 0, "s": [0, 100]}, {"t": 60, "s": [60, 100]}]}},
                    "shapes": [{"ty": "gr", "nm": "Group 1", "it": [SQUARE, FILL]}]}]}

LAMINACTL = os.environ.get("LAMINACTL") or os.path.join(REPO, ".build", "debug", "laminactl")


class LottieTestCase(DaemonTestCase):
    def setUp(self):
        super().setUp()
        if not os.path.exists(LAMINACTL):
            raise unittest.SkipTest("no laminactl at %s (build it, or set LAMINACTL)" % LAMINACTL)
        fd, self.path = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(FILE, f)
        self.addCleanup(os.remove, self.path)

    def player(self, **options):
        return lamina.LottiePlayer(self.conn, self.path, laminactl=LAMINACTL, **options)

    def shown(self, player):
        self.conn.hit_test((0, 0))   # a frame at the clock's time first
        return player.names["Box"].presentation_value("position.x")

    def expect_frame(self, player, frame, what):
        self.assertAlmostEqual(self.shown(player), frame, delta=1e-6, msg=what)


class PlaybackTests(LottieTestCase):
    def test_play_pause_seek_speed_backwards_and_completion(self):
        # Layers made before the file keep their ids: the file's are numbered after them.
        before = self.square()
        p = self.player(loop_mode="play_once")
        self.assertIs(p.root.superlayer, self.conn.root)
        self.assertEqual(p.names["lottie"], p.root)
        self.assertGreater(p.root.id, before.id)
        done = []
        event = threading.Event()
        p.on_completion(lambda finished: (done.append(finished), event.set()))
        self.conn.advance_clock(0.5)
        self.expect_frame(p, 15, "0.5 s at 30 fps")
        p.pause()
        self.assertFalse(p.is_playing)
        self.conn.advance_clock(0.5)
        self.expect_frame(p, 15, "paused")
        p.seek(frame=40)
        self.conn.advance_clock(0.1)
        self.expect_frame(p, 40, "seeked while paused")
        p.play(speed=-1)
        self.conn.advance_clock(0.5)
        self.expect_frame(p, 25, "backwards: 40 − 15")
        p.seek(progress=0.5)
        p.set_speed(2)
        self.conn.advance_clock(0.25)
        self.expect_frame(p, 45, "double speed from the middle: 30 + 15")
        self.assertAlmostEqual(p.current_frame(), 45, delta=1e-6)
        self.assertEqual(done, [])
        # 15 frames left at 60 a second: it ends 0.25 s later and holds the last frame.
        self.conn.advance_clock(0.3)
        self.expect_frame(p, 60, "held at the end")
        self.assertTrue(event.wait(5))
        self.assertEqual(done, [True])

    def test_loop_modes(self):
        cases = [("loop", [(0.5, 15), (2.5, 15)]),           # 2.5 s = one 2 s cycle + 15 frames
                 ("auto_reverse", [(0.5, 15), (2.5, 45)]),   # back from 60 for 0.5 s
                 (("repeat", 1.5), [(2.5, 15), (4.0, 30)])]  # stops half way through the second pass
        for mode, pairs in cases:
            with self.subTest(mode=mode):
                p = self.player(loop_mode=mode)
                elapsed = 0.0
                for t, frame in pairs:
                    self.conn.advance_clock(t - elapsed)
                    elapsed = t
                    self.expect_frame(p, frame, "%s at %s s" % (mode, t))
                p.root.remove_from_superlayer()
                self.conn.commit()

    def test_ranges_by_frames_and_markers(self):
        p = self.player(loop_mode="play_once", from_frame=20, to_frame=50)
        self.expect_frame(p, 20, "starts at its first frame")
        self.conn.advance_clock(0.5)
        self.expect_frame(p, 35, "20 + 15")
        self.conn.advance_clock(5)
        self.expect_frame(p, 50, "held at its last frame")
        p.root.remove_from_superlayer()
        # The marker "intro": frames 10 … 30.
        q = self.player(loop_mode="play_once", from_marker="intro")
        self.conn.advance_clock(0.5)
        self.expect_frame(q, 25, "10 + 15")
        self.conn.advance_clock(5)
        self.expect_frame(q, 30, "the marker's end")
        # From "intro" to "end": frames 10 … 40, looping.
        r = self.player(from_marker="intro", to_marker="end")
        self.conn.advance_clock(1.5)
        self.expect_frame(r, 25, "one 1 s pass, then 15 frames")

    def test_autoplay_off_starts_paused(self):
        p = self.player(autoplay=False)
        self.conn.advance_clock(1)
        self.expect_frame(p, 0, "paused at the start")
        p.play()
        self.conn.advance_clock(0.5)
        self.expect_frame(p, 15, "then plays")

    def test_bad_input(self):
        with self.assertRaises(ValueError):
            self.player(loop_mode="sometimes")
        with self.assertRaises(ValueError):
            self.player(loop_mode=("repeat", -1))
        with self.assertRaises(lamina.LottieError) as e:
            self.player(from_marker="nowhere")
        self.assertIn("nowhere", str(e.exception))
        fd, broken = tempfile.mkstemp(suffix=".json")
        with os.fdopen(fd, "w") as f:
            json.dump(dict(FILE, layers=[{"ty": 4, "nm": "X", "ind": 1, "ks": {"p": {"a": 1, "k": [{"t": 5}, {"t": 1}]}}}]), f)
        self.addCleanup(os.remove, broken)
        with self.assertRaises(lamina.LottieError) as e:
            lamina.LottiePlayer(self.conn, broken, laminactl=LAMINACTL)
        self.assertIn("layers[0]", str(e.exception))
        with self.assertRaises(lamina.LottieError):
            lamina.LottiePlayer(self.conn, self.path, laminactl="/nonexistent/laminactl")


class DynamicPropertyTests(LottieTestCase):
    def test_colour_by_key_path_with_wildcards_live(self):
        p = self.player()
        self.conn.advance_clock(0.5)
        p.set_value("**.Fill 1.Color", [0, 1, 0])
        self.conn.advance_clock(0.2)
        self.conn.hit_test((0, 0))
        fill = p.names["Box/Fill 1"].presentation_value("fillColor")
        self.assertEqual(tuple(round(c, 6) for c in fill), (0, 1, 0, 1))
        self.expect_frame(p, 21, "the move goes on in step")

    def test_layer_transform_and_opacity(self):
        p = self.player(autoplay=False)
        p.set_value("Box.Position", [7, 9])
        p.set_value("*.Rotation", 90)
        p.set_value("Box.Opacity", 50)
        self.conn.advance_clock(0.1)
        self.conn.hit_test((0, 0))
        box = p.names["Box"]
        self.assertAlmostEqual(box.presentation_value("position.x"), 7, delta=1e-9)
        self.assertAlmostEqual(box.presentation_value("position.y"), 9, delta=1e-9)
        self.assertAlmostEqual(box.presentation_value("transform.rotation.z"), 1.5707963267948966, delta=1e-9)
        self.assertAlmostEqual(box.presentation_value("opacity"), 0.5, delta=1e-9)

    def test_errors_name_the_key_path(self):
        p = self.player()
        with self.assertRaises(lamina.LottieError) as e:
            p.set_value("**.Stroke 9.Color", [1, 0, 0])
        self.assertIn("Stroke 9", str(e.exception))
        with self.assertRaises(lamina.LottieError):
            p.set_value("**.Fill 1.Color", [1])
        with self.assertRaises(lamina.LottieError):
            p.set_value("Box.Fill 1.Color", [1, 0, 0])   # "Group 1" lies between


if __name__ == "__main__":
    unittest.main()
