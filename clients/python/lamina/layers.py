"""Layers: ``CALayer`` and its subclasses, with every property of the property table as a typed
attribute (generated into ``_properties.py``).

Setting an attribute stages the change in the layer's connection; the next commit (or the
end of the outermost ``with connection.transaction():``) sends it. Reading an attribute gives
the model value this client last set (or Core Animation's default); the daemon's animated
value is ``layer.presentation_value(key_path)``.
"""
from __future__ import annotations

import json
import math
import struct
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Tuple

from . import _wire
from ._properties import (PROPERTIES, SUB_KEY_PATHS, _GradientLayerAttributes, _LayerAttributes,
                          _ReplicatorLayerAttributes, _EmitterLayerAttributes, _TiledLayerAttributes, _ShapeLayerAttributes,
                          _TextLayerAttributes)
from .animation import Animation
from .errors import LaminaError
from .values import Point, Rect, RectLike, Size, coerce_number, coerce_numbers, coerce_point, coerce_rect, coerce_size

if TYPE_CHECKING:
    from .connection import Connection, PointerHandler

__all__ = ["Layer", "ShapeLayer", "GradientLayer", "TextLayer", "ReplicatorLayer", "EmitterLayer", "TiledLayer", "Presentation", "PropertyError",
           "LAYER_CLASSES"]

_VALUE_COERCE = {
    "number": coerce_number, "point": coerce_point, "size": coerce_size, "rect": coerce_rect,
}
_TRANSFORM_COMPONENTS = {
    "rotation": "number", "rotation.x": "number", "rotation.y": "number", "rotation.z": "number",
    "scale": "number", "scale.x": "number", "scale.y": "number", "scale.z": "number",
    "translation": "size", "translation.x": "number", "translation.y": "number", "translation.z": "number",
}

AnimationCallback = Callable[[], None]
StopCallback = Callable[[bool], None]


class PropertyError(LaminaError, ValueError):
    """``set_value`` was given a key path that is not a property of the layer's kind (checked
    here, as the daemon would check it at commit), or a value of the wrong type."""


def _finite(v: Any) -> bool:
    if isinstance(v, float):
        return math.isfinite(v)
    if isinstance(v, (tuple, list)):
        return all(_finite(x) for x in v)
    return True


def _valid(info_type: str, non_negative: bool, v: Any) -> bool:
    """The daemon's range check for a whole property value (what the local model keeps)."""
    if info_type in ("number", "point", "size", "rect", "transform", "color", "colors", "numbers", "numbers?"):
        if v is not None and not _finite(v):
            return False
    if non_negative:
        if info_type == "number":
            return bool(v >= 0)
        if info_type == "size":
            return bool(v[0] >= 0 and v[1] >= 0)
        if info_type == "rect":
            return bool(v[2] >= 0 and v[3] >= 0)
        if info_type == "numbers":
            return all(x >= 0 for x in v)
    if info_type == "cornerMask":
        return 0 <= int(v) <= 15
    return True


def _in_bounds(bounds: Optional[Tuple[float, float]], v: Any) -> bool:
    """The table's ``range`` rule: a number, or each side of a size, in ``bounds`` (closed)."""
    if bounds is None:
        return True
    return all(bounds[0] <= x <= bounds[1] for x in (v if isinstance(v, tuple) else (v,)))


def _short_enough(max_bytes: Optional[int], v: Any) -> bool:
    """The daemon's ``short`` rule (``name``): at most ``max_bytes`` bytes of UTF-8."""
    return max_bytes is None or len(v.encode("utf-8")) <= max_bytes


