"""The wire format of docs/protocol.md 1.0: framing, VALUE, TIMING, requests and events.

Internal: the public API is in ``connection`` and ``layers``. Every integer is little-endian,
every float an IEEE 754 f64.
"""
from __future__ import annotations

import json
import math
import struct
from typing import Any, Dict, List, Optional, Tuple

from .values import (FILTER_TYPES, Color, Display, EmitterCell, Filter, Path, PathElement, PathTemplate, Point, Rect, Size,
                     StyledText, TextRun, Transform3D)

MAGIC = 0x414E4D4C
VERSION = (1, 0)
HEADER = struct.Struct("<IHHI")

# Requests.
HELLO, PING = 0x01, 0x02
CREATE_LAYER, DELETE_LAYER, SET_PROPERTY, ADD_SUBLAYER, INSERT_SUBLAYER = 0x10, 0x11, 0x12, 0x13, 0x14
REMOVE_FROM_SUPERLAYER, SET_TRANSACTION, ADD_ANIMATION, REMOVE_ANIMATION = 0x15, 0x16, 0x17, 0x18
REMOVE_ALL_ANIMATIONS, COMPLETION, COMMIT = 0x19, 0x1A, 0x20
SET_TRANSITIONS, MATCH = 0x1E, 0x1F
#: CATransition: staged, though outside 0x10…0x1F.
TRANSITION = 0x42
CAPTURE, ADVANCE_CLOCK, GET_TREE, GET_STATS, GET_PRESENTATION, HIT_TEST = 0x30, 0x31, 0x32, 0x33, 0x34, 0x35
SET_REDUCE_MOTION, UPLOAD_IMAGE, RELEASE_IMAGE, MEASURE_TEXT = 0x36, 0x38, 0x39, 0x3C
START_TRACE, STOP_TRACE, GET_TIME = 0x3A, 0x3B, 0x3D
# Surfaces.
ATTACH_BUFFER, FRAME_CALLBACK, PRESENTATION_FEEDBACK = 0x1B, 0x1C, 0x1D
CREATE_POOL, DESTROY_POOL, CREATE_BUFFER, DESTROY_BUFFER = 0x3E, 0x3F, 0x40, 0x41
#: A PNG file's descriptor for tiled layers (Images).
OPEN_IMAGE_FILE = 0x44
#: A client-drawn image for tiled layers, and one tile's answer (Images).
CREATE_TILED_IMAGE, PROVIDE_TILE = 0x45, 0x46

# Events.
WELCOME, PONG, ERROR, COMMITTED, CAPTURED, CLOCK_ADVANCED, TREE, STATS = 0x81, 0x82, 0x83, 0x84, 0x85, 0x86, 0x87, 0x88
PRESENTATION, HIT_RESULT, ANIMATION_STARTED, ANIMATION_STOPPED = 0x89, 0x8A, 0x8B, 0x8C
TRANSACTION_COMPLETED, DISPLAY_CHANGED, REDUCE_MOTION_CHANGED = 0x8D, 0x8E, 0x8F
POINTER_DOWN, POINTER_UP, POINTER_MOVED, SCROLL, KEY_DOWN, KEY_UP = 0x90, 0x91, 0x92, 0x93, 0x94, 0x95
POINTER_PATH = 0x96
#: The most hops a ``pointerPath`` has (LaminaWire's ``InputEvent.maxPointerHops``).
MAX_POINTER_HOPS = 1 << 16
IMAGE_UPLOADED, IMAGE_RELEASED, TEXT_MEASURED = 0xA1, 0xA2, 0xAC
TRACE_STARTED, TRACE, TIME = 0xA3, 0xA4, 0xAD
POOL_CREATED, POOL_DESTROYED, BUFFER_CREATED, BUFFER_DESTROYED = 0xA5, 0xA6, 0xA7, 0xA8
BUFFER_RELEASED, FRAME_DONE, PRESENTED = 0xA9, 0xAA, 0xAB
TILE_WANTED, TILE_CANCELLED = 0xAE, 0xAF

