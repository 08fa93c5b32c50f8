"""Value types of the protocol: geometry, colors, transforms, paths, styled text.

Each is a small immutable value (a ``NamedTuple`` where the value is a tuple of numbers), so
``layer.position = (10, 20)`` and ``layer.position = Point(10, 20)`` mean the same. Setters
coerce what they are given with the ``coerce_*`` functions at the end of this module.
"""
from __future__ import annotations

import enum
import math
from typing import Any, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple, Union

__all__ = [
    "Point", "Size", "Rect", "Color", "Transform3D", "Path", "PathTemplate", "TextRun", "StyledText",
    "CornerMask", "Display", "DecomposedTransform", "TRANSFORM_COMPONENTS",
]


class Point(NamedTuple):
    """A point (``CGPoint``), in points unless said otherwise."""
    x: float = 0.0
    y: float = 0.0


class Size(NamedTuple):
    """A size (``CGSize``)."""
    width: float = 0.0
    height: float = 0.0


class Rect(NamedTuple):
    """A rectangle (``CGRect``): origin ``x``, ``y`` and size ``width``, ``height``."""
    x: float = 0.0
    y: float = 0.0
    width: float = 0.0
    height: float = 0.0

    @property
    def origin(self) -> Point:
        return Point(self.x, self.y)

    @property
    def size(self) -> Size:
        return Size(self.width, self.height)

    @property
    def mid(self) -> Point:
        """The center."""
        return Point(self.x + self.width / 2, self.y + self.height / 2)

    def contains(self, p: Tuple[float, float]) -> bool:
        return self.x <= p[0] <= self.x + self.width and self.y <= p[1] <= self.y + self.height


class Color(NamedTuple):
    """An sRGB-encoded color with straight (not premultiplied) alpha, components 0…1."""
    red: float
    green: float
    blue: float
    alpha: float = 1.0

    @staticmethod
    def hex(text: str) -> "Color":
        """``Color.hex("#f80")``, ``"#ff8800"`` or ``"#ff8800cc"``."""
        h = text.lstrip("#")
        if len(h) == 3:
            h = "".join(c * 2 for c in h)
        if len(h) not in (6, 8):
            raise ValueError("a hex color has 3, 6 or 8 digits: %r" % text)
        parts = [int(h[i:i + 2], 16) / 255.0 for i in range(0, len(h), 2)]
        return Color(*parts)

    @staticmethod
    def gray(white: float, alpha: float = 1.0) -> "Color":
        return Color(white, white, white, alpha)

    def with_alpha(self, alpha: float) -> "Color":
        return Color(self.red, self.green, self.blue, alpha)


Color.black = Color(0.0, 0.0, 0.0, 1.0)  # type: ignore[attr-defined]
Color.white = Color(1.0, 1.0, 1.0, 1.0)  # type: ignore[attr-defined]
Color.clear = Color(0.0, 0.0, 0.0, 0.0)  # type: ignore[attr-defined]


