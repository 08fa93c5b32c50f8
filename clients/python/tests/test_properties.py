"""The generated typed attributes: one per row of Properties.table on the right classes, with
the daemon's defaults, and values that round-trip through the daemon."""
import os
import subprocess
import sys
import unittest

from support import REPO, DaemonTestCase, png_pixels

import lamina
from lamina import PROPERTIES, Color, Path, Point, Rect, Size, Transform3D
from lamina._properties import ENUMS, LAYER_KINDS, SUB_KEY_PATHS
from lamina.layers import LAYER_CLASSES


def table_rows():
    """Properties.table read here, apart from the generator: (key path, layers) per row."""
    with open(os.path.join(REPO, "scripts", "gen-properties"), encoding="utf-8") as f:
        script = f.read()
    table = script.split('TABLE = "', 1)[1].split('"', 1)[0]
    rows = []
    with open(os.path.join(REPO, table), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if line and not line.startswith("#"):
                cells = [c.strip() for c in line.split("|")]
                rows.append((cells[0], cells[6]))
    return rows


SAMPLES = {
    "number": 0.5, "point": Point(1.5, 2.5), "size": Size(3, 4), "rect": Rect(1, 2, 3, 4),
    "transform": Transform3D.translation(5, 6, 7), "color": Color(0.25, 0.5, 0.75, 1.0),
    "colors": [Color(1, 0, 0, 1), Color(0, 0, 1, 0.5)], "bool": None, "numbers": [4.0, 2.0],
    "numbers?": [0.0, 1.0], "path": Path.rect((0, 0, 10, 10)), "cornerMask": 5, "string": "DejaVu Sans",
    "text": "hello",
    "filters": [lamina.Filter("gaussianBlur", radius=2.0, name="blur"), lamina.Filter("invert", amount=0.5)],
    "emitterCells": [lamina.EmitterCell(name="a", birthRate=2.0, color=Color(1, 0, 0, 1),
                                        emitterCells=[lamina.EmitterCell(lifetime=0.5)])],
}


def normalized(info, v):
    if info.type == "layer":   # a Layer locally, its id (0: none) from the daemon
        v = getattr(v, "id", v)
        return None if v in (None, 0) else int(v)
    if info.type == "image" and v == "":
        return None
    if info.type == "numbers?" and v == []:
        return None
    if isinstance(v, tuple) and not hasattr(v, "_fields"):
        return list(v)
    return v


class GeneratedAttributeTests(unittest.TestCase):
    def test_every_row_is_an_attribute_of_the_right_classes(self):
        rows = table_rows()
        self.assertEqual([k for k, _ in rows], list(PROPERTIES))
        self.assertEqual(set(LAYER_CLASSES), set(LAYER_KINDS))   # a class for every layer kind
        for key, layers in rows:
            info = PROPERTIES[key]
            kinds = set(LAYER_KINDS) if layers == "all" else {k.strip() for k in layers.split(",")}
            self.assertEqual(set(info.kinds), kinds, key)
            for kind, cls in LAYER_CLASSES.items():
                self.assertEqual(isinstance(getattr(cls, info.attribute, None), property), kind in kinds,
                                 "%s.%s" % (cls.__name__, info.attribute))

    def test_attributes_are_typed(self):
        hints = lamina.Layer.opacity.fget.__annotations__
        self.assertEqual(hints["return"], "float")
        self.assertEqual(lamina.ShapeLayer.fill_color.fget.__annotations__["return"], "Optional[Color]")

    def test_generated_files_are_in_sync(self):
        r = subprocess.run([sys.executable, os.path.join(REPO, "scripts", "gen-properties"), "--check"],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
        self.assertEqual(r.returncode, 0, r.stderr)

    def test_sub_key_paths(self):
        self.assertEqual(SUB_KEY_PATHS["bounds.size.width"], ("bounds", "number", (2,), True))
        self.assertEqual(SUB_KEY_PATHS["position.y"], ("position", "number", (1,), False))


class DaemonAgreementTests(DaemonTestCase):
    def layers(self):
        out = []
        for kind in LAYER_KINDS:
            layer = self.conn.make_layer(kind)
            self.conn.root.add_sublayer(layer)
            out.append(layer)
        return out

    def test_defaults_are_the_daemons(self):
        layers = self.layers()
        self.conn.commit()
        for layer in layers:
            presented = layer.presentation()
            for key, v in presented.values.items():
                info = PROPERTIES[key]
                self.assertEqual(normalized(info, getattr(layer, info.attribute)), normalized(info, v),
                                 "%s %s" % (layer.kind, key))

    def test_values_round_trip(self):
        layers = self.layers()
        self.conn.commit()
        expected = {}
        with self.conn.transaction(disable_actions=True):
            for layer in layers:
                for key, info in PROPERTIES.items():
                    if layer.kind not in info.kinds or info.type in ("image", "layer"):
                        continue
                    if info.type == "enum":
                        value = [c for c in ENUMS[info.enum] if c != info.default][-1]
                    elif info.type == "bool":
                        value = not info.default
                    elif info.bounds is not None:   # the table's range rule: its ends, not the default
                        value = Size(*info.bounds) if info.type == "size" else info.bounds[1]
                    else:
                        value = SAMPLES[info.type]
                    setattr(layer, info.attribute, value)
                    self.assertEqual(normalized(info, getattr(layer, info.attribute)), normalized(info, value), key)
                    expected[(layer.id, key)] = value
        for layer in layers:
            presented = layer.presentation()
            for key, v in presented.values.items():
                if (layer.id, key) in expected:
                    self.assertEqual(normalized(PROPERTIES[key], v), normalized(PROPERTIES[key], expected[(layer.id, key)]),
                                     "%s %s" % (layer.kind, key))

    def test_a_name_of_at_most_256_bytes_is_listed_by_the_tree(self):
        """``name`` (CALayer.name): "" by default; at most 256 bytes of UTF-8, counted as bytes
        (128 × "é" is 256 bytes, 86 × "€" is 258 in 86 characters); ``tree()`` lists it."""
        from lamina import ErrorCode, RequestFailed
        longest, too_long = "é" * 128, "€" * 86
        self.assertEqual((len(longest.encode()), len(too_long.encode()), len(too_long)), (256, 258, 86))
        named, plain = self.square(), self.square()
        self.assertEqual(named.name, "")
        named.name = longest
        self.conn.commit()
        self.assertEqual(named.presentation_value("name"), longest)

        def entry(layer):
            ids = ["%d:%d" % (self.conn.client_id, layer.id)]
            return [e for e in self.conn.tree()["layers"] if e["id"] in ids][0]
        self.assertEqual(entry(named)["name"], longest)
        self.assertNotIn("name", entry(plain))
        named.name = too_long
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.INVALID_VALUE, "name"))
        self.assertEqual(named.name, longest)   # the local model keeps what the daemon has
        with self.assertRaises(TypeError):
            named.name = 5

    def test_setters_accept_python_forms(self):
        layer = self.conn.make_shape_layer()
        layer.position = [3, 4]
        layer.fill_color = "#ff8000"
        layer.stroke_color = (0, 1, 0)
        layer.line_dash_pattern = (2, 1)
        layer.masked_corners = lamina.CornerMask.MIN_X_MIN_Y | lamina.CornerMask.MAX_X_MAX_Y
        self.assertEqual(layer.position, Point(3, 4))
        self.assertEqual(layer.fill_color, Color(1.0, 128 / 255, 0.0, 1.0))
        self.assertEqual(layer.stroke_color, Color(0, 1, 0, 1))
        self.assertEqual(layer.line_dash_pattern, [2.0, 1.0])
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        self.assertEqual(layer.presentation_value("maskedCorners"), 9.0)
        self.assertEqual(layer.presentation_value("fillColor"), Color(1.0, 128 / 255, 0.0, 1.0))

    def test_sub_key_path_sets_update_the_model(self):
        layer = self.conn.make_layer()
        layer.bounds = (0, 0, 10, 10)
        layer.set_value("bounds.size.width", 30)
        layer.set_value("position", (5, 6))
        layer.set_value("position.y", 9)
        layer.set_value("transform.scale", 2)
        self.assertEqual(layer.bounds, Rect(0, 0, 30, 10))
        self.assertEqual(layer.value("position.y"), 9.0)
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        self.assertEqual(layer.presentation_value("bounds"), Rect(0, 0, 30, 10))
        self.assertEqual(layer.presentation_value("position"), Point(5, 9))
        self.assertEqual(layer.presentation_value("transform").m11, 2.0)

    def test_transform_components_match_the_daemons(self):
        layer = self.conn.make_layer()
        self.conn.root.add_sublayer(layer)
        start = (Transform3D.perspective(500).concat(Transform3D.rotation(0.3, 1, 0, 0))
                 .concat(Transform3D.rotation(0.4, 0, 1, 0)).concat(Transform3D.scale(1.5, 0.5, 2))
                 .concat(Transform3D.translation(10, -20, 30)))
        sets = [("transform.rotation.z", 0.7), ("transform.scale.y", 3.0), ("transform.translation", (4, 5)),
                ("transform.rotation.x", -0.2), ("transform.scale", 2.0), ("transform.translation.z", -7.0),
                ("sublayerTransform.rotation", 1.1)]
        for path, value in sets:
            with self.subTest(path=path):
                with self.conn.transaction(disable_actions=True):
                    layer.transform = start
                    layer.sublayer_transform = start
                    layer.set_value(path, value)
                prop = path.split(".", 1)[0]
                for got, want in zip(layer.value(prop), layer.presentation_value(prop)):
                    self.assertAlmostEqual(got, want, delta=1e-9)
                for component in lamina.values.TRANSFORM_COMPONENTS:
                    key = prop + "." + component
                    got, want = layer.value(key), layer.presentation_value(key)
                    if isinstance(want, tuple):
                        for g, w in zip(got, want):
                            self.assertAlmostEqual(g, w, delta=1e-9, msg=key)
                    else:
                        self.assertAlmostEqual(got, want, delta=1e-9, msg=key)


