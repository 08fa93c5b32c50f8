"""Errors as exceptions carrying the daemon's error event's fields (docs/protocol.md, "Errors")."""
import math
import unittest

from support import DaemonTestCase

import lamina
from lamina import ErrorCode, RequestFailed

COMMIT, SET_PROPERTY, ADD_ANIMATION, GET_PRESENTATION, SET_TRANSACTION = 0x20, 0x12, 0x17, 0x34, 0x16


class ErrorTests(DaemonTestCase):
    def test_invalid_value_at_commit_names_the_set(self):
        layer = self.square()
        self.conn.commit()
        layer.opacity = math.nan
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        e = cm.exception
        self.assertEqual(e.code, ErrorCode.INVALID_VALUE)
        self.assertEqual((e.opcode, e.failed_opcode, e.layer, e.key), (COMMIT, SET_PROPERTY, layer.id, "opacity"))
        self.assertEqual((e.request_name, e.failed_request_name), ("commit", "setProperty"))
        self.assertNotEqual(e.failed_request, e.request_id)
        self.assertEqual(layer.opacity, 1.0)   # the local model keeps what it had
        # Nothing applied; the connection stays usable.
        with self.conn.transaction(disable_actions=True):
            layer.opacity = 0.5
        self.assertEqual(layer.presentation_value("opacity"), 0.5)

    def test_first_failing_request_is_named(self):
        layer = self.square()
        self.conn.commit()
        layer.border_width = 2.0
        layer.corner_radius = -3.0      # the first that fails, in the order staged
        layer.opacity = math.inf
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.INVALID_VALUE, "cornerRadius"))
        self.assertEqual(layer.presentation_value("borderWidth"), 0.0)   # all or nothing

    def test_tiled_layer_fields_out_of_range_are_refused(self):
        # docs/protocol.md: tileSize's sides 16…4096, levelsOfDetail 1…30, levelsOfDetailBias 0…30.
        tiled = self.conn.make_tiled_layer()
        self.conn.root.add_sublayer(tiled)
        self.conn.commit()
        cases = [("tile_size", (8.0, 256.0), "tileSize", "16…4096"), ("tile_size", (256.0, 4097.0), "tileSize", "16…4096"),
                 ("levels_of_detail", 0.0, "levelsOfDetail", "1…30"), ("levels_of_detail", 31.0, "levelsOfDetail", "1…30"),
                 ("levels_of_detail_bias", 40.0, "levelsOfDetailBias", "0…30")]
        for attribute, value, key, span in cases:
            setattr(tiled, attribute, value)
            with self.assertRaises(RequestFailed) as cm:
                self.conn.commit()
            self.assertEqual((cm.exception.code, cm.exception.key), (ErrorCode.INVALID_VALUE, key))
            self.assertIn(span, cm.exception.message)
        # The local model kept the defaults, as the daemon did.
        self.assertEqual((tuple(tiled.tile_size), tiled.levels_of_detail, tiled.levels_of_detail_bias), ((256.0, 256.0), 1.0, 0.0))
        self.assertEqual(tuple(tiled.presentation_value("tileSize")), (256.0, 256.0))
        tiled.set_value("tileSize.width", 5000)
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual(cm.exception.key, "tileSize.width")
        self.assertEqual(tuple(tiled.tile_size), (256.0, 256.0))
        # The ends of the ranges are accepted.
        tiled.tile_size = (16.0, 4096.0)
        tiled.levels_of_detail = 30.0
        tiled.levels_of_detail_bias = 30.0
        self.conn.commit()
        self.assertEqual(tuple(tiled.presentation_value("tileSize")), (16.0, 4096.0))
        self.assertEqual(tiled.presentation_value("levelsOfDetail"), 30.0)

    def test_failed_at_once_then_transaction_failed(self):
        layer = self.square()
        self.conn.commit()
        events = self.conn.events()
        errors = []
        self.conn.on_error = errors.append
        layer.add(lamina.SpringAnimation("opacity", from_value=0, to_value=1, damping=0), key="bad")
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        commit_error = cm.exception
        event = events.get(timeout=5)
        self.assertIsInstance(event, lamina.ErrorEvent)
        at_once = event.error
        self.assertEqual(at_once.code, ErrorCode.INVALID_ANIMATION)
        self.assertEqual((at_once.opcode, at_once.layer, at_once.key), (ADD_ANIMATION, layer.id, "bad"))
        self.assertEqual(at_once.failed_request, at_once.request_id)
        self.assertIn("damping", at_once.message)
        self.assertEqual(commit_error.code, ErrorCode.TRANSACTION_FAILED)
        self.assertEqual((commit_error.failed_request, commit_error.failed_opcode, commit_error.layer, commit_error.key),
                         (at_once.request_id, ADD_ANIMATION, layer.id, "bad"))
        self.conn.drain_events(5)
        self.assertEqual(errors, [at_once])
        self.assertEqual(self.conn.pending_errors, [at_once])

    def test_malformed_setting_is_named_with_no_layer(self):
        layer = self.square()
        with self.assertRaises(ValueError):
            lamina.TimingFunction.named("bogus")
        # A spring timing with damping 0 is malformed at once (a field outside a VALUE).
        with self.assertRaises(RequestFailed) as cm:
            with self.conn.transaction(timing=lamina.TimingFunction.spring(damping=0)):
                layer.opacity = 0.5
        e = cm.exception
        self.assertEqual((e.code, e.failed_opcode, e.layer, e.key), (ErrorCode.TRANSACTION_FAILED, SET_TRANSACTION, 0, ""))
        self.assertEqual(self.conn.pending_errors[0].code, ErrorCode.MALFORMED)

    def test_animation_needing_the_layer_fails_at_commit(self):
        gradient = self.conn.make_gradient_layer()
        self.conn.root.add_sublayer(gradient)
        self.conn.commit()
        gradient.add(lamina.BasicAnimation("strokeEnd", from_value=0, to_value=1), key="draw")
        with self.assertRaises(RequestFailed) as cm:
            self.conn.commit()
        self.assertEqual((cm.exception.code, cm.exception.layer, cm.exception.key),
                         (ErrorCode.INVALID_ANIMATION, gradient.id, "draw"))

    def test_query_errors(self):
        layer = self.square()
        self.conn.commit()
        with self.assertRaises(RequestFailed) as cm:
            layer.presentation_value("fillColor")
        self.assertEqual((cm.exception.code, cm.exception.opcode, cm.exception.layer, cm.exception.key),
                         (ErrorCode.INVALID_PROPERTY, GET_PRESENTATION, layer.id, "fillColor"))
        with self.assertRaises(RequestFailed) as cm:
            self.conn.presentation_value(999, "opacity")
        self.assertEqual((cm.exception.code, cm.exception.layer), (ErrorCode.UNKNOWN_LAYER, 999))

    def test_local_checks(self):
        layer = self.conn.make_layer()
        with self.assertRaises(lamina.PropertyError):
            layer.set_value("fillColor", (1, 0, 0))       # a plain layer has no fillColor
        with self.assertRaises(lamina.PropertyError):
            layer.set_value("nonsense", 1)
        with self.assertRaises(TypeError):
            layer.opacity = "opaque"
        with self.assertRaises(TypeError):
            layer.position = (1, 2, 3)

    def test_connection_failed(self):
        with self.assertRaises(lamina.ConnectionFailed):
            lamina.connect("/nonexistent/lamina.sock")

    def test_disconnected(self):
        c = self.connect()
        c.close()
        self.assertTrue(c.wait_until_closed(5))
        with self.assertRaises(lamina.Disconnected):
            c.ping()


if __name__ == "__main__":
    unittest.main()
