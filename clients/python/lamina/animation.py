"""Animations (CAAnimation and SwiftUI's keyframe and phase animators) and timing functions.

Every animation is a description: build it, then ``layer.add(animation, key="...")`` stages it
(docs/protocol.md, "Animations"). Values are given in the key path's type — numbers,
``Point``/tuples, ``Color``/``"#rrggbb"``, ``Transform3D`` or CSS-like operation lists,
``Path`` — and sent as the protocol's JSON. Fields left ``None`` take the daemon's defaults.
"""
from __future__ import annotations

import json
import math
from typing import Any, Dict, Mapping, Optional, Sequence, Tuple, Union

from .values import Path, PathTemplate

__all__ = [
    "TimingFunction", "TimingLike", "Animation", "BasicAnimation", "KeyframeAnimation", "SpringAnimation",
    "AnimationGroup", "KeyframesAnimation", "Keyframe", "PhaseAnimation", "Phase", "ExpressionAnimation",
]


class TimingFunction:
    """A timing function (``CAMediaTimingFunction``, CSS ``steps()``, or a spring as a curve).

    ``TimingFunction.named("easeIn")`` (also ``linear``, ``easeOut``, ``easeInEaseOut``,
    ``default``, ``smooth``, ``snappy``, ``bouncy``), ``TimingFunction.bezier(x1, y1, x2, y2)``,
    ``TimingFunction.steps(n, "end")``, ``TimingFunction.spring(mass=1, stiffness=100, damping=10)``
    or ``TimingFunction.spring(perceptual_duration=0.5, bounce=0.2)``. Anywhere a timing function
    is taken, its name (``"easeIn"``) or four numbers work too.
    """

    BEZIERS = {"easeIn": (0.42, 0.0, 1.0, 1.0), "easeOut": (0.0, 0.0, 0.58, 1.0),
               "easeInEaseOut": (0.42, 0.0, 0.58, 1.0), "default": (0.25, 0.1, 0.25, 1.0)}
    SPRINGS = {"smooth": 0.0, "snappy": 0.15, "bouncy": 0.3}

    def __init__(self, kind: str, args: Tuple[Any, ...], json_form: Any) -> None:
        self.kind = kind
        self.args = args
        self._json = json_form

    @classmethod
    def named(cls, name: str) -> "TimingFunction":
        if name == "linear":
            return cls("linear", (), "linear")
        if name in cls.BEZIERS:
            return cls("bezier", cls.BEZIERS[name], name)
        if name in cls.SPRINGS:
            m, k, c = spring_parameters(0.5, cls.SPRINGS[name])
            return cls("spring", (m, k, c, 0.0), name)
        raise ValueError("unknown timing function %r" % name)

    @classmethod
    def bezier(cls, x1: float, y1: float, x2: float, y2: float) -> "TimingFunction":
        args = (float(x1), float(y1), float(x2), float(y2))
        return cls("bezier", args, list(args))

    @classmethod
    def steps(cls, count: int, position: str = "end") -> "TimingFunction":
        return cls("steps", (int(count), position), {"steps": int(count), "position": position})

    @classmethod
    def spring(cls, mass: Optional[float] = None, stiffness: Optional[float] = None, damping: Optional[float] = None,
               initial_velocity: float = 0.0, perceptual_duration: Optional[float] = None,
               bounce: Optional[float] = None) -> "TimingFunction":
        if perceptual_duration is not None or bounce is not None:
            d = 0.5 if perceptual_duration is None else perceptual_duration
            b = 0.0 if bounce is None else bounce
            m, k, c = spring_parameters(d, b)
            j: Dict[str, Any] = {"perceptualDuration": d, "bounce": b, "initialVelocity": initial_velocity}
        else:
            m = 1.0 if mass is None else mass
            k = 100.0 if stiffness is None else stiffness
            c = 10.0 if damping is None else damping
            j = {"mass": m, "stiffness": k, "damping": c, "initialVelocity": initial_velocity}
        return cls("spring", (float(m), float(k), float(c), float(initial_velocity)), {"spring": j})

    def wire(self) -> Tuple[str, Tuple[Any, ...]]:
        """The TIMING form: (linear | bezier | steps | spring, its fields)."""
        return self.kind, self.args

    def json(self) -> Any:
        return self._json

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TimingFunction) and (self.kind, self.args) == (other.kind, other.args)

    def __hash__(self) -> int:
        return hash((self.kind, self.args))

    def __repr__(self) -> str:
        return "TimingFunction(%r)" % (self._json,)