class Layer(_LayerAttributes):
    """``CALayer``: a plain layer (kind ``layer``). Make one with ``connection.make_layer()``.

    A layer belongs to the thread that uses its connection for staging (see ``Connection``).
    ``sublayers`` and ``superlayer`` mirror the hierarchy this client built.
    """

    kind = "layer"

    def __init__(self, connection: "Connection", layer_id: int) -> None:
        self._connection = connection
        self._id = layer_id
        self._values: Dict[str, Any] = {}
        self._superlayer: Optional[Layer] = None
        self._sublayers: List[Layer] = []
        #: How the layer comes in and goes out (SwiftUI's ``.transition``): a transition T for
        #: both ways, or ``{"insertion": T, "removal": T}``, T as docs/scene-format.md writes it
        #: (``"opacity"``, ``{"move": "leading"}``, ``{"combined": [...]}``, ...). None: identity.
        self.transition: Any = None

    @property
    def connection(self) -> "Connection":
        return self._connection

    @property
    def id(self) -> int:
        """The client's id for the layer (0: the client's root container)."""
        return self._id

    @property
    def superlayer(self) -> Optional["Layer"]:
        return self._superlayer

    @property
    def sublayers(self) -> List["Layer"]:
        """The sublayers, in order (a copy)."""
        return list(self._sublayers)

    def __repr__(self) -> str:
        return "<%s %d>" % (type(self).__name__, self._id)

    @property
    def on_pointer(self) -> Optional["PointerHandler"]:
        """The handler of the pointer events that hit this layer or its sublayers (they
        bubble: ``Connection.on_pointer_of``), or None. It gets the event in this layer's
        coordinates (``layer`` this layer, ``target`` the hit layer) and returns
        ``lamina.HANDLED`` (True) to stop it, anything else to let the superlayer's handler
        have it."""
        return self._connection._pointer_handlers.get(self._id)

    @on_pointer.setter
    def on_pointer(self, handler: Optional["PointerHandler"]) -> None:
        self._connection.on_pointer_of(self, handler)

    # MARK: properties

    def _get(self, key_path: str) -> Any:
        if key_path in self._values:
            v = self._values[key_path]
        else:
            v = PROPERTIES[key_path].default
        return list(v) if isinstance(v, (list, tuple)) and not hasattr(v, "_fields") else v

    def _set(self, key_path: str, value: Any) -> None:
        """A typed attribute's setter: the value has the property's type. A value out of range
        (a negative ``corner_radius``) is staged all the same and refused at commit
        (``invalidValue`` naming this set); the local model keeps what it had."""
        info = PROPERTIES[key_path]
        if info.type == "layer" and value is not None and (value.connection is not self._connection or value is self):
            raise PropertyError("a mask is another layer of the same connection")
        if (_valid(info.type, info.non_negative, value) and _short_enough(info.max_bytes, value)
                and _in_bounds(info.bounds, value)):
            self._values[key_path] = value
        self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string(key_path)
                                + _wire.value(info.type, value))

    def set_value(self, key_path: str, value: Any) -> None:
        """Sets any property by its Core Animation key path: a property of the table
        (``opacity``), a sub-key-path (``position.x``, ``bounds.size``), a transform component
        (``transform.rotation.z``, ``transform.scale``, ``transform.translation``), ``frame``, a
        custom number or number list (``custom.NAME``), or a named filter's number
        (``filters.NAME.radius`` of a blur, ``filters.NAME.amount`` of a CSS function;
        ``backgroundFilters.NAME.…`` likewise: it animates implicitly). Raises ``PropertyError`` for a key path
        the layer's kind lacks or a value of the wrong type; range errors come at commit."""
        if key_path == "frame":
            self.frame = value
            return
        if key_path.startswith("custom."):
            name = key_path[7:]
            if not name or "." in name:
                raise PropertyError("custom property names are not empty and have no dots: %r" % key_path)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                body = _wire.value("number", coerce_number(value))
                self._values[key_path] = [float(value)]
            else:
                nums = coerce_numbers(value)
                body = _wire.value("numbers", nums)
                self._values[key_path] = nums
            self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string(key_path) + body)
            return
        field = _filter_field(key_path, self._get)
        if field is not None:
            prop, i, attr = field
            v = coerce_number(value)
            if math.isfinite(v) and v >= 0:
                filters = self._get(prop)
                filters[i] = filters[i]._replace(**{attr: v})
                self._values[prop] = filters
            self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string(key_path)
                                    + _wire.value("number", v))
            return
        head, _, rest = key_path.partition(".")
        info = PROPERTIES.get(head)
        if info is None:
            raise PropertyError("unknown key path %r" % key_path)
        if self.kind not in info.kinds:
            raise PropertyError("%s is not a property of a %s layer" % (head, self.kind))
        if not rest:
            setattr(self, info.attribute, value)
            return
        if info.type == "transform":
            vtype = _TRANSFORM_COMPONENTS.get(rest)
            if vtype is None:
                raise PropertyError("unknown key path %r" % key_path)
            v = _VALUE_COERCE[vtype](value)
            if _finite(v):
                # Recomposed here as the daemon recomposes it, so that the model reads back.
                self._values[head] = self._get(head).with_component(rest, v)
            self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string(key_path)
                                    + _wire.value(vtype, v))
            return
        sub = SUB_KEY_PATHS.get(key_path)
        if sub is None:
            raise PropertyError("unknown key path %r" % key_path)
        prop, vtype, components, non_negative = sub
        v = _VALUE_COERCE[vtype](value)
        parts = list(self._get(prop))
        for i, x in zip(components, v if isinstance(v, tuple) else (v,)):
            parts[i] = x
        whole = type(PROPERTIES[prop].default)(*parts)
        if _valid(vtype, non_negative, v) and _finite(whole) and _in_bounds(PROPERTIES[prop].bounds, whole):
            self._values[prop] = whole
        self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string(key_path)
                                + _wire.value(vtype, v))

    def value(self, key_path: str) -> Any:
        """The model value at a key path as this client set it (``position.x``, ``custom.NAME``,
        ``transform.rotation.z``: a transform's components read as the daemon reads them)."""
        if key_path == "frame":
            return self.frame
        if key_path.startswith("custom."):
            v = self._values.get(key_path)
            if v is None:
                raise PropertyError("%s is not set" % key_path)
            return v[0] if len(v) == 1 else list(v)
        if key_path in PROPERTIES:
            return self._get(key_path)
        field = _filter_field(key_path, self._get)
        if field is not None:
            prop, i, attr = field
            return getattr(self._get(prop)[i], attr)
        head, _, rest = key_path.partition(".")
        if head in PROPERTIES and PROPERTIES[head].type == "transform" and rest in _TRANSFORM_COMPONENTS:
            return self._get(head).component(rest)
        sub = SUB_KEY_PATHS.get(key_path)
        if sub is None:
            raise PropertyError("unknown key path %r" % key_path)
        prop, vtype, components, _ = sub
        whole = self._get(prop)
        parts = [whole[i] for i in components]
        return parts[0] if vtype == "number" else (Point(*parts) if vtype == "point" else Size(*parts))

    @property
    def frame(self) -> Rect:
        """``CALayer.frame``: the bounding box of the transformed bounds in the superlayer's
        coordinates. Setting it sets ``bounds.size`` and ``position`` for the current anchor point
        (the transform is ignored, as in Core Animation)."""
        b, p, a, t = self.bounds, self.position, self.anchor_point, self.transform
        ax, ay = b.width * a.x, b.height * a.y
        xs, ys = [], []
        for cx, cy in ((0, 0), (b.width, 0), (0, b.height), (b.width, b.height)):
            x, y, _ = t.apply(cx - ax, cy - ay, -self.anchor_point_z)
            xs.append(p.x + x)
            ys.append(p.y + y)
        return Rect(min(xs), min(ys), max(xs) - min(xs), max(ys) - min(ys))

    @frame.setter
    def frame(self, value: RectLike) -> None:
        r = coerce_rect(value)
        a = self.anchor_point
        if r.width >= 0 and r.height >= 0 and _finite(r):
            b = self.bounds
            self._values["bounds"] = Rect(b.x, b.y, r.width, r.height)
            self._values["position"] = Point(r.x + r.width * a.x, r.y + r.height * a.y)
        self._connection._stage(_wire.SET_PROPERTY, struct.pack("<I", self._id) + _wire.string("frame")
                                + _wire.value("rect", r))

    # MARK: layer time

    def _layer_time(self) -> Tuple[float, float]:
        """(scale, shift): this layer's local time is ``scale * t + shift`` at compositor time
        ``t``, from the ``speed``, ``time_offset`` and ``begin_time`` set on it and its
        superlayers (each maps its superlayer's local time s to
        ``(s - begin_time) * speed + time_offset``)."""
        scale, shift = self._superlayer._layer_time() if self._superlayer is not None else (1.0, 0.0)
        speed, offset, begin = self.speed, self.time_offset, self.begin_time
        if speed == 1 and offset == 0 and begin == 0:
            return scale, shift
        scale, shift = scale * speed, (shift - begin) * speed + offset
        if not (math.isfinite(scale) and math.isfinite(shift)):
            return 0.0, 0.0
        return scale, shift

    def convert_time(self, t: float, from_layer: Optional["Layer"] = None) -> float:
        """``CALayer.convertTime(_:from:)``: time ``t`` of ``from_layer``'s local time
        (compositor time, as ``Connection.current_time()`` answers it, for None) in this
        layer's local time. From a layer whose time is frozen (speed 0 on it or above) there
        is no way back: the answer is not finite."""
        if from_layer is not None:
            s, o = from_layer._layer_time()
            t = (t - o) / s if s != 0 else math.nan
        scale, shift = self._layer_time()
        return scale * t + shift

    def convert_time_to(self, t: float, to_layer: Optional["Layer"] = None) -> float:
        """``CALayer.convertTime(_:to:)``: time ``t`` of this layer's local time in
        ``to_layer``'s (compositor time for None)."""
        scale, shift = self._layer_time()
        c = (t - shift) / scale if scale != 0 else math.nan
        if to_layer is None:
            return c
        s, o = to_layer._layer_time()
        return s * c + o

    # MARK: hierarchy

    def add_sublayer(self, layer: "Layer") -> None:
        """Appends ``layer`` to the sublayers (moving it from its superlayer)."""
        self._check_own(layer)
        layer._detach()
        self._sublayers.append(layer)
        layer._superlayer = self
        layer._stage_transition()
        self._connection._stage(_wire.ADD_SUBLAYER, struct.pack("<II", self._id, layer._id))

    def insert_sublayer(self, layer: "Layer", index: int) -> None:
        """Inserts ``layer`` at ``index`` (clamped to the count, as CALayer)."""
        self._check_own(layer)
        layer._detach()
        at = min(max(index, 0), len(self._sublayers))
        self._sublayers.insert(at, layer)
        layer._superlayer = self
        layer._stage_transition()
        self._connection._stage(_wire.INSERT_SUBLAYER, struct.pack("<III", self._id, layer._id, at))

    def remove_from_superlayer(self) -> None:
        self._detach()
        self._stage_transition()
        self._connection._stage(_wire.REMOVE_FROM_SUPERLAYER, struct.pack("<I", self._id))

    def _stage_transition(self) -> None:
        """Stages ``transition`` before an insertion or removal (Reduce Motion: cross-fades)."""
        t = self.transition
        if t is None:
            return
        both = not (isinstance(t, dict) and ("insertion" in t or "removal" in t))
        pair = {"insertion": t, "removal": t} if both else dict(t)
        if self._connection.reduce_motion:
            pair = {k: _reducing_motion(v) for k, v in pair.items()}
        text = json.dumps(pair, separators=(",", ":"), allow_nan=False)
        self._connection._stage(_wire.SET_TRANSITIONS, struct.pack("<I", self._id) + _wire.string(text))

    def delete(self) -> None:
        """Destroys the layer in the daemon; its sublayers stay alive, detached."""
        self._detach()
        for s in self._sublayers:
            s._superlayer = None
        self._sublayers = []
        self._connection._stage(_wire.DELETE_LAYER, struct.pack("<I", self._id))
        self._connection._forget(self)

    def _check_own(self, layer: "Layer") -> None:
        if layer._connection is not self._connection:
            raise ValueError("a layer can only hold layers of its own connection")
        if layer._id == 0:
            raise ValueError("the root container cannot be a sublayer")

    def _detach(self) -> None:
        if self._superlayer is not None:
            self._superlayer._sublayers = [s for s in self._superlayer._sublayers if s is not self]
            self._superlayer = None

    # MARK: animations

    def add(self, animation: Animation, key: str = "", *, on_start: Optional[AnimationCallback] = None,
            on_stop: Optional[StopCallback] = None) -> None:
        """``CALayer.add(_:forKey:)``: adds an explicit animation, replacing the layer's animation
        with the same key (an empty key adds an anonymous one).

        ``on_start()`` and ``on_stop(finished)`` run (on the connection's delivery thread) when
        the daemon reports it started and stopped, once the commit is accepted. What the
        animation's JSON alone makes wrong is answered when it arrives (an ``ErrorEvent``; the
        commit raises ``transactionFailed``); what needs the layer is answered by the commit
        (``invalidAnimation``)."""
        body = struct.pack("<I", self._id) + _wire.string(key) + _wire.string(animation.to_json())
        self._connection._stage(_wire.ADD_ANIMATION, body)
        if on_start is not None or on_stop is not None:
            self._connection._add_delegate(self._id, key, on_start, on_stop)

    def remove_animation(self, key: str) -> None:
        """``CALayer.removeAnimation(forKey:)``."""
        self._connection._stage(_wire.REMOVE_ANIMATION, struct.pack("<I", self._id) + _wire.string(key))

    def remove_all_animations(self) -> None:
        """``CALayer.removeAllAnimations()`` (implicit animations too)."""
        self._connection._stage(_wire.REMOVE_ALL_ANIMATIONS, struct.pack("<I", self._id))

    # MARK: queries

    def presentation_value(self, key_path: str) -> Any:
        """The presentation value at a key path (the model value with the animations running
        now), from a frame that includes this client's commits (blocking)."""
        return self._connection.presentation_value(self, key_path)

    def presentation(self) -> "Presentation":
        """``CALayer.presentation()``: every property of the layer's kind as the daemon presents
        it now, asked in one write and answered from one frame."""
        keys = [k for k, info in PROPERTIES.items() if self.kind in info.kinds]
        values = self._connection._presentation_values(self._id, keys)
        return Presentation(self._id, self.kind, dict(zip(keys, values)))

    def hit_test(self, point: Tuple[float, float]) -> Optional["Layer"]:
        """``CALayer.hitTest``: this client's topmost layer under a canvas point in the
        presentation tree, or None (nothing there, or another client's layer)."""
        return self._connection.hit_test(point).layer