class Transform3D(NamedTuple):
    """``CATransform3D``: a 4×4 matrix, row by row; a point is ``[x y z 1] × M``.

    Build one with the class methods and combine with ``concat`` (``a.concat(b)`` applies ``a``
    first, then ``b``, as ``CATransform3DConcat``).
    """
    m11: float = 1.0
    m12: float = 0.0
    m13: float = 0.0
    m14: float = 0.0
    m21: float = 0.0
    m22: float = 1.0
    m23: float = 0.0
    m24: float = 0.0
    m31: float = 0.0
    m32: float = 0.0
    m33: float = 1.0
    m34: float = 0.0
    m41: float = 0.0
    m42: float = 0.0
    m43: float = 0.0
    m44: float = 1.0

    @classmethod
    def identity(cls) -> "Transform3D":
        return cls()

    @classmethod
    def translation(cls, tx: float, ty: float, tz: float = 0.0) -> "Transform3D":
        return cls(m41=tx, m42=ty, m43=tz)

    @classmethod
    def scale(cls, sx: float, sy: Optional[float] = None, sz: float = 1.0) -> "Transform3D":
        return cls(m11=sx, m22=sx if sy is None else sy, m33=sz)

    @classmethod
    def rotation(cls, angle: float, x: float = 0.0, y: float = 0.0, z: float = 1.0) -> "Transform3D":
        """A rotation by ``angle`` radians about the axis (x, y, z) (default z: clockwise on screen)."""
        n = math.sqrt(x * x + y * y + z * z)
        if n == 0:
            return cls()
        x, y, z = x / n, y / n, z / n
        c, s = math.cos(angle), math.sin(angle)
        t = 1 - c
        # CATransform3DMakeRotation's matrix (row vectors).
        return cls(t * x * x + c, t * x * y + z * s, t * x * z - y * s, 0.0,
                   t * x * y - z * s, t * y * y + c, t * y * z + x * s, 0.0,
                   t * x * z + y * s, t * y * z - x * s, t * z * z + c, 0.0,
                   0.0, 0.0, 0.0, 1.0)

    @classmethod
    def perspective(cls, distance: float) -> "Transform3D":
        """The classic ``m34 = -1/d`` perspective."""
        return cls(m34=-1.0 / distance)

    def concat(self, other: "Transform3D") -> "Transform3D":
        a, b = self, other
        m = []
        for i in range(4):
            for j in range(4):
                m.append(sum(a[i * 4 + k] * b[k * 4 + j] for k in range(4)))
        return Transform3D(*m)

    def apply(self, x: float, y: float, z: float = 0.0) -> Tuple[float, float, float]:
        """The point ``(x, y, z)`` transformed (with the perspective divide)."""
        v = (x, y, z, 1.0)
        out = [sum(v[k] * self[k * 4 + j] for k in range(4)) for j in range(4)]
        w = out[3] if out[3] != 0 else 1.0
        return out[0] / w, out[1] / w, out[2] / w

    @property
    def is_identity(self) -> bool:
        return tuple(self) == tuple(Transform3D())

    def decomposed(self) -> Optional[DecomposedTransform]:
        """The parts of the matrix, or None when it does not decompose (m44 = 0, or a singular
        upper-left 3×3), as the daemon decomposes it."""
        if self.m44 == 0 or not math.isfinite(self.m44):
            return None
        n = 1 / self.m44
        m = [v * n for v in self]
        pm = list(m)
        pm[3] = pm[7] = pm[11] = 0.0
        pm[15] = 1.0
        det3 = (pm[0] * (pm[5] * pm[10] - pm[6] * pm[9]) - pm[1] * (pm[4] * pm[10] - pm[6] * pm[8])
                + pm[2] * (pm[4] * pm[9] - pm[5] * pm[8]))
        if not math.isfinite(det3) or abs(det3) <= 1e-12 or not all(math.isfinite(v) for v in m):
            return None
        perspective = (0.0, 0.0, 0.0, 1.0)
        if m[3] != 0 or m[7] != 0 or m[11] != 0:
            inv = _inverse4(pm)
            if inv is None:
                return None
            rhs = (m[3], m[7], m[11], 1.0)
            perspective = tuple(sum(inv[i * 4 + j] * rhs[j] for j in range(4)) for i in range(4))  # type: ignore[assignment]
        translation = (m[12], m[13], m[14])

        def length(v: List[float]) -> float:
            return math.sqrt(sum(x * x for x in v))

        def dot(a: List[float], b: List[float]) -> float:
            return sum(x * y for x, y in zip(a, b))

        row0, row1, row2 = m[0:3], m[4:7], m[8:11]
        sx = length(row0)
        row0 = [x / sx for x in row0]
        kx = dot(row0, row1)
        row1 = [b - a * kx for a, b in zip(row0, row1)]
        sy = length(row1)
        if sy <= 0:
            return None
        row1 = [x / sy for x in row1]
        kx /= sy
        ky = dot(row0, row2)
        row2 = [b - a * ky for a, b in zip(row0, row2)]
        kz = dot(row1, row2)
        row2 = [b - a * kz for a, b in zip(row1, row2)]
        sz = length(row2)
        if sz <= 0:
            return None
        row2 = [x / sz for x in row2]
        ky /= sz
        kz /= sz
        cross = [row1[1] * row2[2] - row1[2] * row2[1], row1[2] * row2[0] - row1[0] * row2[2],
                 row1[0] * row2[1] - row1[1] * row2[0]]
        if dot(row0, cross) < 0:
            sx, sy, sz = -sx, -sy, -sz
            row0, row1, row2 = [-x for x in row0], [-x for x in row1], [-x for x in row2]
        c00, c11, c22 = row0[0], row1[1], row2[2]
        c10, c01, c20, c02, c21, c12 = row0[1], row1[0], row0[2], row2[0], row1[2], row2[1]
        trace = c00 + c11 + c22
        if trace > 0:
            s = math.sqrt(trace + 1) * 2
            q = ((c21 - c12) / s, (c02 - c20) / s, (c10 - c01) / s, s / 4)
        elif c00 > c11 and c00 > c22:
            s = math.sqrt(1 + c00 - c11 - c22) * 2
            q = (s / 4, (c01 + c10) / s, (c02 + c20) / s, (c21 - c12) / s)
        elif c11 > c22:
            s = math.sqrt(1 + c11 - c00 - c22) * 2
            q = ((c01 + c10) / s, s / 4, (c12 + c21) / s, (c02 - c20) / s)
        else:
            s = math.sqrt(1 + c22 - c00 - c11) * 2
            q = ((c02 + c20) / s, (c12 + c21) / s, s / 4, (c10 - c01) / s)
        if q[3] < 0:
            q = (-q[0], -q[1], -q[2], -q[3])
        ql = math.sqrt(sum(c * c for c in q))
        q = (q[0] / ql, q[1] / ql, q[2] / ql, q[3] / ql)
        return DecomposedTransform((translation[0], translation[1], translation[2]), (sx, sy, sz), (kx, ky, kz),
                                   perspective, q)

    def component(self, name: str) -> Union[float, "Size"]:
        """A transform sub-key-path's value (``rotation.z`` in radians, ``scale`` the mean of
        the three, ``translation`` a ``Size``), as the daemon reads it."""
        d = self.decomposed()
        if name == "translation":
            return Size(d.translation[0], d.translation[1]) if d else Size(0.0, 0.0)
        if d is None:
            d = DecomposedTransform(scale=(0.0, 0.0, 0.0))
        if name.startswith("rotation"):
            e = _euler_angles(_quaternion_rows(d.rotation))
            return e[{"rotation.x": 0, "rotation.y": 1}.get(name, 2)]
        if name == "scale":
            return sum(d.scale) / 3
        if name.startswith("scale."):
            return d.scale["xyz".index(name[-1])]
        if name.startswith("translation."):
            return d.translation["xyz".index(name[-1])]
        raise ValueError("unknown transform component %r" % name)

    def with_component(self, name: str, value: Union[float, Tuple[float, float]]) -> "Transform3D":
        """The matrix with one sub-key-path's value replaced (recomposed from its parts; a matrix
        that does not decompose counts as the identity), as the daemon sets it."""
        d = self.decomposed() or DecomposedTransform()
        if name == "translation":
            w, h = value  # type: ignore[misc]
            return d._replace(translation=(float(w), float(h), d.translation[2])).recomposed()
        v = float(value)  # type: ignore[arg-type]
        if name.startswith("rotation"):
            e = list(_euler_angles(_quaternion_rows(d.rotation)))
            e[{"rotation.x": 0, "rotation.y": 1}.get(name, 2)] = v
            return d.recomposed(_euler_rows(e[0], e[1], e[2]))
        if name == "scale":
            return d._replace(scale=(v, v, v)).recomposed()
        if name.startswith("scale."):
            sc = list(d.scale)
            sc["xyz".index(name[-1])] = v
            return d._replace(scale=(sc[0], sc[1], sc[2])).recomposed()
        if name.startswith("translation."):
            tr = list(d.translation)
            tr["xyz".index(name[-1])] = v
            return d._replace(translation=(tr[0], tr[1], tr[2])).recomposed()
        raise ValueError("unknown transform component %r" % name)


