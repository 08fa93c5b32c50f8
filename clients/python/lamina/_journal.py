"""What a connection that reconnects keeps of what it committed, to replay it into a new
daemon (``lamina.Reconnect``; docs/python.md, "Surviving a daemon restart").

The journal holds, per layer, its kind, the key paths set (in order, each dropping the earlier
sets it overwrites; a ``frame`` kept as the ``bounds.size`` and ``position`` it sets, since
CALayer's setter reads ``anchorPoint``), its place in the hierarchy and its explicit
animations still kept, with the journal's time when their commit was sent and the completion
ids they count for; and the images uploaded (their bytes). It changes only when the daemon
accepts something (a commit, an upload, a release) and when an explicit animation finishes:
nothing per frame, no extra round trip.
"""
from __future__ import annotations

import json
import os
import struct
import time
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Set, Tuple

from . import _wire

__all__ = ["Reconnect", "Journal", "ReplayClock"]


class Reconnect(NamedTuple):
    """How a connection reconnects when the daemon goes away and comes back on the same socket
    (``lamina.connect(..., reconnect=Reconnect())`` or ``reconnect=True``): it waits
    ``initial_delay`` seconds, tries the socket, and doubles the wait after each failed try up
    to ``max_delay``, until a daemon welcomes it or ``give_up_after`` seconds have passed since
    the loss (None: it tries for ever). The first wait is at least 1 ms (the waits double from
    it: 0 would try without pause for ever)."""
    initial_delay: float = 0.05
    max_delay: float = 2.0
    give_up_after: Optional[float] = None

    def delays(self, count: int) -> List[float]:
        """The waits before the first ``count`` tries."""
        out, d = [], self.first_delay
        for _ in range(max(0, count)):
            out.append(d)
            d = self.next_delay(d)
        return out

    @property
    def first_delay(self) -> float:
        return max(0.001, self.initial_delay)

    def next_delay(self, delay: float) -> float:
        """The wait after a failed try that followed a wait of ``delay``."""
        return min(delay * 2, max(self.max_delay, self.first_delay))


class ReplayClock:
    """The journal's timeline in seconds. Under a realtime daemon it follows this process's
    monotonic clock; under the manual clock it moves only as far as this client's own
    ``advance_clock`` replies say (other clients' advances are not seen). A reconnection carries
    it on from where it was, whatever the new daemon's clock reads."""

    def __init__(self, manual: bool, daemon_time: float) -> None:
        self._manual, self._daemon_time = manual, daemon_time
        self._base, self._base_mono = 0.0, time.monotonic()

    def now(self) -> float:
        return self._base if self._manual else self._base + time.monotonic() - self._base_mono

    def clock_advanced(self, t: float) -> None:
        if self._manual:
            self._base += max(0.0, t - self._daemon_time)
            self._daemon_time = t

    def rebase(self, manual: bool, daemon_time: float) -> None:
        self._base, self._base_mono = self.now(), time.monotonic()
        self._manual, self._daemon_time = manual, daemon_time


class _Animation(NamedTuple):
    key: str
    json: str
    time: float
    completions: Tuple[int, ...]
    removed_on_completion: bool
    is_expression: bool


class _Layer:
    __slots__ = ("kind", "properties", "anchor", "parent", "sublayers", "animations", "finished_anonymous", "attached")

    def __init__(self, kind: int) -> None:
        self.kind = kind
        self.properties: Dict[str, bytes] = {}     # key path -> VALUE bytes, in the order set
        self.anchor = (0.5, 0.5)
        self.parent: Optional[int] = None
        self.sublayers: List[int] = []
        self.animations: List[_Animation] = []
        self.finished_anonymous = 0
        self.attached = 0      # a surface layer's buffer attached last (0: none)

    def record(self, key_path: str, value: bytes) -> None:
        prefix = key_path + "."
        for k in [k for k in self.properties if k == key_path or k.startswith(prefix)]:
            del self.properties[k]
        self.properties[key_path] = value


class KeptFd:
    """A descriptor the journal keeps open (a PNG file's, a surface pool's memfd) to send again
    after a reconnection: a duplicate, closed when the last record holding it goes."""

    def __init__(self, fd: int) -> None:
        self.fd = os.dup(fd)

    def __del__(self) -> None:
        try:
            os.close(self.fd)
        except OSError:
            pass