if __name__ == "__main__":
    unittest.main()


class FilterTests(DaemonTestCase):
    """``filters`` (CALayer.filters): a list of ``lamina.Filter``, checked here and by the daemon."""

    def test_filters_travel_and_bad_ones_are_refused(self):
        """Both lists: ``filters`` and ``background_filters`` (CALayer.backgroundFilters)."""
        from lamina import Filter
        for attribute, key in (("filters", "filters"), ("background_filters", "backgroundFilters")):
            with self.subTest(attribute):
                layer = self.square()
                setattr(layer, attribute, [
                    Filter("gaussianBlur", radius=3, name="blur"), {"type": "saturate", "amount": 0.5},
                    Filter("colorMatrix", matrix=[1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1, 0])])
                self.conn.commit()
                got = layer.presentation_value(key)
                self.assertEqual([f.type for f in got], ["gaussianBlur", "saturate", "colorMatrix"])
                self.assertEqual((got[0].radius, got[0].name, got[1].amount), (3.0, "blur", 0.5))
                for bad in ([Filter("gaussianBlur", radius=-1)], [Filter("colorMatrix", matrix=[1, 2])],
                            [Filter("sepia", amount=1)], [Filter("invert", name="a"), Filter("opacity", name="a")]):
                    with self.assertRaises(ValueError):
                        setattr(layer, attribute, bad)