class DecomposedTransform(NamedTuple):
    """A ``Transform3D``'s parts (CSS Transforms 2's "unmatrix", as the daemon decomposes):
    a point is scaled, skewed, rotated (a unit quaternion x, y, z, w), translated, then
    projected by ``perspective`` (the normalized matrix's fourth column)."""
    translation: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    scale: Tuple[float, float, float] = (1.0, 1.0, 1.0)
    skew: Tuple[float, float, float] = (0.0, 0.0, 0.0)
    perspective: Tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)
    rotation: Tuple[float, float, float, float] = (0.0, 0.0, 0.0, 1.0)

    def recomposed(self, rotation_rows: Optional[Tuple[Tuple[float, float, float], ...]] = None) -> "Transform3D":
        """The matrix of these parts (the rotation's rows may be given instead of the quaternion)."""
        r0, r1, r2 = rotation_rows if rotation_rows is not None else _quaternion_rows(self.rotation)
        sx, sy, sz = self.scale
        kx, ky, kz = self.skew
        a0 = [c * sx for c in r0]
        a1 = [(r1[i] + r0[i] * kx) * sy for i in range(3)]
        a2 = [(r2[i] + r0[i] * ky + r1[i] * kz) * sz for i in range(3)]
        p, t = self.perspective, self.translation

        def dot3(a: Sequence[float]) -> float:
            return a[0] * p[0] + a[1] * p[1] + a[2] * p[2]
        return Transform3D(a0[0], a0[1], a0[2], dot3(a0), a1[0], a1[1], a1[2], dot3(a1),
                           a2[0], a2[1], a2[2], dot3(a2), t[0], t[1], t[2], dot3(t) + p[3])