class _Image(NamedTuple):
    """An image named in the daemon: ``source`` "bytes" (uploaded: ``fmt``, ``data``), "file"
    (``openImageFile``: ``fd`` kept) or "tiled" (``createTiledImage``: its tiles are asked for
    again after a replay)."""
    name: str
    fmt: int
    width: int
    height: int
    data: bytes
    released: bool = False
    source: str = "bytes"
    fd: Optional[KeptFd] = None

    def request(self) -> Tuple[int, bytes, Optional[KeptFd]]:
        if self.source == "file":
            return (_wire.OPEN_IMAGE_FILE, _wire.string(self.name), self.fd)
        if self.source == "tiled":
            return (_wire.CREATE_TILED_IMAGE, _wire.string(self.name) + struct.pack("<II", self.width, self.height), None)
        return (_wire.UPLOAD_IMAGE, _wire.string(self.name) + struct.pack("<BIII", self.fmt, self.width, self.height,
                                                                          len(self.data)) + self.data, None)


class _Pool(NamedTuple):
    """A surface layer's shared-memory pool (``SurfaceLayer.make_buffers``): its memfd (kept
    open), size and ``createBuffer`` bodies, sent again (pool, buffers, the pool's id ended)."""
    layer: int
    pool: int
    size: int
    fd: KeptFd
    buffers: Tuple[bytes, ...]

    def buffer_ids(self) -> List[int]:
        return [struct.unpack_from("<I", b)[0] for b in self.buffers]


def _string(body: bytes, at: int) -> Tuple[str, int]:
    n = struct.unpack_from("<I", body, at)[0]
    return body[at + 4:at + 4 + n].decode("utf-8"), at + 4 + n