TimingLike = Union[TimingFunction, str, Sequence[float]]


def timing_function(t: TimingLike) -> TimingFunction:
    if isinstance(t, TimingFunction):
        return t
    if isinstance(t, str):
        return TimingFunction.named(t)
    return TimingFunction.bezier(*t)


def spring_parameters(perceptual_duration: float, bounce: float) -> Tuple[float, float, float]:
    """SwiftUI's mapping (docs/protocol.md, "Springs"): mass, stiffness, damping."""
    d, b = perceptual_duration, bounce
    zeta = 1 - b if b >= 0 else 1 / (1 + b)
    return 1.0, (2 * math.pi / d) ** 2, 4 * math.pi * zeta / d


def json_value(v: Any) -> Any:
    """A value in the protocol's JSON form."""
    if isinstance(v, Path):
        return v.svg()
    if isinstance(v, PathTemplate):
        raise TypeError("a path template is not an animation value")
    if isinstance(v, TimingFunction):
        return v.json()
    if isinstance(v, float) and not math.isfinite(v):
        raise ValueError("animation values must be finite: %r" % v)
    if isinstance(v, tuple) or isinstance(v, list):
        return [json_value(x) for x in v]
    if isinstance(v, Mapping):
        return {k: json_value(x) for k, x in v.items()}
    return v


class Animation:
    """What every animation has: CAMediaTiming's fields (docs/protocol.md, "Timing fields").

    ``repeat_count`` may be ``math.inf``; ``fill_mode`` is ``"removed"``, ``"forwards"``,
    ``"backwards"`` or ``"both"``.
    """

    type = ""

    def __init__(self, *, duration: Optional[float] = None, begin_time: Optional[float] = None,
                 timing_function: Optional[TimingLike] = None, repeat_count: Optional[float] = None,
                 repeat_duration: Optional[float] = None, autoreverses: Optional[bool] = None,
                 fill_mode: Optional[str] = None, removed_on_completion: Optional[bool] = None,
                 speed: Optional[float] = None, time_offset: Optional[float] = None, additive: Optional[bool] = None,
                 cumulative: Optional[bool] = None, essential: Optional[bool] = None) -> None:
        self.duration = duration
        self.begin_time = begin_time
        self.timing_function = timing_function
        self.repeat_count = repeat_count
        self.repeat_duration = repeat_duration
        self.autoreverses = autoreverses
        self.fill_mode = fill_mode
        self.removed_on_completion = removed_on_completion
        self.speed = speed
        self.time_offset = time_offset
        self.additive = additive
        self.cumulative = cumulative
        self.essential = essential

    _TIMING_FIELDS = [("duration", "duration"), ("begin_time", "beginTime"), ("repeat_duration", "repeatDuration"),
                      ("autoreverses", "autoreverses"), ("fill_mode", "fillMode"),
                      ("removed_on_completion", "removedOnCompletion"), ("speed", "speed"),
                      ("time_offset", "timeOffset"), ("additive", "additive"), ("cumulative", "cumulative"),
                      ("essential", "essential")]

    def to_dict(self) -> Dict[str, Any]:
        """The animation as the protocol's JSON object."""
        d: Dict[str, Any] = {"type": self.type}
        for attr, name in self._TIMING_FIELDS:
            v = getattr(self, attr)
            if v is not None:
                d[name] = v
        if self.timing_function is not None:
            d["timingFunction"] = timing_function(self.timing_function).json()
        if self.repeat_count is not None:
            d["repeatCount"] = "infinity" if math.isinf(self.repeat_count) else self.repeat_count
        d.update(self._fields())
        return d

    def _fields(self) -> Dict[str, Any]:
        return {}

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), separators=(",", ":"), allow_nan=False)

    def __repr__(self) -> str:
        return "%s(%s)" % (type(self).__name__, self.to_json())