def _quaternion_rows(q: Tuple[float, float, float, float]) -> Tuple[Tuple[float, float, float], ...]:
    x, y, z, w = q
    return ((1 - 2 * (y * y + z * z), 2 * (x * y + z * w), 2 * (x * z - y * w)),
            (2 * (x * y - z * w), 1 - 2 * (x * x + z * z), 2 * (y * z + x * w)),
            (2 * (x * z + y * w), 2 * (y * z - x * w), 1 - 2 * (x * x + y * y)))


def _euler_rows(ex: float, ey: float, ez: float) -> Tuple[Tuple[float, float, float], ...]:
    """Rows of Rx·Ry·Rz (row vectors)."""
    sa, ca = math.sin(ex), math.cos(ex)
    sb, cb = math.sin(ey), math.cos(ey)
    sc, cc = math.sin(ez), math.cos(ez)
    return ((cb * cc, cb * sc, -sb),
            (sa * sb * cc - ca * sc, sa * sb * sc + ca * cc, sa * cb),
            (ca * sb * cc + sa * sc, ca * sb * sc - sa * cc, ca * cb))


def _euler_angles(rows: Tuple[Tuple[float, float, float], ...]) -> Tuple[float, float, float]:
    """Euler angles (x, y, z) of a rotation M = Rx·Ry·Rz (row vectors)."""
    sy = min(max(-rows[0][2], -1.0), 1.0)
    b = math.asin(sy)
    if abs(sy) < 0.9999999:
        return math.atan2(rows[1][2], rows[2][2]), b, math.atan2(rows[0][1], rows[0][0])
    return math.atan2(-rows[2][1], rows[1][1]), b, 0.0   # gimbal lock: the rest in x


def _inverse4(m: Sequence[float]) -> Optional[List[float]]:
    a = [list(m[i * 4:i * 4 + 4]) + [1.0 if i == j else 0.0 for j in range(4)] for i in range(4)]
    for c in range(4):
        pivot = max(range(c, 4), key=lambda r: abs(a[r][c]))
        if abs(a[pivot][c]) < 1e-300:
            return None
        a[c], a[pivot] = a[pivot], a[c]
        f = a[c][c]
        a[c] = [x / f for x in a[c]]
        for r in range(4):
            if r != c and a[r][c] != 0:
                g = a[r][c]
                a[r] = [x - g * y for x, y in zip(a[r], a[c])]
    return [a[i][4 + j] for i in range(4) for j in range(4)]