class ShapeLayer(Layer, _ShapeLayerAttributes):
    """``CAShapeLayer``: draws ``path``, filled and stroked."""
    kind = "shape"


class GradientLayer(Layer, _GradientLayerAttributes):
    """``CAGradientLayer``: draws a gradient of ``colors`` over its bounds."""
    kind = "gradient"


class TextLayer(Layer, _TextLayerAttributes):
    """``CATextLayer``: draws ``string`` (plain text or styled runs) in its bounds."""
    kind = "text"


class ReplicatorLayer(Layer, _ReplicatorLayerAttributes):
    """``CAReplicatorLayer``: draws its sublayers ``instance_count`` times, instance k moved by
    ``instance_transform`` applied k times (about the bounds' centre) and tinted by
    ``instance_color`` plus k times each offset. Only the sublayers themselves (instance 0)
    are hit-testable."""
    kind = "replicator"


class EmitterLayer(Layer, _EmitterLayerAttributes):
    """``CAEmitterLayer``: particles of its ``emitter_cells`` (``EmitterCell``), simulated by
    the compositor when it draws, from a seeded generator: the same ``seed`` and time give the
    same particles."""
    kind = "emitter"


class TiledLayer(Layer, _TiledLayerAttributes):
    """``CATiledLayer``: shows its ``contents`` image, of any size the daemon can read, through
    tiles the daemon makes off its render thread, only where and at the level of detail they
    are seen (``tile_size``, ``levels_of_detail``, ``levels_of_detail_bias``); a tile not ready
    shows the nearest coarser level, and fades in over ``fade_duration`` once ready."""
    kind = "tiled"