class EmitterTests(DaemonTestCase):
    """Emitter layers: ``emitter_cells`` (a list of ``lamina.EmitterCell``) travel to the daemon
    and back; bad cells are refused here or by the daemon."""

    def test_cells_travel_and_bad_ones_are_refused(self):
        from lamina import EmitterCell, RequestFailed
        layer = self.conn.make_emitter_layer()
        layer.bounds = (0, 0, 100, 100)
        layer.emitter_position = (50, 50)
        layer.emitter_shape = "circle"
        layer.render_mode = "additive"
        layer.seed = 42
        layer.emitter_cells = [EmitterCell(name="spark", birthRate=30, lifetime=1.5, lifetimeRange=0.5, velocity=40,
                                           emissionRange=3.14, color="#ffd166", alphaSpeed=-0.5,
                                           emitterCells=[{"birthRate": 5, "lifetime": 0.3, "scale": 2}])]
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        got = layer.presentation_value("emitterCells")
        self.assertEqual(got, layer.emitter_cells)
        self.assertEqual((got[0].name, got[0].birthRate, got[0].emitterCells[0].scale), ("spark", 30.0, 2.0))
        self.assertEqual(got[0].velocityRange, 0.0)   # a default
        self.assertEqual(layer.presentation_value("renderMode"), "additive")
        with self.assertRaises(ValueError):
            EmitterCell(bogus=1)
        with self.assertRaises(ValueError):
            EmitterCell(birthRate=float("nan"))
        # Past the daemon's limits: refused with the cell's path.
        layer.emitter_cells = [EmitterCell(birthRate=1e9)]
        with self.assertRaises(RequestFailed) as e:
            self.conn.commit()
        self.assertIn("emitterCells[0].birthRate", str(e.exception))


    def test_birth_rate_set_to_zero_stops_births_and_the_born_live_on(self):
        # docs/scene-format.md: births follow the integral of the layer's birthRate. The layer's
        # local time starts at t0 (its beginTime). Cell rate 4, layer rate 1 until t0 + 1 then
        # 0: particles born at t0, t0 + 0.25, …, t0 + 1 fly
        # along +x at 40 points a second from (10, 50) and live 10 s: at t0 + 2, five squares of
        # 4 points centred at x = 10 + 40 × (2 − k/4), k = 0 … 4: 90, 80, 70, 60, 50.
        layer = self.stream_of_squares()
        self.conn.advance_clock(1.0)
        with self.conn.transaction(disable_actions=True):
            layer.birth_rate = 0
        self.conn.advance_clock(1.0)
        self.expect_squares_at([50, 60, 70, 80, 90])

    def stream_of_squares(self):
        """An emitter from this time on: 4 red 4-point squares a second, born at (10, 50), flying
        along +x at 40 points a second, living 10 s."""
        from lamina import EmitterCell
        layer = self.conn.make_emitter_layer()
        layer.bounds = (0, 0, 200, 100)
        layer.position = (100, 50)
        layer.emitter_position = (10, 50)
        layer.emitter_cells = [EmitterCell(birthRate=4, lifetime=10, velocity=40, scale=4, color="#ff0000")]
        layer.begin_time = self.conn.current_time()
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        return layer

    def expect_squares_at(self, centres):
        """The captured row y = 50 holds red 4-point squares centred at ``centres`` (±1), no others."""
        _, _, rows = png_pixels(self.conn.capture().png)
        red = [x for x in range(200) if tuple(rows[50][4 * x:4 * x + 3]) == (255, 0, 0)]
        runs = [x for x in red if x - 1 not in red]
        self.assertEqual(len(runs), len(centres), red)
        for start, centre in zip(runs, centres):
            self.assertLessEqual(abs(start + 2 - centre), 1, red)

    def test_particles_keeping_depth_are_seen_in_the_superlayers_perspective(self):
        # docs/scene-format.md, preservesDepth: one particle (births at 0, 10, … s) flies
        # straight at the viewer (emissionLatitude π/2) at 20 points a second from (151, 50)
        # of an emitter filling a stage whose sublayerTransform is a perspective of d = 100 about
        # its anchor (100, 50). At age 2 it is at z = 40: w = 1 − 40/100 = 0.6, its centre at
        # x = 100 + (151 − 100)/0.6 = 185 and its 10-point square 16.7 points wide (176.7 …
        # 193.3: pixels 177 … 192 wholly red). Flattened (preserves_depth False) it stays at
        # 146 … 156 (pixels 146 … 155).
        import math
        from lamina import EmitterCell, Transform3D
        runs = {}
        for depth in (True, False):
            stage = self.conn.make_layer()
            stage.bounds = (0, 0, 200, 100)
            stage.position = (100, 50)
            stage.sublayer_transform = Transform3D.perspective(100)
            layer = self.conn.make_emitter_layer()
            layer.bounds = (0, 0, 200, 100)
            layer.position = (100, 50)
            layer.emitter_position = (151, 50)
            layer.preserves_depth = depth
            layer.emitter_cells = [EmitterCell(birthRate=0.1, lifetime=10, velocity=20, emissionLatitude=math.pi / 2,
                                               scale=10, color="#ff0000")]
            layer.begin_time = self.conn.current_time()
            stage.add_sublayer(layer)
            self.conn.root.add_sublayer(stage)
            self.conn.commit()
            self.assertIs(layer.presentation_value("preservesDepth"), depth)
            self.conn.advance_clock(2.0)
            _, _, rows = png_pixels(self.conn.capture().png)
            runs[depth] = [x for x in range(200) if tuple(rows[50][4 * x:4 * x + 3]) == (255, 0, 0)]
            stage.remove_from_superlayer()
            self.conn.commit()
        self.assertEqual((runs[True][0], runs[True][-1]), (177, 192), runs[True])
        self.assertEqual((runs[False][0], runs[False][-1]), (146, 155), runs[False])

    def test_reduce_motion_stops_births_and_the_born_live_on(self):
        # docs/protocol.md: from the time Reduce Motion is turned on no particle is born. As
        # above (births every 0.25 s from t0, flying along +x at 40 points a second from
        # (10, 50)), turned on at t0 + 0.9: at t0 + 2 four squares, born at t0 … t0 + 0.75,
        # centred at x = 10 + 40 × (2 − k/4): 90, 80, 70, 60.
        self.stream_of_squares()
        self.conn.advance_clock(0.9)
        self.conn.set_reduce_motion(True)
        self.addCleanup(self.conn.set_reduce_motion, False)
        self.conn.advance_clock(1.1)
        self.expect_squares_at([60, 70, 80, 90])

    def test_birth_rate_animates(self):
        layer = self.conn.make_emitter_layer()
        self.conn.root.add_sublayer(layer)
        self.conn.commit()
        with self.conn.transaction(duration=1.0, timing="linear"):
            layer.birth_rate = 3
        self.conn.advance_clock(0.5)
        self.assertAlmostEqual(layer.presentation_value("birthRate"), 2.0, places=6)