#: Core Animation's transform sub-key-paths and what a value of each is.
TRANSFORM_COMPONENTS = ("rotation.x", "rotation.y", "rotation.z", "rotation", "scale.x", "scale.y", "scale.z",
                        "scale", "translation.x", "translation.y", "translation.z", "translation")


class PathElement(NamedTuple):
    """One element of a ``Path``: an op (``move``, ``line``, ``quad``, ``cubic``, ``close``) and its points."""
    op: str
    points: Tuple[Point, ...]


_OPS = {"move": 0, "line": 1, "quad": 2, "cubic": 3, "close": 4}
_OP_POINTS = {"move": 1, "line": 1, "quad": 2, "cubic": 3, "close": 0}
_KAPPA = 0.5522847498307936


class Path:
    """A ``CGPath`` built element by element (``move_to``, ``line_to``, ``quad_to``,
    ``curve_to``, ``close``), or with ``Path.rect``, ``Path.ellipse``, ``Path.rounded_rect``.
    Immutable once given to a layer (the builder methods return the path, to chain)."""

    __slots__ = ("elements",)

    def __init__(self, elements: Iterable[PathElement] = ()) -> None:
        self.elements: List[PathElement] = list(elements)

    def move_to(self, x: float, y: float) -> "Path":
        self.elements.append(PathElement("move", (Point(x, y),)))
        return self

    def line_to(self, x: float, y: float) -> "Path":
        self.elements.append(PathElement("line", (Point(x, y),)))
        return self

    def quad_to(self, cx: float, cy: float, x: float, y: float) -> "Path":
        self.elements.append(PathElement("quad", (Point(cx, cy), Point(x, y))))
        return self

    def curve_to(self, c1x: float, c1y: float, c2x: float, c2y: float, x: float, y: float) -> "Path":
        self.elements.append(PathElement("cubic", (Point(c1x, c1y), Point(c2x, c2y), Point(x, y))))
        return self

    def close(self) -> "Path":
        self.elements.append(PathElement("close", ()))
        return self

    @classmethod
    def rect(cls, r: Tuple[float, float, float, float]) -> "Path":
        x, y, w, h = r
        return cls().move_to(x, y).line_to(x + w, y).line_to(x + w, y + h).line_to(x, y + h).close()

    @classmethod
    def ellipse(cls, r: Tuple[float, float, float, float]) -> "Path":
        x, y, w, h = r
        rx, ry = w / 2, h / 2
        cx, cy = x + rx, y + ry
        kx, ky = rx * _KAPPA, ry * _KAPPA
        return (cls().move_to(cx + rx, cy)
                .curve_to(cx + rx, cy + ky, cx + kx, cy + ry, cx, cy + ry)
                .curve_to(cx - kx, cy + ry, cx - rx, cy + ky, cx - rx, cy)
                .curve_to(cx - rx, cy - ky, cx - kx, cy - ry, cx, cy - ry)
                .curve_to(cx + kx, cy - ry, cx + rx, cy - ky, cx + rx, cy)
                .close())

    @classmethod
    def rounded_rect(cls, r: Tuple[float, float, float, float], radius: float) -> "Path":
        x, y, w, h = r
        rad = max(0.0, min(radius, w / 2, h / 2))
        k = rad * (1 - _KAPPA)
        return (cls().move_to(x + rad, y)
                .line_to(x + w - rad, y).curve_to(x + w - k, y, x + w, y + k, x + w, y + rad)
                .line_to(x + w, y + h - rad).curve_to(x + w, y + h - k, x + w - k, y + h, x + w - rad, y + h)
                .line_to(x + rad, y + h).curve_to(x + k, y + h, x, y + h - k, x, y + h - rad)
                .line_to(x, y + rad).curve_to(x, y + k, x + k, y, x + rad, y)
                .close())

    def svg(self) -> str:
        """The path as SVG path data (the form animations' JSON takes)."""
        letters = {"move": "M", "line": "L", "quad": "Q", "cubic": "C", "close": "Z"}
        out = []
        for e in self.elements:
            out.append(" ".join([letters[e.op]] + ["%r %r" % (float(p.x), float(p.y)) for p in e.points]))
        return " ".join(out)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Path) and self.elements == other.elements

    def __hash__(self) -> int:
        return hash(tuple(self.elements))

    def __repr__(self) -> str:
        return "Path(%r)" % self.svg()