#: The class of each layer kind (every kind of ``_properties.LAYER_KINDS``).
LAYER_CLASSES: Dict[str, type] = {"layer": Layer, "shape": ShapeLayer, "gradient": GradientLayer, "text": TextLayer,
                                  "replicator": ReplicatorLayer, "emitter": EmitterLayer, "tiled": TiledLayer}


class Presentation:
    """A layer's presentation values (``Layer.presentation()``): read them as attributes with
    the layers' names (``p.opacity``, ``p.fill_color``) or by key path (``p.value("position")``)."""

    def __init__(self, layer_id: int, kind: str, values: Dict[str, Any]) -> None:
        self.layer_id = layer_id
        self.kind = kind
        self.values = values
        self._by_attribute = {PROPERTIES[k].attribute: k for k in values}

    def value(self, key_path: str) -> Any:
        if key_path in self.values:
            return self.values[key_path]
        field = _filter_field(key_path, lambda prop: self.values.get(prop, []))
        if field is not None:
            prop, i, attr = field
            return getattr(self.values[prop][i], attr)
        sub = SUB_KEY_PATHS.get(key_path)
        if sub is None or sub[0] not in self.values:
            raise KeyError(key_path)
        prop, vtype, components, _ = sub
        parts = [self.values[prop][i] for i in components]
        return parts[0] if vtype == "number" else (Point(*parts) if vtype == "point" else Size(*parts))

    def __getattr__(self, name: str) -> Any:
        by = self.__dict__.get("_by_attribute", {})
        if name in by:
            return self.values[by[name]]
        raise AttributeError("%s layer presentation has no %r" % (self.__dict__.get("kind", "?"), name))

    def __repr__(self) -> str:
        return "<Presentation of layer %d>" % self.layer_id