class BasicAnimation(Animation):
    """``CABasicAnimation``: from ``from_value`` to ``to_value`` (or by ``by_value``) on ``key_path``;
    a missing end is the underlying value."""

    type = "basic"

    def __init__(self, key_path: str, from_value: Any = None, to_value: Any = None, by_value: Any = None,
                 **timing: Any) -> None:
        super().__init__(**timing)
        self.key_path = key_path
        self.from_value, self.to_value, self.by_value = from_value, to_value, by_value

    def _fields(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"keyPath": self.key_path}
        for name, v in (("from", self.from_value), ("to", self.to_value), ("by", self.by_value)):
            if v is not None:
                d[name] = json_value(v)
        return d


class SpringAnimation(BasicAnimation):
    """``CASpringAnimation``: a damped spring from ``from_value`` to ``to_value`` in the
    animation's own seconds (``duration`` defaults to the settling duration). Give mass,
    stiffness and damping, or ``perceptual_duration`` and ``bounce`` (not both)."""

    type = "spring"

    def __init__(self, key_path: str, from_value: Any = None, to_value: Any = None, by_value: Any = None, *,
                 mass: Optional[float] = None, stiffness: Optional[float] = None, damping: Optional[float] = None,
                 initial_velocity: Optional[float] = None, perceptual_duration: Optional[float] = None,
                 bounce: Optional[float] = None, **timing: Any) -> None:
        super().__init__(key_path, from_value, to_value, by_value, **timing)
        self.mass, self.stiffness, self.damping = mass, stiffness, damping
        self.initial_velocity = initial_velocity
        self.perceptual_duration, self.bounce = perceptual_duration, bounce

    def _fields(self) -> Dict[str, Any]:
        d = super()._fields()
        for name, v in (("mass", self.mass), ("stiffness", self.stiffness), ("damping", self.damping),
                        ("initialVelocity", self.initial_velocity),
                        ("perceptualDuration", self.perceptual_duration), ("bounce", self.bounce)):
            if v is not None:
                d[name] = v
        return d


class KeyframeAnimation(Animation):
    """``CAKeyframeAnimation``: ``values`` at ``key_times`` (0…1, evenly spaced when None), one
    timing function per segment, ``calculation_mode`` ``linear`` / ``discrete`` / ``paced`` /
    ``cubic`` / ``cubicPaced``; or ``path`` (a ``Path``) for a point key path."""

    type = "keyframe"

    def __init__(self, key_path: str, values: Optional[Sequence[Any]] = None, key_times: Optional[Sequence[float]] = None,
                 timing_functions: Optional[Sequence[TimingLike]] = None, calculation_mode: Optional[str] = None,
                 path: Optional[Path] = None, **timing: Any) -> None:
        super().__init__(**timing)
        self.key_path = key_path
        self.values, self.key_times, self.timing_functions = values, key_times, timing_functions
        self.calculation_mode, self.path = calculation_mode, path

    def _fields(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"keyPath": self.key_path}
        if self.values is not None:
            d["values"] = [json_value(v) for v in self.values]
        if self.path is not None:
            d["path"] = json_value(self.path)
        if self.key_times is not None:
            d["keyTimes"] = list(self.key_times)
        if self.timing_functions is not None:
            d["timingFunctions"] = [timing_function(t).json() for t in self.timing_functions]
        if self.calculation_mode is not None:
            d["calculationMode"] = self.calculation_mode
        return d