class PathTemplate(NamedTuple):
    """A path template's source (docs/scene-format.md, "Path templates"): a program the
    compositor reruns when the custom properties or bounds it reads change."""
    source: str


class TextRun(NamedTuple):
    """A run of styled text: its own font, size and color where given (else the layer's)."""
    text: str
    font: Optional[str] = None
    font_size: Optional[float] = None
    color: Optional[Color] = None


class StyledText(NamedTuple):
    """Text as styled runs (``TextLayer.string``, ``Connection.measure_text``)."""
    runs: Tuple[TextRun, ...]

    @property
    def string(self) -> str:
        return "".join(r.text for r in self.runs)


class CornerMask(enum.IntFlag):
    """Which corners ``corner_radius`` rounds (``maskedCorners``)."""
    MIN_X_MIN_Y = 1
    MAX_X_MIN_Y = 2
    MIN_X_MAX_Y = 4
    MAX_X_MAX_Y = 8
    ALL = 15


class Display(NamedTuple):
    """The display: the canvas size in points, pixels per point, frames per second."""
    width: int
    height: int
    scale: float
    refresh_rate: float


# MARK: coercion (what setters accept)

Number = Union[int, float]
PointLike = Union[Point, Tuple[float, float], Sequence[float]]
SizeLike = Union[Size, Tuple[float, float], Sequence[float]]
RectLike = Union[Rect, Tuple[float, float, float, float], Sequence[float]]
ColorLike = Union[Color, Tuple[float, float, float], Tuple[float, float, float, float], str, None]


def coerce_number(v: object) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError("expected a number, got %r" % (v,))
    return float(v)


def _numbers(v: object, n: int, what: str) -> List[float]:
    try:
        items = list(v)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError("expected a %s (%d numbers), got %r" % (what, n, v)) from None
    if len(items) != n:
        raise TypeError("expected a %s (%d numbers), got %r" % (what, n, v))
    return [coerce_number(x) for x in items]


def coerce_point(v: object) -> Point:
    return Point(*_numbers(v, 2, "point"))


def coerce_size(v: object) -> Size:
    return Size(*_numbers(v, 2, "size"))


def coerce_rect(v: object) -> Rect:
    return Rect(*_numbers(v, 4, "rect"))


def coerce_color(v: object) -> Optional[Color]:
    if v is None:
        return None
    if isinstance(v, str):
        return Color.hex(v)
    try:
        items = list(v)  # type: ignore[call-overload]
    except TypeError:
        raise TypeError("expected a color, got %r" % (v,)) from None
    if len(items) == 3:
        items.append(1.0)
    if len(items) != 4:
        raise TypeError("expected a color (3 or 4 numbers, or '#rrggbb'), got %r" % (v,))
    return Color(*[coerce_number(x) for x in items])


def coerce_colors(v: object) -> List[Color]:
    out = []
    for c in v:  # type: ignore[attr-defined]
        cc = coerce_color(c)
        if cc is None:
            raise TypeError("a color list holds no None")
        out.append(cc)
    return out


def coerce_transform(v: object) -> Transform3D:
    return Transform3D(*_numbers(v, 16, "transform"))


def coerce_numbers(v: object) -> List[float]:
    return [coerce_number(x) for x in v]  # type: ignore[attr-defined]


def coerce_optional_numbers(v: object) -> Optional[List[float]]:
    return None if v is None else coerce_numbers(v)


def coerce_bool(v: object) -> bool:
    if not isinstance(v, bool):
        raise TypeError("expected a bool, got %r" % (v,))
    return v


def coerce_path(v: object) -> Union[Path, PathTemplate, None]:
    if v is None or isinstance(v, (Path, PathTemplate)):
        return v
    raise TypeError("expected a Path, a PathTemplate or None, got %r" % (v,))