def _filter_field(key_path: str, lists: Callable[[str], Any]) -> Optional[Tuple[str, int, str]]:
    """For a named filter's number (``filters.NAME.radius``, ``backgroundFilters.NAME.amount``):
    the list's property, the filter's index in ``lists(property)`` and the field; None for other
    key paths. Raises ``PropertyError`` when the list has no filter of that name with that field
    (a blur has a radius, the CSS functions an amount, a color matrix neither)."""
    parts = key_path.split(".")
    if len(parts) != 3 or parts[0] not in ("filters", "backgroundFilters") or not parts[1] \
            or parts[2] not in ("radius", "amount"):
        return None
    for i, f in enumerate(lists(parts[0])):
        if f.name == parts[1]:
            if f.type != "colorMatrix" and (f.type == "gaussianBlur") == (parts[2] == "radius"):
                return parts[0], i, parts[2]
            break
    raise PropertyError("no filter named %r with %s in %s"
                        % (parts[1], "a radius" if parts[2] == "radius" else "an amount", parts[0]))


def _reducing_motion(t: Any) -> Any:
    """A transition under Reduce Motion: one that moves or scales becomes ``"opacity"``."""
    def fades(x: Any) -> bool:
        if x in ("identity", "opacity"):
            return True
        if isinstance(x, dict) and list(x) == ["combined"] and isinstance(x["combined"], list):
            return all(fades(e) for e in x["combined"])
        return False
    return t if fades(t) else "opacity"
