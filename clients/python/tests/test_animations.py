"""Animations against a real laminad: the presentation value mid-animation equals the timing
curve's value computed here, independently of the daemon."""
import math
import unittest

from support import DaemonTestCase, catmull_rom, cubic_bezier, spring_position

import lamina
from lamina import BasicAnimation, Keyframe, Phase


class ImplicitAnimationTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.layer = self.square()
        self.conn.commit()

    def test_transaction_settings_drive_the_implicit_animation(self):
        with self.conn.transaction(duration=2.0, timing="linear"):
            self.layer.opacity = 0.0
        self.assertEqual(self.layer.opacity, 0.0)   # the model value at once
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.75, places=9)
        self.conn.advance_clock(1.5)
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.0, places=9)

    def test_default_transaction_is_a_quarter_second_ease_in_ease_out(self):
        self.layer.position = (250, 50)   # from 50: 200 points
        self.conn.commit()
        self.conn.advance_clock(0.1)
        expected = 50 + 200 * cubic_bezier(0.42, 0, 0.58, 1, 0.1 / 0.25)
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), expected, delta=1e-3)

    def test_custom_bezier_timing(self):
        with self.conn.transaction(duration=1.0, timing=(0.1, 0.7, 0.3, 1.0)):
            self.layer.bounds = (0, 0, 300, 100)
        self.conn.advance_clock(0.3)
        expected = 100 + 200 * cubic_bezier(0.1, 0.7, 0.3, 1.0, 0.3)
        self.assertAlmostEqual(self.layer.presentation_value("bounds.size.width"), expected, delta=1e-3)

    def test_disable_actions_and_nested_settings(self):
        with self.conn.transaction(duration=1.0, timing="linear"):
            self.layer.opacity = 0.5                        # animates over 1 s
            with self.conn.transaction(disable_actions=True):
                self.layer.corner_radius = 10.0             # jumps
            self.layer.border_width = 4.0                   # the outer settings again
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.75, places=9)
        self.assertEqual(self.layer.presentation_value("cornerRadius"), 10.0)
        self.assertAlmostEqual(self.layer.presentation_value("borderWidth"), 2.0, places=9)

    def test_steps_timing(self):
        with self.conn.transaction(duration=1.0, timing=lamina.TimingFunction.steps(4, "end")):
            self.layer.opacity = 0.0
        self.conn.advance_clock(0.6)   # 2 of 4 steps done
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.5, places=9)