REQUEST_NAMES = {
    0x00: "connect", HELLO: "hello", PING: "ping", CREATE_LAYER: "createLayer", DELETE_LAYER: "deleteLayer",
    SET_PROPERTY: "setProperty", ADD_SUBLAYER: "addSublayer", INSERT_SUBLAYER: "insertSublayer",
    REMOVE_FROM_SUPERLAYER: "removeFromSuperlayer", SET_TRANSACTION: "setTransaction",
    ADD_ANIMATION: "addAnimation", REMOVE_ANIMATION: "removeAnimation",
    REMOVE_ALL_ANIMATIONS: "removeAllAnimations", COMPLETION: "completion", COMMIT: "commit", SET_TRANSITIONS: "setTransitions", MATCH: "match",
    TRANSITION: "transition",
    CAPTURE: "capture", ADVANCE_CLOCK: "advanceClock", GET_TREE: "getTree", GET_STATS: "getStats",
    START_TRACE: "startTrace", STOP_TRACE: "stopTrace", GET_TIME: "getTime",
    GET_PRESENTATION: "getPresentation", HIT_TEST: "hitTest", SET_REDUCE_MOTION: "setReduceMotion",
    UPLOAD_IMAGE: "uploadImage", RELEASE_IMAGE: "releaseImage", MEASURE_TEXT: "measureText",
    ATTACH_BUFFER: "attachBuffer", FRAME_CALLBACK: "frameCallback", PRESENTATION_FEEDBACK: "presentationFeedback",
    CREATE_POOL: "createPool", DESTROY_POOL: "destroyPool", CREATE_BUFFER: "createBuffer", DESTROY_BUFFER: "destroyBuffer",
    OPEN_IMAGE_FILE: "openImageFile", CREATE_TILED_IMAGE: "createTiledImage", PROVIDE_TILE: "provideTile",
}

LAYER_KINDS = {"layer": 0, "shape": 1, "gradient": 2, "text": 3, "surface": 4}


def is_staged(opcode: int) -> bool:
    return 0x10 <= opcode <= 0x1F or opcode == TRANSITION


#: CATransition's types and subtypes in their wire order.
TRANSITION_TYPES = ("fade", "moveIn", "push", "reveal")
TRANSITION_SUBTYPES = ("fromLeft", "fromRight", "fromTop", "fromBottom")


# MARK: encoding

def frame(opcode: int, request_id: int, body: bytes = b"") -> bytes:
    return HEADER.pack(12 + len(body), opcode, 0, request_id) + body


def string(s: str) -> bytes:
    b = s.encode("utf-8")
    return struct.pack("<I", len(b)) + b


def f64s(*xs: float) -> bytes:
    return struct.pack("<%dd" % len(xs), *xs)