class Journal:
    """The committed model of one connection (the reader thread updates it under the
    connection's lock)."""

    def __init__(self) -> None:
        self.layers: Dict[int, _Layer] = {0: _Layer(0)}
        self.images: List[_Image] = []
        self.pools: List[_Pool] = []

    # MARK: recording

    def apply(self, ops: Iterable[Tuple[int, bytes, Tuple[int, ...]]], at: float) -> None:
        """An accepted commit's staged requests (opcode, body, completion ids in force), in order."""
        for opcode, body, completions in ops:
            if opcode == _wire.CREATE_LAYER:
                layer_id, kind = struct.unpack("<IB", body)
                if layer_id != 0:
                    self.layers[layer_id] = _Layer(kind)
            elif opcode == _wire.DELETE_LAYER:
                self._delete(struct.unpack("<I", body)[0])
            elif opcode == _wire.SET_PROPERTY:
                layer_id = struct.unpack_from("<I", body)[0]
                key_path, at_value = _string(body, 4)
                self._set(layer_id, key_path, body[at_value:])
            elif opcode == _wire.ADD_SUBLAYER:
                self._insert(*struct.unpack("<II", body), index=None)
            elif opcode == _wire.INSERT_SUBLAYER:
                parent, child, index = struct.unpack("<III", body)
                self._insert(parent, child, index)
            elif opcode == _wire.REMOVE_FROM_SUPERLAYER:
                self._detach(struct.unpack("<I", body)[0])
            elif opcode == _wire.ADD_ANIMATION:
                layer_id = struct.unpack_from("<I", body)[0]
                key, after = _string(body, 4)
                text, _ = _string(body, after)
                self._add_animation(layer_id, key, text, at, completions)
            elif opcode == _wire.REMOVE_ANIMATION:
                layer_id = struct.unpack_from("<I", body)[0]
                key, _ = _string(body, 4)
                layer = self.layers.get(layer_id)
                if layer is not None:
                    layer.animations = [a for a in layer.animations if a.key != key]
            elif opcode == _wire.REMOVE_ALL_ANIMATIONS:
                layer = self.layers.get(struct.unpack("<I", body)[0])
                if layer is not None:
                    layer.animations = []
            elif opcode == _wire.ATTACH_BUFFER:
                layer_id, buffer_id = struct.unpack_from("<II", body)
                layer = self.layers.get(layer_id)
                if layer_id != 0 and layer is not None:
                    layer.attached = buffer_id
        self._drop_unshown_released()

    def _set(self, layer_id: int, key_path: str, value: bytes) -> None:
        layer = self.layers.get(layer_id)
        if layer_id == 0 or layer is None:
            return
        if key_path == "frame" and value[:1] == b"\x04":
            x, y, w, h = struct.unpack_from("<4d", value, 1)
            ax, ay = layer.anchor
            layer.record("bounds.size", b"\x03" + struct.pack("<2d", w, h))
            layer.record("position", b"\x02" + struct.pack("<2d", x + ax * w, y + ay * h))
            return
        if key_path == "anchorPoint" and value[:1] == b"\x02":
            layer.anchor = struct.unpack_from("<2d", value, 1)
        elif key_path in ("anchorPoint.x", "anchorPoint.y") and value[:1] == b"\x01":
            v = struct.unpack_from("<d", value, 1)[0]
            layer.anchor = (v, layer.anchor[1]) if key_path.endswith("x") else (layer.anchor[0], v)
        layer.record(key_path, value)

    def _delete(self, layer_id: int) -> None:
        layer = self.layers.get(layer_id)
        if layer_id == 0 or layer is None:
            return
        self._detach(layer_id)
        for c in layer.sublayers:
            if c in self.layers:
                self.layers[c].parent = None
        del self.layers[layer_id]
        self.pools = [p for p in self.pools if p.layer != layer_id]   # its buffers are not sent again

    def _detach(self, layer_id: int) -> None:
        layer = self.layers.get(layer_id)
        if layer is None or layer.parent is None:
            return
        parent = self.layers.get(layer.parent)
        if parent is not None:
            parent.sublayers = [c for c in parent.sublayers if c != layer_id]
        layer.parent = None

    def _insert(self, parent: int, child: int, index: Optional[int]) -> None:
        if child == 0 or child not in self.layers or parent not in self.layers:
            return
        self._detach(child)
        subs = self.layers[parent].sublayers
        subs.insert(len(subs) if index is None else min(max(index, 0), len(subs)), child)
        self.layers[child].parent = parent

    def _add_animation(self, layer_id: int, key: str, text: str, at: float, completions: Tuple[int, ...]) -> None:
        layer = self.layers.get(layer_id)
        if layer_id == 0 or layer is None:
            return
        try:
            parsed = json.loads(text)
        except ValueError:
            parsed = None
        obj = parsed if isinstance(parsed, dict) else {}
        removed = obj.get("removedOnCompletion", True) is not False
        if key:
            layer.animations = [a for a in layer.animations if a.key != key]
        layer.animations.append(_Animation(key, text, at, tuple(completions), removed, obj.get("type") == "expression"))

    def animation_finished(self, layer_id: int, key: str) -> None:
        """An explicit animation finished: one removed on completion is no longer kept (of
        several anonymous ones, which finished is not known: they go together once as many
        finished as are kept)."""
        layer = self.layers.get(layer_id)
        if layer is None:
            return
        if not key:
            kept = [a for a in layer.animations if not a.key and a.removed_on_completion]
            layer.finished_anonymous += 1
            if layer.finished_anonymous >= len(kept):
                layer.animations = [a for a in layer.animations if a.key or not a.removed_on_completion]
                layer.finished_anonymous = 0
            return
        for i, a in enumerate(layer.animations):
            if a.key == key:
                if a.removed_on_completion:
                    del layer.animations[i]
                return

    def uploaded(self, name: str, fmt: int, width: int, height: int, data: bytes, source: str = "bytes",
                 fd: Optional[KeptFd] = None) -> None:
        self.images = [i for i in self.images if i.name != name] + [
            _Image(name, fmt, width, height, bytes(data), False, source, fd)]

    def made_pool(self, layer: int, pool: int, size: int, fd: KeptFd, buffers: Iterable[bytes]) -> None:
        """A surface layer's pool and buffers were made (all accepted)."""
        self.pools.append(_Pool(layer, pool, size, fd, tuple(buffers)))

    def dropped_buffers(self, ids: Iterable[int]) -> None:
        """Buffers destroyed: pools left with none are not sent again."""
        gone = set(ids)
        self.pools = [p._replace(buffers=tuple(b for b in p.buffers if struct.unpack_from("<I", b)[0] not in gone))
                      for p in self.pools]
        self.pools = [p for p in self.pools if p.buffers]

    def reattached(self) -> Set[int]:
        """The buffers a replay attaches again: each surface layer's last, if in a kept pool."""
        kept = {b for p in self.pools for b in p.buffer_ids()}
        return {layer.attached for layer in self.layers.values() if layer.attached in kept}

    def released(self, name: str) -> None:
        self.images = [i._replace(released=True) if i.name == name else i for i in self.images]
        self._drop_unshown_released()

    def _drop_unshown_released(self) -> None:
        if not any(i.released for i in self.images):
            return
        shown: Set[str] = set()
        for layer in self.layers.values():
            v = layer.properties.get("contents")
            if v is not None and v[:1] == b"\x08":
                shown.add(_string(v, 1)[0])
        self.images = [i for i in self.images if not i.released or i.name in shown]

    def animation_keys(self) -> List[Tuple[int, str]]:
        return [(layer_id, a.key) for layer_id in sorted(self.layers) for a in self.layers[layer_id].animations]

    # MARK: replaying

    def replay(self, now: float, pending: Set[int], settings_body: Callable[[Tuple[int, ...]], bytes],
               waiting: Iterable[Tuple[int, bytes]] = ()
               ) -> Tuple[List[Tuple[int, bytes, Optional[KeptFd]]], List[Tuple[int, bytes]], List[Tuple[int, bytes]]]:
        """The requests that rebuild the model in a new daemon: uploads (before), the staged
        requests of one transaction (then ``commit``), releases (after). Animations continue
        where they are at ``now``: their ``beginTime`` moves back by the time since their
        commit. ``pending``: completion ids whose blocks have not run, declared again, each
        counting the replayed animations it counted before. ``settings_body(completion_ids)``
        encodes a ``setTransaction`` (duration 0, actions disabled). Each upload carries the
        descriptor sent with it (a PNG file's, a pool's memfd) or None. Surface layers' pools go
        with the uploads (``createPool``, its buffers, ``destroyPool``) and each surface layer's
        last attached buffer is attached again, whole. ``waiting``: frame callbacks and
        presentation feedback requests still waiting, staged again."""
        uploads = [i.request() for i in self.images]
        for p in self.pools:
            uploads.append((_wire.CREATE_POOL, struct.pack("<IQ", p.pool, p.size), p.fd))
            uploads += [(_wire.CREATE_BUFFER, b, None) for b in p.buffers]
            uploads.append((_wire.DESTROY_POOL, struct.pack("<I", p.pool), None))
        again = self.reattached()
        releases = [(_wire.RELEASE_IMAGE, _wire.string(i.name)) for i in self.images if i.released]
        ids = [i for i in sorted(self.layers) if i != 0]
        in_force: Tuple[int, ...] = ()
        staged = [(_wire.SET_TRANSACTION, settings_body(in_force))]
        staged += [(_wire.CREATE_LAYER, struct.pack("<IB", i, self.layers[i].kind)) for i in ids]
        for i in ids:
            staged += [(_wire.SET_PROPERTY, struct.pack("<I", i) + _wire.string(k) + v)
                       for k, v in self.layers[i].properties.items()]
        for i in [0] + ids:
            staged += [(_wire.ADD_SUBLAYER, struct.pack("<II", i, c)) for c in self.layers[i].sublayers]
        for i in ids:
            for a in self.layers[i].animations:
                counted = tuple(c for c in a.completions if c in pending)
                if counted != in_force:
                    in_force = counted
                    staged.append((_wire.SET_TRANSACTION, settings_body(in_force)))
                staged.append((_wire.ADD_ANIMATION, struct.pack("<I", i) + _wire.string(a.key)
                               + _wire.string(shifted(a, now - a.time))))
        staged += [(_wire.ATTACH_BUFFER, struct.pack("<III", i, self.layers[i].attached, 0))
                   for i in ids if self.layers[i].attached in again]
        staged += list(waiting)
        staged += [(_wire.COMPLETION, struct.pack("<I", c)) for c in sorted(pending)]
        return uploads, staged, releases


def shifted(a: _Animation, elapsed: float) -> str:
    """The animation's JSON with ``beginTime`` moved ``elapsed`` seconds back, so that in a
    commit made now it is where it would be had it never stopped (expressions have no timing)."""
    if a.is_expression or elapsed == 0:
        return a.json
    try:
        obj = json.loads(a.json)
    except ValueError:
        return a.json
    if not isinstance(obj, dict):
        return a.json
    obj["beginTime"] = float(obj.get("beginTime", 0)) - elapsed
    return json.dumps(obj)
