"""Values, timing functions and animations' JSON, without a daemon."""
import json
import math
import unittest

import support  # noqa: F401  (puts the package on the path)

import lamina
from lamina import BasicAnimation, Color, Keyframe, Path, Point, TimingFunction, Transform3D
from lamina import _wire


class ValueTests(unittest.TestCase):
    def test_colors(self):
        self.assertEqual(Color.hex("#f00"), Color(1, 0, 0, 1))
        self.assertEqual(Color.hex("#00ff0080"), Color(0, 1, 0, 128 / 255))
        with self.assertRaises(ValueError):
            Color.hex("#12345")

    def test_transforms(self):
        t = Transform3D.translation(10, 20).concat(Transform3D.scale(2))
        self.assertEqual(t.apply(1, 1), (22.0, 42.0, 0.0))
        r = Transform3D.rotation(math.pi / 2)
        x, y, _ = r.apply(1, 0)
        self.assertAlmostEqual(x, 0, places=12)
        self.assertAlmostEqual(y, 1, places=12)   # clockwise on a y-down screen
        self.assertTrue(Transform3D.identity().is_identity)

    def test_paths(self):
        p = Path().move_to(0, 0).line_to(10, 0).quad_to(10, 10, 0, 10).close()
        self.assertEqual(p.svg(), "M 0.0 0.0 L 10.0 0.0 Q 10.0 10.0 0.0 10.0 Z")
        decoded = _wire.Reader(_wire.value("path", p)).value()
        self.assertEqual(decoded, p)
        self.assertEqual(len(Path.ellipse((0, 0, 10, 10)).elements), 6)

    def test_values_round_trip_through_the_wire_format(self):
        for kind, v in [("number", 1.5), ("point", Point(1, 2)), ("rect", lamina.Rect(1, 2, 3, 4)),
                        ("color", None), ("color", Color(0.1, 0.2, 0.3, 0.4)), ("bool", True),
                        ("numbers", [1.0, 2.0]), ("colors", [Color(1, 0, 0, 1)]), ("transform", Transform3D()),
                        ("text", lamina.StyledText((lamina.TextRun("a", font="Serif", font_size=3.0,
                                                                    color=Color(1, 1, 1, 1)),))),
                        ("path", lamina.PathTemplate("rect(0, 0, w, h)")),
                        ("filters", [lamina.Filter("gaussianBlur", radius=2.5, name="b"),
                                     lamina.Filter("colorMatrix", matrix=tuple(float(i) for i in range(20))),
                                     lamina.Filter("invert", amount=0.25)]),
                        ("emitterCells", [lamina.EmitterCell(name="a", contents="spark", color="#ff8000",
                                                             emitterCells=[lamina.EmitterCell(lifetime=0.5)])])]:
            self.assertEqual(_wire.Reader(_wire.value(kind, v)).value(), v, kind)


class AnimationJSONTests(unittest.TestCase):
    def test_basic(self):
        a = BasicAnimation("position", from_value=(0, 0), to_value=Point(10, 20), duration=0.5,
                           timing_function="easeOut", repeat_count=math.inf, fill_mode="both", essential=False)
        self.assertEqual(json.loads(a.to_json()), {
            "type": "basic", "keyPath": "position", "from": [0, 0], "to": [10.0, 20.0], "duration": 0.5,
            "timingFunction": "easeOut", "repeatCount": "infinity", "fillMode": "both", "essential": False})

    def test_values_of_every_kind(self):
        a = BasicAnimation("backgroundColor", to_value=Color(1, 0, 0, 1), timing_function=[0.1, 0.2, 0.3, 0.4])
        self.assertEqual(a.to_dict()["to"], [1, 0, 0, 1])
        self.assertEqual(a.to_dict()["timingFunction"], [0.1, 0.2, 0.3, 0.4])
        self.assertEqual(BasicAnimation("path", to_value=Path.rect((0, 0, 1, 1))).to_dict()["to"],
                         "M 0.0 0.0 L 1.0 0.0 L 1.0 1.0 L 0.0 1.0 Z")
        with self.assertRaises(ValueError):
            BasicAnimation("opacity", to_value=math.nan).to_json()

    def test_timing_functions(self):
        self.assertEqual(TimingFunction.named("smooth").json(), "smooth")
        m, k, c, v = TimingFunction.named("smooth").args
        self.assertEqual((m, v), (1.0, 0.0))
        self.assertAlmostEqual(k, (4 * math.pi) ** 2)
        self.assertAlmostEqual(c, 8 * math.pi)
        self.assertEqual(TimingFunction.steps(3, "start").json(), {"steps": 3, "position": "start"})
        self.assertEqual(TimingFunction.spring(perceptual_duration=0.4, bounce=0.1).json(),
                         {"spring": {"perceptualDuration": 0.4, "bounce": 0.1, "initialVelocity": 0.0}})
        self.assertEqual(_wire.timing(TimingFunction.named("linear")), b"\x00")

    def test_composite_kinds(self):
        layer_like = type("L", (), {"id": 7})()
        g = lamina.AnimationGroup([BasicAnimation("opacity", to_value=0)], duration=2)
        self.assertEqual(g.to_dict()["animations"][0]["type"], "basic")
        k = lamina.KeyframesAnimation({"position.x": [Keyframe.spring(10, 1.0, bounce=0.2), Keyframe.move(3)]})
        self.assertEqual(k.to_dict()["tracks"]["position.x"], [{"spring": 10, "duration": 1.0, "bounce": 0.2},
                                                                {"move": 3}])
        p = lamina.PhaseAnimation([lamina.Phase({"opacity": 0}), lamina.Phase({"opacity": 1}, "bouncy")], repeat=True)
        self.assertEqual(p.to_dict()["phases"][1], {"values": {"opacity": 1}, "animation": "bouncy"})
        e = lamina.ExpressionAnimation("opacity", "sin(t)", layers={"a": layer_like})
        self.assertEqual(e.to_dict(), {"type": "expression", "keyPath": "opacity", "expression": "sin(t)",
                                       "layers": {"a": 7}})
        kf = lamina.KeyframeAnimation("position", path=Path().move_to(0, 0).line_to(5, 5), calculation_mode="paced")
        self.assertEqual(kf.to_dict()["path"], "M 0.0 0.0 L 5.0 5.0")

    def test_error_codes(self):
        e = lamina.RequestFailed(4, 0x20, 9, 3, 0x12, 1, "opacity", "bad")
        self.assertEqual(e.code, lamina.ErrorCode.INVALID_VALUE)
        self.assertEqual(e.code.protocol_name, "invalidValue")
        self.assertEqual(str(e), "commit failed (invalidValue): bad")
        self.assertEqual(lamina.RequestFailed(1, 0x20, 99, 1, 0x12, 0, "", "new").code, 99)

    def test_default_socket_path(self):
        import os
        old = os.environ.get("XDG_RUNTIME_DIR")
        try:
            os.environ["XDG_RUNTIME_DIR"] = "/run/user/5"
            self.assertEqual(lamina.default_socket_path(), "/run/user/5/lamina-0")
            os.environ["XDG_RUNTIME_DIR"] = ""
            self.assertEqual(lamina.default_socket_path(), "/tmp/lamina-%d/lamina-0" % os.getuid())
        finally:
            if old is None:
                os.environ.pop("XDG_RUNTIME_DIR", None)
            else:
                os.environ["XDG_RUNTIME_DIR"] = old


if __name__ == "__main__":
    unittest.main()