class ReplicatorTests(DaemonTestCase):
    """Replicator layers (docs/scene-format.md, "Replicator layers") from the Python client."""

    def test_instances_are_drawn_moved_and_tinted(self):
        # A white 10-point square at (15, 15) of a replicator whose top left is (0, 0); three
        # instances, each moved 30 points right of the last (instanceTransform applied k times)
        # and its red channel 0.5 lower: squares at x 10 … 20, 40 … 50, 70 … 80 in (255, 255,
        # 255), (128, 255, 255), (0, 255, 255); nothing at 100 … 110 (no fourth instance).
        from lamina import Transform3D
        rep = self.conn.make_replicator_layer()
        rep.bounds = (0, 0, 120, 30)
        rep.position = (60, 15)
        rep.instance_count = 3
        rep.instance_transform = Transform3D.translation(30, 0)
        rep.instance_red_offset = -0.5
        dot = self.conn.make_layer()
        dot.bounds = (0, 0, 10, 10)
        dot.position = (15, 15)
        dot.background_color = "#ffffff"
        rep.add_sublayer(dot)
        self.conn.root.add_sublayer(rep)
        self.conn.commit()
        self.assertEqual(rep.presentation_value("instanceCount"), 3)
        _, _, rows = png_pixels(self.conn.capture().png)
        for x, red in ((15, 255), (45, 128), (75, 0)):
            r, g, b = rows[15][4 * x:4 * x + 3]
            self.assertAlmostEqual(r, red, delta=1, msg="x = %d" % x)
            self.assertEqual((g, b), (255, 255), "x = %d" % x)
        background = tuple(rows[15][4 * 105:4 * 105 + 3])
        self.assertEqual(tuple(rows[15][4 * 30:4 * 30 + 3]), background)