def value(kind: str, v: Any) -> bytes:
    """A VALUE of the property type ``kind`` (a type of Properties.table, or ``number``/``numbers``
    for custom properties). ``v`` is already coerced to the type."""
    if kind in ("number", "cornerMask"):
        return b"\x01" + f64s(float(v))
    if kind == "point":
        return b"\x02" + f64s(*v)
    if kind == "size":
        return b"\x03" + f64s(*v)
    if kind == "rect":
        return b"\x04" + f64s(*v)
    if kind == "color":
        return b"\x00" if v is None else b"\x05" + f64s(*v)
    if kind == "transform":
        return b"\x06" + f64s(*v)
    if kind == "bool":
        return b"\x07" + (b"\x01" if v else b"\x00")
    if kind in ("string", "enum"):
        return b"\x08" + string(v)
    if kind == "image":
        return b"\x08" + string(v or "")
    if kind == "layer":   # a layer by its id, 0 for none
        return b"\x01" + f64s(float(v.id if v is not None else 0))
    if kind in ("numbers", "numbers?"):
        v = v or []
        return b"\x09" + struct.pack("<I", len(v)) + f64s(*v)
    if kind == "colors":
        out = [b"\x0C", struct.pack("<I", len(v))]
        out += [f64s(*c) for c in v]
        return b"".join(out)
    if kind == "path":
        if v is None:
            return b"\x0A"
        if isinstance(v, PathTemplate):
            return b"\x0D" + string(v.source)
        return path_value(v)
    if kind == "text":
        if isinstance(v, str):
            return b"\x08" + string(v)
        return styled_text(v)
    if kind == "emitterCells":
        # The scene format's list of CELL objects as JSON text.
        return b"\x10" + string(json.dumps([c.to_json() for c in v], separators=(",", ":")))
    if kind == "filters":
        # u32 count; per filter: name ("" for none), u8 type, radius | 20 numbers | amount.
        out = [b"\x0F", struct.pack("<I", len(v))]
        for f in v:
            out += [string(f.name or ""), struct.pack("<B", FILTER_TYPES.index(f.type))]
            if f.type == "gaussianBlur":
                out.append(f64s(f.radius))
            elif f.type == "colorMatrix":
                out.append(f64s(*f.matrix))
            else:
                out.append(f64s(f.amount))
        return b"".join(out)
    raise ValueError("no VALUE for type %r" % kind)


def path_value(p: Path) -> bytes:
    ops = {"move": 0, "line": 1, "quad": 2, "cubic": 3, "close": 4}
    out = [b"\x0B", struct.pack("<I", len(p.elements))]
    for e in p.elements:
        out.append(struct.pack("<B", ops[e.op]))
        for pt in e.points:
            out.append(f64s(pt.x, pt.y))
    return b"".join(out)


def styled_text(t: StyledText) -> bytes:
    out = [b"\x0E", struct.pack("<I", len(t.runs))]
    for r in t.runs:
        flags = (1 if r.font is not None else 0) | (2 if r.font_size is not None else 0) | (4 if r.color is not None else 0)
        out.append(string(r.text) + struct.pack("<B", flags))
        if r.font is not None:
            out.append(string(r.font))
        if r.font_size is not None:
            out.append(f64s(r.font_size))
        if r.color is not None:
            out.append(f64s(*r.color))
    return b"".join(out)


def guess_value(v: Any) -> bytes:
    """A VALUE for ``set_value`` with a value of no declared type: by its Python type."""
    # In order: a bool is an int too.
    for types, kind in ((bool, "bool"), ((int, float), "number"), (str, "string"), (Point, "point"),
                        (Size, "size"), (Rect, "rect"), (Color, "color"), (Transform3D, "transform"),
                        ((Path, PathTemplate), "path"), (StyledText, "text")):
        if isinstance(v, types):
            return value(kind, v)
    if isinstance(v, (list, tuple)) and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in v):
        return value("numbers", [float(x) for x in v])
    raise TypeError("cannot tell the VALUE type of %r" % (v,))


def timing(t: Any) -> bytes:
    """A TIMING from a ``TimingFunction`` (see ``animation.py``)."""
    kind, args = t.wire()
    if kind == "linear":
        return b"\x00"
    if kind == "bezier":
        return b"\x01" + f64s(*args)
    if kind == "steps":
        count, position = args
        return b"\x02" + struct.pack("<IB", count, {"start": 0, "end": 1, "none": 2, "both": 3}[position])
    if kind == "spring":
        return b"\x03" + f64s(*args)
    raise ValueError("unknown timing %r" % kind)


# MARK: decoding