def coerce_corner_mask(v: object) -> Union[CornerMask, int]:
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError("expected a CornerMask, got %r" % (v,))
    return CornerMask(v) if 0 <= v <= 15 else v  # out of range: staged, refused at commit


def coerce_image(v: object) -> Optional[str]:
    if v is None:
        return None
    name = getattr(v, "name", v)   # an Image, or its name
    if not isinstance(name, str):
        raise TypeError("expected an Image, an image name or None, got %r" % (v,))
    return name or None


def coerce_layer(v: object) -> Any:
    """A layer (``mask``): a ``Layer`` of the same connection (checked where it is set), or None."""
    if v is None:
        return None
    if not isinstance(getattr(v, "id", None), int) or not hasattr(v, "connection"):
        raise TypeError("expected a Layer or None, got %r" % (v,))
    return v


def coerce_string(v: object) -> str:
    if not isinstance(v, str):
        raise TypeError("expected a str, got %r" % (v,))
    return v


def coerce_text(v: object) -> Union[str, StyledText]:
    if isinstance(v, (str, StyledText)):
        return v
    if isinstance(v, (list, tuple)) and all(isinstance(r, TextRun) for r in v):
        return StyledText(tuple(v))
    raise TypeError("expected a str, a StyledText or a list of TextRun, got %r" % (v,))


#: The filter types, in their wire order.
FILTER_TYPES = ("gaussianBlur", "colorMatrix", "saturate", "brightness", "contrast", "grayscale", "invert", "opacity")


class Filter(NamedTuple):
    """One entry of ``filters``: ``Filter("gaussianBlur", radius=4)``,
    ``Filter("colorMatrix", matrix=[20 numbers])`` (4×5, row by row, on unpremultiplied
    values) or ``Filter("saturate", amount=0.5)`` (also brightness, contrast, grayscale, invert,
    opacity: CSS Filter Effects formulas). ``name`` is optional and unique within a list."""
    type: str
    radius: float = 0.0
    amount: float = 1.0
    matrix: Tuple[float, ...] = ()
    name: Optional[str] = None


def coerce_filters(v: object) -> List[Filter]:
    out: List[Filter] = []
    names = set()
    for f in v:  # type: ignore[attr-defined]
        if isinstance(f, dict):
            f = Filter(**f)
        if not isinstance(f, Filter):
            raise TypeError("expected a Filter, got %r" % (f,))
        if f.type not in FILTER_TYPES:
            raise ValueError("filter type must be one of %s, got %r" % (", ".join(FILTER_TYPES), f.type))
        radius, amount = coerce_number(f.radius), coerce_number(f.amount)
        matrix = tuple(coerce_number(x) for x in f.matrix)
        if not math.isfinite(radius) or radius < 0 or not math.isfinite(amount) or amount < 0:
            raise ValueError("a filter's radius and amount must be finite and >= 0: %r" % (f,))
        if f.type == "colorMatrix" and (len(matrix) != 20 or not all(math.isfinite(x) for x in matrix)):
            raise ValueError("a colorMatrix takes 20 finite numbers: %r" % (f,))
        if f.name is not None:
            if not f.name or "." in f.name or f.name in names:
                raise ValueError("a filter's name must be non-empty, without '.', unique in its list: %r" % (f.name,))
            names.add(f.name)
        out.append(Filter(f.type, radius, amount, matrix, f.name))
    return out


#: An emitter cell's number fields and their defaults (CAEmitterCell's).
EMITTER_CELL_NUMBERS: Dict[str, float] = {
    "birthRate": 0.0, "lifetime": 0.0, "lifetimeRange": 0.0, "velocity": 0.0, "velocityRange": 0.0,
    "xAcceleration": 0.0, "yAcceleration": 0.0, "zAcceleration": 0.0, "emissionLatitude": 0.0,
    "emissionLongitude": 0.0, "emissionRange": 0.0, "spin": 0.0, "spinRange": 0.0, "scale": 1.0, "scaleRange": 0.0,
    "scaleSpeed": 0.0, "redRange": 0.0, "greenRange": 0.0, "blueRange": 0.0, "alphaRange": 0.0, "redSpeed": 0.0,
    "greenSpeed": 0.0, "blueSpeed": 0.0, "alphaSpeed": 0.0, "beginTime": 0.0, "duration": 0.0, "speed": 1.0,
    "timeOffset": 0.0,
}
_CELL_OTHER = ("name", "enabled", "contents", "contentsRect", "color", "minificationFilter", "magnificationFilter",
               "emitterCells")


