"""Lottie (Bodymovin JSON) playback with playback control and dynamic properties, as the Swift
library's ``LottiePlayer`` and lottie-ios' ``LottieAnimationView`` offer them.

The file is mapped onto layers and compositor keyframe animations once, by ``laminactl
lottie-requests`` (the same mapping as the Swift library: Sources/LaminaLottie): this module
stages the requests it prints and then controls playback with the root layer's layer time
(docs/protocol.md, "Lottie playback"), so nothing runs per frame in Python.
"""
from __future__ import annotations

import base64
import json
import math
import os
import shutil
import struct
import subprocess
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

from . import _wire
from ._properties import LAYER_KINDS
from .layers import LAYER_CLASSES, Layer

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["LottiePlayer", "LottieClock", "LottieError", "LoopMode"]

#: A loop mode: ``"play_once"`` (holds its last frame), ``"loop"``, ``"auto_reverse"``,
#: ``("repeat", n)`` or ``("repeat_auto_reverse", n)`` (n plays, fractions allowed; holds where it stops).
LoopMode = Union[str, Tuple[str, float]]

_KIND_NAMES = {v: k for k, v in LAYER_KINDS.items()}


class LottieError(Exception):
    """A Lottie file that cannot be loaded (its message names the JSON path), a key path that
    reaches nothing, or no ``laminactl`` to map the file with."""


class LottieClock:
    """The playback clock (the Swift ``LottieClock``): the time into the range is
    ``anchor_local + (t - anchor_time) * speed`` at compositor time t. Each change gives the root
    layer's ``speed``, ``timeOffset`` and ``beginTime`` (``settings``)."""

    def __init__(self, duration: float, frame_rate: float, start_frame: float) -> None:
        self.duration = duration
        self.frame_rate = frame_rate
        self.start_frame = start_frame
        self.speed = 0.0
        self.resume_speed = 1.0
        self.anchor_time = 0.0
        self.anchor_local = 0.0
        #: The root's local time when the layers' animations began: 0, as they are built paused.
        self.origin = 0.0

    def local_time(self, t: float) -> float:
        """Seconds into the range (before looping) at compositor time t."""
        return self.anchor_local + (t - self.anchor_time) * self.speed

    @property
    def is_playing(self) -> bool:
        return self.speed != 0

    def settings(self, now: float) -> List[Tuple[str, float]]:
        return [("speed", self.speed), ("timeOffset", self.origin + self.local_time(now)), ("beginTime", now)]

    def pause(self, now: float) -> None:
        self._move(now, self.local_time(now), 0.0)

    def play(self, now: float, speed: Optional[float] = None) -> None:
        self._move(now, self.local_time(now), self.resume_speed if speed is None else float(speed))

    def set_speed(self, speed: float, now: float) -> None:
        self._move(now, self.local_time(now), float(speed))

    def seek_progress(self, progress: float, now: float) -> None:
        self._move(now, float(progress) * self.duration, self.speed)

    def seek_frame(self, frame: float, now: float) -> None:
        self._move(now, (float(frame) - self.start_frame) / self.frame_rate, self.speed)

    def _move(self, now: float, local: float, speed: float) -> None:
        self.anchor_time = now
        self.anchor_local = local if math.isfinite(local) else 0.0
        self.speed = speed if math.isfinite(speed) else 0.0
        if self.speed != 0:
            self.resume_speed = self.speed


def _laminactl(path: Optional[str]) -> str:
    found = path or os.environ.get("LAMINACTL") or shutil.which("laminactl")
    if not found or not os.path.exists(found):
        raise LottieError("no laminactl to map Lottie files with (pass laminactl=PATH or set LAMINACTL)")
    return found