class Reader:
    """Reads fields off a body; raises ``ValueError`` when it runs short."""

    def __init__(self, body: bytes) -> None:
        self.body = body
        self.at = 0

    def take(self, fmt: str) -> Tuple[Any, ...]:
        s = struct.calcsize("<" + fmt)
        if self.at + s > len(self.body):
            raise ValueError("body too short")
        out = struct.unpack_from("<" + fmt, self.body, self.at)
        self.at += s
        return out

    def u8(self) -> int:
        return int(self.take("B")[0])

    def u16(self) -> int:
        return int(self.take("H")[0])

    def u32(self) -> int:
        return int(self.take("I")[0])

    def u64(self) -> int:
        return int(self.take("Q")[0])

    def f64(self) -> float:
        return float(self.take("d")[0])

    def bool(self) -> bool:
        return self.u8() != 0

    def string(self) -> str:
        n = self.u32()
        if self.at + n > len(self.body):
            raise ValueError("string runs past the body")
        s = self.body[self.at:self.at + n].decode("utf-8")
        self.at += n
        return s

    def bytes(self) -> bytes:
        n = self.u32()
        b = self.body[self.at:self.at + n]
        self.at += n
        return bytes(b)

    def display(self) -> Display:
        w, h, scale, refresh = self.take("IIdd")
        return Display(w, h, scale, refresh)

    def value(self) -> Any:
        tag = self.u8()
        if tag in (0, 10):
            return None
        if tag == 1:
            return self.f64()
        if tag == 2:
            return Point(*self.take("2d"))
        if tag == 3:
            return Size(*self.take("2d"))
        if tag == 4:
            return Rect(*self.take("4d"))
        if tag == 5:
            return Color(*self.take("4d"))
        if tag == 6:
            return Transform3D(*self.take("16d"))
        if tag == 7:
            return self.bool()
        if tag in (8, 13):
            s = self.string()
            return s if tag == 8 else PathTemplate(s)
        if tag == 9:
            n = self.u32()
            return list(self.take("%dd" % n)) if n else []
        if tag == 11:
            n = self.u32()
            elements = []
            names = ["move", "line", "quad", "cubic", "close"]
            counts = [1, 1, 2, 3, 0]
            for _ in range(n):
                op = self.u8()
                pts = tuple(Point(*self.take("2d")) for _ in range(counts[op]))
                elements.append(PathElement(names[op], pts))
            return Path(elements)
        if tag == 12:
            n = self.u32()
            return [Color(*self.take("4d")) for _ in range(n)]
        if tag == 14:
            n = self.u32()
            runs = []
            for _ in range(n):
                text = self.string()
                flags = self.u8()
                font = self.string() if flags & 1 else None
                size = self.f64() if flags & 2 else None
                color = Color(*self.take("4d")) if flags & 4 else None
                runs.append(TextRun(text, font, size, color))
            return StyledText(tuple(runs))
        if tag == 16:
            return [EmitterCell.from_json(c) for c in json.loads(self.string())]
        if tag == 15:
            n = self.u32()
            filters = []
            for _ in range(n):
                name = self.string() or None
                kind = FILTER_TYPES[self.u8()]
                if kind == "gaussianBlur":
                    filters.append(Filter(kind, radius=self.f64(), name=name))
                elif kind == "colorMatrix":
                    filters.append(Filter(kind, matrix=tuple(self.take("20d")), name=name))
                else:
                    filters.append(Filter(kind, amount=self.f64(), name=name))
            return filters
        raise ValueError("unknown VALUE tag %d" % tag)


def error_fields(body: bytes) -> Dict[str, Any]:
    r = Reader(body)
    opcode, code, failed, failed_op, layer = r.take("HHIHI")
    key = r.string()
    message = r.string()
    return dict(opcode=opcode, code=code, failed_request=failed, failed_opcode=failed_op, layer=layer,
                key=key, message=message)


def nan_or(x: Optional[float]) -> float:
    return math.nan if x is None else float(x)


def split_messages(buffer: bytearray) -> List[Tuple[int, int, bytes]]:
    """Takes the whole messages off the front of ``buffer``: (opcode, request id, body)."""
    out = []
    at = 0
    n = len(buffer)
    while n - at >= 12:
        length, opcode, _flags, rid = HEADER.unpack_from(buffer, at)
        if length < 12:
            raise ValueError("a message of length %d" % length)
        if n - at < length:
            break
        out.append((opcode, rid, bytes(buffer[at + 12:at + length])))
        at += length
    del buffer[:at]
    return out