class EmitterCell:
    """One ``CAEmitterCell`` of an emitter layer's ``emitter_cells``: the scene format's CELL
    fields by their Core Animation names, as keyword arguments and attributes
    (``EmitterCell(birthRate=20, lifetime=2, velocity=100, color="#ffd166")``); unset fields
    keep CAEmitterCell's defaults. ``contents`` is an image name (or an ``Image``) or None (a
    1-point white square); ``emitterCells`` a list of nested cells."""

    def __init__(self, **fields: Any) -> None:
        for key in fields:
            if key not in EMITTER_CELL_NUMBERS and key not in _CELL_OTHER:
                raise ValueError("unknown emitter cell field %r" % key)
        self.fields: Dict[str, Any] = {}
        for key, v in fields.items():
            if key in EMITTER_CELL_NUMBERS:
                x = coerce_number(v)
                if not math.isfinite(x):
                    raise ValueError("emitter cell field %s must be finite, got %r" % (key, v))
                self.fields[key] = x
            elif key == "color":
                c = coerce_color(v)
                if c is None:
                    raise ValueError("an emitter cell's color is a color, not None")
                self.fields[key] = c
            elif key == "contentsRect":
                self.fields[key] = coerce_rect(v)
            elif key == "emitterCells":
                self.fields[key] = coerce_emitter_cells(v)
            elif key == "enabled":
                self.fields[key] = coerce_bool(v)
            elif key == "contents":
                name = getattr(v, "name", v)
                if name is not None and (not isinstance(name, str) or not name):
                    raise TypeError("an emitter cell's contents is an image name, an Image or None, got %r" % (v,))
                self.fields[key] = name
            else:
                if not isinstance(v, str):
                    raise TypeError("emitter cell field %s must be a string, got %r" % (key, v))
                self.fields[key] = v

    def __getattr__(self, key: str) -> Any:
        if key == "fields":
            raise AttributeError(key)
        if key in self.fields:
            return self.fields[key]
        if key in EMITTER_CELL_NUMBERS:
            return EMITTER_CELL_NUMBERS[key]
        defaults = {"name": "", "enabled": True, "contents": None, "contentsRect": Rect(0.0, 0.0, 1.0, 1.0),
                    "color": Color(1.0, 1.0, 1.0, 1.0), "minificationFilter": "linear",
                    "magnificationFilter": "linear", "emitterCells": []}
        if key in defaults:
            return defaults[key]
        raise AttributeError(key)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, EmitterCell) and self.to_json() == other.to_json()

    def __repr__(self) -> str:
        return "EmitterCell(%s)" % ", ".join("%s=%r" % kv for kv in self.fields.items())

    def to_json(self) -> Dict[str, Any]:
        """The scene format's CELL object (the fields set)."""
        out: Dict[str, Any] = {}
        for key, v in self.fields.items():
            if key in ("color", "contentsRect"):
                out[key] = [float(x) for x in v]
            elif key == "emitterCells":
                out[key] = [c.to_json() for c in v]
            else:
                out[key] = v
        return out

    @staticmethod
    def from_json(obj: Dict[str, Any]) -> "EmitterCell":
        fields = dict(obj)
        if "emitterCells" in fields:
            fields["emitterCells"] = [EmitterCell.from_json(c) for c in fields["emitterCells"]]
        return EmitterCell(**fields)


def coerce_emitter_cells(v: object) -> List[EmitterCell]:
    out: List[EmitterCell] = []
    for c in v:  # type: ignore[attr-defined]
        if isinstance(c, dict):
            c = EmitterCell(**c)
        if not isinstance(c, EmitterCell):
            raise TypeError("expected an EmitterCell, got %r" % (c,))
        out.append(c)
    return out