class AnimationGroup(Animation):
    """``CAAnimationGroup``: children run in the group's local time, clipped to its interval."""

    type = "group"

    def __init__(self, animations: Sequence[Animation], **timing: Any) -> None:
        super().__init__(**timing)
        self.animations = list(animations)

    def _fields(self) -> Dict[str, Any]:
        return {"animations": [a.to_dict() for a in self.animations]}


class Keyframe:
    """One keyframe of a ``KeyframesAnimation`` track: ``Keyframe.linear(v, duration)``,
    ``Keyframe.cubic(v, duration)``, ``Keyframe.spring(v, duration, bounce=0)``, ``Keyframe.move(v)``."""

    def __init__(self, kind: str, value: Any, duration: Optional[float] = None, bounce: Optional[float] = None) -> None:
        self.kind, self.value, self.duration, self.bounce = kind, value, duration, bounce

    @classmethod
    def linear(cls, value: Any, duration: float) -> "Keyframe":
        return cls("linear", value, duration)

    @classmethod
    def cubic(cls, value: Any, duration: float) -> "Keyframe":
        return cls("cubic", value, duration)

    @classmethod
    def spring(cls, value: Any, duration: float, bounce: float = 0.0) -> "Keyframe":
        return cls("spring", value, duration, bounce)

    @classmethod
    def move(cls, value: Any) -> "Keyframe":
        return cls("move", value)

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {self.kind: json_value(self.value)}
        if self.duration is not None:
            d["duration"] = self.duration
        if self.bounce is not None:
            d["bounce"] = self.bounce
        return d


class KeyframesAnimation(Animation):
    """SwiftUI's ``KeyframeAnimator``: per key path a track of keyframes played one after
    another from the underlying value; it lasts as long as its longest track."""

    type = "keyframes"

    def __init__(self, tracks: Mapping[str, Sequence[Keyframe]], **timing: Any) -> None:
        super().__init__(**timing)
        self.tracks = {k: list(v) for k, v in tracks.items()}

    def _fields(self) -> Dict[str, Any]:
        return {"tracks": {k: [f.to_dict() for f in frames] for k, frames in self.tracks.items()}}


class Phase:
    """One phase of a ``PhaseAnimation``: the values it reaches, and how it is reached."""

    def __init__(self, values: Mapping[str, Any], animation: Optional[TimingLike] = None,
                 duration: Optional[float] = None) -> None:
        self.values, self.animation, self.duration = dict(values), animation, duration

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"values": {k: json_value(v) for k, v in self.values.items()}}
        if self.animation is not None:
            d["animation"] = timing_function(self.animation).json()
        if self.duration is not None:
            d["duration"] = self.duration
        return d


class PhaseAnimation(Animation):
    """SwiftUI's ``PhaseAnimator``: moves through ``phases`` in order and back to the first;
    loops forever unless ``repeat`` is False."""

    type = "phases"

    def __init__(self, phases: Sequence[Phase], repeat: Optional[bool] = None, **timing: Any) -> None:
        super().__init__(**timing)
        self.phases, self.repeat = list(phases), repeat

    def _fields(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"phases": [p.to_dict() for p in self.phases]}
        if self.repeat is not None:
            d["repeat"] = self.repeat
        return d


class ExpressionAnimation(Animation):
    """An expression bound to a number at ``key_path``: over ``t`` (compositor time),
    ``self.KEYPATH`` and ``NAME.KEYPATH`` for the layers named in ``layers`` (``Layer`` objects
    or ids). It runs until removed."""

    type = "expression"

    def __init__(self, key_path: str, expression: str, layers: Optional[Mapping[str, Any]] = None) -> None:
        super().__init__()
        self.key_path, self.expression = key_path, expression
        self.layers = dict(layers or {})

    def to_dict(self) -> Dict[str, Any]:
        d: Dict[str, Any] = {"type": "expression", "keyPath": self.key_path, "expression": self.expression}
        if self.layers:
            d["layers"] = {k: getattr(v, "id", v) for k, v in self.layers.items()}
        return d