class MaskTests(DaemonTestCase):
    """``mask`` (CALayer.mask): another layer of the same connection, with no superlayer."""

    def test_a_detached_layer_masks_and_bad_masks_are_refused(self):
        from lamina import ErrorCode, PropertyError, RequestFailed
        layer, inside = self.square(), self.square()
        mask = self.conn.make_layer()
        mask.bounds = (0, 0, 40, 40)
        mask.background_color = "#000000"
        layer.mask = mask
        self.assertIs(layer.mask, mask)
        self.conn.commit()
        self.assertEqual(layer.presentation_value("mask"), mask.id)
        # A layer in the tree cannot be a mask; the commit fails whole and names the set.
        other = self.square()
        other.mask = inside
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.INVALID_HIERARCHY, "mask"))
        self.assertIn("in the layer tree", cm.exception.message)
        # A mask cannot join the tree while it masks.
        self.conn.root.add_sublayer(mask)
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual(cm.exception.code, ErrorCode.INVALID_HIERARCHY)
        # Another connection's layer, or the layer itself, is refused here.
        foreign = self.connect().make_layer()
        with self.assertRaises(PropertyError):
            layer.mask = foreign
        with self.assertRaises(PropertyError):
            layer.mask = layer
        with self.assertRaises(TypeError):
            layer.mask = 3
        layer.mask = None
        self.conn.commit()
        self.assertEqual(layer.presentation_value("mask"), 0)