def _playback_json(loop_mode: LoopMode, from_frame: Optional[float], to_frame: Optional[float],
                   from_marker: Optional[str], to_marker: Optional[str]) -> str:
    names = {"play_once": "playOnce", "loop": "loop", "auto_reverse": "autoReverse"}
    mode: Any
    if isinstance(loop_mode, str):
        if loop_mode not in names:
            raise ValueError("unknown loop mode %r (play_once, loop, auto_reverse, ('repeat', n), "
                             "('repeat_auto_reverse', n))" % loop_mode)
        mode = names[loop_mode]
    else:
        kind, n = loop_mode
        keys = {"repeat": "repeat", "repeat_auto_reverse": "repeatAutoReverse"}
        if kind not in keys or not isinstance(n, (int, float)) or not math.isfinite(n) or n < 0:
            raise ValueError("a repeating loop mode is ('repeat', n) or ('repeat_auto_reverse', n), n >= 0")
        mode = {keys[kind]: float(n)}
    for f in (from_frame, to_frame):
        if f is not None and not math.isfinite(f):
            raise ValueError("frames must be finite")
    return json.dumps({"loopMode": mode, "fromFrame": from_frame, "toFrame": to_frame,
                       "fromMarker": from_marker, "toMarker": to_marker})


class LottiePlayer:
    """A Lottie file playing in the daemon: ``LottiePlayer(conn, "loader.json")``.

    The loop mode and the range (two frames or markers; ``from_marker`` alone plays that
    marker) are fixed at load. The layers are built in one commit under the client's root
    (``player.root`` is the animation's root layer, named ``lottie``: move it with
    ``add_sublayer``), paused at the range's start, then played unless ``autoplay`` is false.
    """

    def __init__(self, connection: "Connection", path: str, *, loop_mode: LoopMode = "loop",
                 from_frame: Optional[float] = None, to_frame: Optional[float] = None,
                 from_marker: Optional[str] = None, to_marker: Optional[str] = None,
                 autoplay: bool = True, laminactl: Optional[str] = None) -> None:
        self.connection = connection
        self.path = path
        self._laminactl = _laminactl(laminactl)
        playback = _playback_json(loop_mode, from_frame, to_frame, from_marker, to_marker)
        self._first_id = connection._next_layer_id
        out = self._run(["--playback", playback])
        connection._next_layer_id = self._first_id + int(out["layerCount"]) + 1
        clock = out["clock"]
        self.clock = LottieClock(float(clock["duration"]), float(clock["frameRate"]), float(clock["startFrame"]))
        #: The parts of the file left out (a warning naming each JSON path).
        self.warnings: List[str] = list(out["warnings"])
        for name, data in sorted(out["images"].items()):
            connection.upload_image(base64.b64decode(data), name)
        self._completion: Optional[Callable[[bool], None]] = None
        #: Every layer of the file (held here: the connection holds its layers weakly).
        self.layers: List[Layer] = []
        with connection.transaction(disable_actions=True):
            self._stage(out["requests"])
            connection._add_delegate(int(out["root"]), "lottie", None, self._completed)
        #: Scene layer names (docs/scene-format.md, "Lottie files") and their layers.
        self.names: Dict[str, Layer] = {}
        for name, layer_id in out["names"].items():
            layer = connection.layer(int(layer_id))
            if layer is not None:
                self.names[name] = layer
        root = connection.layer(int(out["root"]))
        assert root is not None
        self.root: Layer = root
        if autoplay:
            self.play()

    # MARK: playback

    def play(self, speed: Optional[float] = None) -> None:
        """Plays from where it is at ``speed`` (None: the last speed, 1 at first; negative backwards)."""
        self._change(lambda c, now: c.play(now, speed))

    def pause(self) -> None:
        self._change(lambda c, now: c.pause(now))

    def set_speed(self, speed: float) -> None:
        """Plays on from where it is at ``speed`` (0 pauses; negative plays backwards)."""
        self._change(lambda c, now: c.set_speed(speed, now))

    def seek(self, frame: Optional[float] = None, progress: Optional[float] = None) -> None:
        """Shows a frame of the file, or a progress of the range (0 its start, 1 its end),
        playing on from there if it was playing."""
        if (frame is None) == (progress is None):
            raise ValueError("seek takes a frame or a progress")
        if frame is not None:
            self._change(lambda c, now: c.seek_frame(frame, now))
        else:
            self._change(lambda c, now: c.seek_progress(_required_float(progress), now))

    @property
    def is_playing(self) -> bool:
        return self.clock.is_playing

    @property
    def speed(self) -> float:
        return self.clock.speed

    def current_frame(self) -> float:
        """The frame shown now (before looping): the range's first frame plus the time into it."""
        return self.clock.start_frame + self.clock.local_time(self.connection.current_time()) * self.clock.frame_rate

    def on_completion(self, callback: Optional[Callable[[bool], None]]) -> None:
        """``callback(True)`` once a played-once or repeated range has played to its end
        (later, if paused or slowed on the way; backwards play never reaches it), or
        ``callback(False)`` when its layers were removed first. A looping range never completes.
        Runs on the connection's delivery thread."""
        self._completion = callback

    def _completed(self, finished: bool) -> None:
        if self._completion is not None:
            self._completion(finished)

    # MARK: dynamic properties

    def set_value(self, key_path: str, value: Union[float, Sequence[float]]) -> None:
        """A dynamic property (lottie-ios' ``setValueProvider``): ``key_path`` is a Lottie key path
        with wildcards (``*`` one name, ``**`` any number) whose last component is the property:
        ``Color`` ([r, g, b] in 0…1) and ``Opacity`` (percent) of fills and strokes, ``Stroke
        Width``, ``Opacity`` of gradient fills and strokes, and a layer's ``Opacity``,
        ``Position`` ([x, y]), ``Scale`` (percent; one number or [x, y]) and ``Rotation``
        (degrees). It replaces that property on every element the key path reaches, live, in one
        transaction; their other animations go on in step. Raises ``LottieError`` for a key path
        that reaches nothing or a value of the wrong size."""
        values = [float(value)] if isinstance(value, (int, float)) else [float(v) for v in value]
        range_time = self.clock.local_time(self.connection.current_time())
        out = self._run(["--set", json.dumps({"keyPath": key_path, "value": values, "rangeTime": range_time})])
        with self.connection.transaction(disable_actions=True):
            self._stage(out["requests"])

    # MARK: internals

    def _run(self, extra: List[str]) -> Dict[str, Any]:
        done = subprocess.run([self._laminactl, "lottie-requests", self.path, "--first-id", str(self._first_id)] + extra,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, check=False)
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip()
            raise LottieError(message.replace("laminactl: ", "", 1) or "laminactl failed")
        return dict(json.loads(done.stdout.decode("utf-8")))

    def _stage(self, requests: Sequence[Sequence[Any]]) -> None:
        """Stages the printed requests; creates and sublayer changes are mirrored in the local model."""
        conn = self.connection
        for opcode, encoded in requests:
            body = base64.b64decode(encoded)
            if opcode == _wire.SET_TRANSACTION:
                continue   # the caller's transaction gives the settings: actions disabled
            conn._stage(opcode, body)
            if opcode == _wire.CREATE_LAYER:
                layer_id, kind = struct.unpack_from("<IB", body)
                layer = LAYER_CLASSES[_KIND_NAMES[kind]](conn, layer_id)
                conn._layers[layer_id] = layer
                self.layers.append(layer)
            elif opcode in (_wire.ADD_SUBLAYER, _wire.INSERT_SUBLAYER):
                parent_id, child_id = struct.unpack_from("<II", body)
                parent, child = conn.layer(parent_id), conn.layer(child_id)
                if parent is not None and child is not None:
                    child._superlayer = parent
                    if opcode == _wire.INSERT_SUBLAYER:
                        parent._sublayers.insert(struct.unpack_from("<I", body, 8)[0], child)
                    else:
                        parent._sublayers.append(child)

    def _change(self, f: Callable[[LottieClock, float], None]) -> None:
        now = self.connection.current_time()
        f(self.clock, now)
        with self.connection.transaction(disable_actions=True):
            for key_path, v in self.clock.settings(now):
                self.root.set_value(key_path, v)


def _required_float(x: Optional[float]) -> float:
    assert x is not None
    return float(x)