class ExplicitAnimationTests(DaemonTestCase):
    def setUp(self):
        super().setUp()
        self.layer = self.square()
        self.conn.commit()

    def present(self, key_path, at):
        """Advances the clock to ``at`` seconds after the commit and asks the presentation."""
        self.conn.advance_clock(at - self.elapsed)
        self.elapsed = at
        return self.layer.presentation_value(key_path)

    def add(self, animation, key="a"):
        self.layer.add(animation, key=key)
        self.conn.commit()
        self.elapsed = 0.0

    def test_basic(self):
        self.add(BasicAnimation("position.x", from_value=0, to_value=200, duration=1.0,
                                timing_function="easeInEaseOut"))
        for t in (0.1, 0.3, 0.5, 0.8):
            self.assertAlmostEqual(self.present("position.x", t), 200 * cubic_bezier(0.42, 0, 0.58, 1, t), delta=1e-3)
        self.assertEqual(self.present("position.x", 1.5), 50.0)   # removed: the model value

    def test_basic_by_additive_repeat_and_fill(self):
        self.add(BasicAnimation("position.y", by_value=100, duration=0.5, repeat_count=2, autoreverses=True,
                                fill_mode="forwards", removed_on_completion=False))
        self.assertAlmostEqual(self.present("position.y", 0.25), 100.0, places=6)   # halfway there
        self.assertAlmostEqual(self.present("position.y", 0.75), 100.0, places=6)   # halfway back
        self.assertAlmostEqual(self.present("position.y", 2.5), 50.0, places=6)     # held at the end (back)

    def test_color_interpolates_premultiplied(self):
        # docs/protocol.md: from red to half-transparent blue, halfway (0.667, 0, 0.333, 0.75).
        self.add(BasicAnimation("backgroundColor", from_value=(1, 0, 0, 1), to_value=(0, 0, 1, 0.5), duration=1.0))
        c = self.present("backgroundColor", 0.5)
        premul = [(1 * 1 + 0) / 2, 0, (0 + 1 * 0.5) / 2]
        alpha = 0.75
        for got, want in zip(c, [premul[0] / alpha, 0, premul[2] / alpha, alpha]):
            self.assertAlmostEqual(got, want, places=6)

    def test_keyframe_linear_and_cubic(self):
        self.add(lamina.KeyframeAnimation("position.x", values=[0, 10, 30], key_times=[0, 0.25, 1], duration=1.0))
        self.assertAlmostEqual(self.present("position.x", 0.125), 5.0, places=6)
        self.assertAlmostEqual(self.present("position.x", 0.625), 20.0, places=6)
        self.add(lamina.KeyframeAnimation("position.x", values=[0, 10, 30], calculation_mode="cubic", duration=2.0), key="b")
        for t in (0.25, 1.3):
            self.assertAlmostEqual(self.present("position.x", t), catmull_rom([0, 10, 30], t / 2.0), places=6)

    def test_keyframe_discrete(self):
        self.add(lamina.KeyframeAnimation("opacity", values=[0.2, 0.6, 0.9], calculation_mode="discrete", duration=3.0))
        self.assertAlmostEqual(self.present("opacity", 0.5), 0.2, places=9)
        self.assertAlmostEqual(self.present("opacity", 1.5), 0.6, places=9)
        self.assertAlmostEqual(self.present("opacity", 2.5), 0.9, places=9)

    def test_spring(self):
        self.add(lamina.SpringAnimation("position.x", from_value=0, to_value=100, mass=1, stiffness=100, damping=10,
                                        initial_velocity=2))
        for t in (0.05, 0.2, 0.4, 0.9):
            self.assertAlmostEqual(self.present("position.x", t), 100 * spring_position(1, 100, 10, 2, t), delta=1e-6)

    def test_spring_from_perceptual_duration(self):
        d, b = 0.6, 0.2
        self.add(lamina.SpringAnimation("opacity", from_value=0, to_value=1, perceptual_duration=d, bounce=b))
        k = (2 * math.pi / d) ** 2
        c = 4 * math.pi * (1 - b) / d
        for t in (0.1, 0.3):
            self.assertAlmostEqual(self.present("opacity", t), spring_position(1, k, c, 0, t), delta=1e-6)

    def test_group(self):
        self.add(lamina.AnimationGroup([
            BasicAnimation("opacity", from_value=0, to_value=1, duration=0.5),
            BasicAnimation("position.x", from_value=0, to_value=100, duration=2.0),
        ], duration=1.0))
        self.assertAlmostEqual(self.present("opacity", 0.25), 0.5, places=9)
        self.assertAlmostEqual(self.present("position.x", 0.25), 12.5, places=9)
        self.assertAlmostEqual(self.present("opacity", 0.75), 1.0, places=9)        # the child ended: model value
        self.assertAlmostEqual(self.present("position.x", 0.75), 37.5, places=9)
        self.assertAlmostEqual(self.present("position.x", 1.25), 50.0, places=9)     # clipped to the group

    def test_keyframes_tracks(self):
        self.add(lamina.KeyframesAnimation({
            "position.x": [Keyframe.linear(150, 1.0), Keyframe.linear(250, 1.0)],
            "opacity": [Keyframe.move(0.5), Keyframe.linear(0.0, 0.5)],
        }))
        self.assertAlmostEqual(self.present("opacity", 0.25), 0.25, places=6)
        self.assertAlmostEqual(self.present("position.x", 0.5), 100.0, places=6)     # from the underlying 50
        self.assertAlmostEqual(self.present("position.x", 1.5), 200.0, places=6)
        self.assertAlmostEqual(self.present("opacity", 1.5), 0.0, places=6)          # a short track holds

    def test_phases(self):
        self.add(lamina.PhaseAnimation([
            Phase({"opacity": 0.0}),
            Phase({"opacity": 1.0, "position.x": 150}, animation="linear", duration=1.0),
        ], repeat=False))
        self.assertAlmostEqual(self.present("opacity", 0.5), 0.5, places=6)
        self.assertAlmostEqual(self.present("position.x", 0.5), 100.0, places=6)   # from the underlying 50

    def test_expression(self):
        other = self.square(x=100, y=200, color="#00ff00")
        self.conn.commit()
        self.layer.add(lamina.ExpressionAnimation("opacity", "src.position.x / 400", layers={"src": other}), key="e")
        self.conn.commit()
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.25, places=9)
        with self.conn.transaction(disable_actions=True):
            other.position = (300, 200)
        self.assertAlmostEqual(self.layer.presentation_value("opacity"), 0.75, places=9)
        self.layer.remove_animation("e")
        self.conn.commit()
        self.assertEqual(self.layer.presentation_value("opacity"), 1.0)

    def test_remove_all_animations(self):
        self.add(BasicAnimation("opacity", from_value=0, to_value=1, duration=10.0))
        self.assertAlmostEqual(self.present("opacity", 1.0), 0.1, places=9)
        self.layer.remove_all_animations()
        self.conn.commit()
        self.assertEqual(self.layer.presentation_value("opacity"), 1.0)

    def test_path_animation_and_transform_components(self):
        shape = self.conn.make_shape_layer()
        shape.path = lamina.Path.rect((0, 0, 10, 10))
        self.conn.root.add_sublayer(shape)
        self.conn.commit()
        shape.add(BasicAnimation("path", from_value=lamina.Path.rect((0, 0, 10, 10)),
                                 to_value=lamina.Path.rect((0, 0, 30, 50)), duration=1.0))
        shape.add(BasicAnimation("transform.rotation.z", from_value=0, to_value=math.pi, duration=1.0), key="spin")
        self.conn.commit()
        self.conn.advance_clock(0.5)
        p = shape.presentation_value("path")
        self.assertEqual([e.op for e in p.elements], ["move", "line", "line", "line", "close"])
        self.assertEqual(p.elements[2].points[0], lamina.Point(20, 30))
        self.assertAlmostEqual(shape.presentation_value("transform.rotation.z"), math.pi / 2, places=9)


if __name__ == "__main__":
    unittest.main()


class LayerTimeTests(DaemonTestCase):
    """speed, time_offset and begin_time (CAMediaTiming on layers): a layer's local time is
    (superlayer's local time - begin_time) * speed + time_offset; values worked out by hand."""

    def setUp(self):
        super().setUp()
        self.parent = self.square(x=0, y=0, size=10)
        self.layer = self.conn.make_layer()
        self.layer.bounds = (0, 0, 10, 10)
        self.parent.add_sublayer(self.layer)
        self.conn.commit()

    def test_convert_time_composes_the_superlayers(self):
        self.parent.begin_time = 0.5
        self.parent.speed = 2
        self.layer.speed = 0.5
        self.layer.time_offset = 1
        self.assertAlmostEqual(self.layer.convert_time(2.0), 2.5)                 # ((2 - .5)*2)*.5 + 1
        self.assertAlmostEqual(self.layer.convert_time(3.0, self.parent), 2.5)    # 3 * .5 + 1
        self.assertAlmostEqual(self.layer.convert_time_to(2.5), 2.0)
        self.assertAlmostEqual(self.layer.convert_time_to(2.5, self.parent), 3.0)

    def test_qa1673_pause_and_resume(self):
        """Apple's Technical Q&A QA1673: pause with time_offset = convert_time(now), speed 0;
        resume with speed 1, time_offset 0, begin_time 0, then begin_time = convert_time(now) -
        paused."""
        self.layer.add(BasicAnimation("position.x", from_value=0, to_value=100, duration=2.0,
                                      timing_function="linear"), key="m")
        self.conn.commit()
        self.conn.advance_clock(1.0)
        paused = self.parent.convert_time(self.conn.current_time())
        self.parent.speed = 0
        self.parent.time_offset = paused
        self.conn.commit()
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), 50.0, places=6)
        self.conn.advance_clock(5.0)
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), 50.0, places=6)
        paused = self.parent.time_offset
        self.parent.speed = 1
        self.parent.time_offset = 0
        self.parent.begin_time = 0
        self.parent.begin_time = self.parent.convert_time(self.conn.current_time()) - paused
        self.conn.commit()
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), 50.0, places=6)
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), 75.0, places=6)

    def test_speed_two_finishes_in_half_the_time(self):
        self.parent.speed = 2
        self.conn.commit()
        self.layer.add(BasicAnimation("position.x", from_value=0, to_value=100, duration=2.0,
                                      timing_function="linear"), key="m")
        self.conn.commit()
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(self.layer.presentation_value("position.x"), 50.0, places=6)
        self.conn.advance_clock(0.6)
        self.assertEqual(self.layer.presentation_value("position.x"), 0.0)   # removed: the model value
