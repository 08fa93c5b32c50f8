"""The connection to laminad: handshake, staging and commits, transactions, queries, images,
text measurement, and events delivered on threads of the connection's own."""
from __future__ import annotations

import itertools
import json
import math
import os
import queue
import random
import socket as _socket
import struct
import sys
import threading
import time as _time
import traceback
import weakref
from typing import Any, Callable, Dict, List, NamedTuple, Optional, Sequence, Tuple, Union, cast

from . import _wire
from ._journal import Journal, KeptFd, Reconnect, ReplayClock
from ._properties import LAYER_KINDS
from .animation import TimingFunction, TimingLike, timing_function
from .surfaces import PresentationFeedback, SurfaceLayer, TileRequest, _TileSupplier
from .errors import ConnectionFailed, Disconnected, LaminaError, ProtocolViolation, Reconnecting, RequestFailed
from .events import (AnimationStarted, AnimationStopped, ConnectionLost, DisplayChanged, ErrorEvent, Event, KeyEvent,
                     PointerEvent, Reconnected, ReduceMotionChanged, TransactionCompleted)
from .events import Disconnected as DisconnectedEvent
from .layers import LAYER_CLASSES, EmitterLayer, GradientLayer, Layer, ReplicatorLayer, ShapeLayer, TextLayer, TiledLayer
from .values import Display, Size, StyledText, TextRun

__all__ = ["Connection", "connect", "default_socket_path", "Image", "HitTestResult", "Capture", "Transaction"]


def default_socket_path() -> str:
    """``$XDG_RUNTIME_DIR/lamina-0``, or ``/tmp/lamina-<uid>/lamina-0`` when that variable is
    unset or empty (the daemon's and the Swift client's default)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime:
        return os.path.join(runtime, "lamina-0")
    return "/tmp/lamina-%d/lamina-0" % os.getuid()


def connect(socket: Optional[str] = None, name: Optional[str] = None,
            reconnect: Union[None, bool, Reconnect] = None) -> "Connection":
    """Connects to laminad and performs the handshake (blocking).

    ``socket``: the daemon's socket path; None for ``default_socket_path()``. ``name`` is
    shown by ``laminactl tree`` (default: the program's name). ``reconnect``: survive the
    daemon's restart (``True`` or a ``Reconnect``; off by default: docs/python.md, "Surviving
    a daemon restart"). Raises ``ConnectionFailed``.
    """
    return Connection(socket, name, reconnect)


class HitTestResult(NamedTuple):
    """``kind``: ``"none"`` (no layer there), ``"own"`` (this client's ``layer``) or ``"other"``
    (another client's layer)."""
    kind: str
    layer_id: int
    layer: Optional[Layer]


class Capture(NamedTuple):
    """A rendered frame: PNG bytes (8-bit RGBA), its size in pixels, its compositor time."""
    png: bytes
    width: int
    height: int
    time: float


class Image:
    """An image uploaded once under a name of this client's choosing; a layer shows it when its
    ``contents`` is the image (or its name). ``release()`` frees the name."""

    def __init__(self, connection: "Connection", name: str, width: int, height: int) -> None:
        self.connection, self.name, self.width, self.height = connection, name, width, height
        self.is_released = False

    def release(self) -> None:
        """Releases the name (layers showing the image keep it until their contents change)."""
        if self.is_released:
            return
        hooks = _Hooks(journal=("release", self.name)) if self.connection._journal is not None else None
        self.connection._round_trips([(_wire.RELEASE_IMAGE, _wire.string(self.name))], _wire.IMAGE_RELEASED, hooks=hooks)
        self.is_released = True
        supplier = self.connection._tile_suppliers.pop(self.name, None)
        if supplier is not None:
            supplier.close()

    def __repr__(self) -> str:
        return "<Image %r %dx%d>" % (self.name, self.width, self.height)


class _Waiter:
    __slots__ = ("done", "opcode", "body", "error", "hooks")

    def __init__(self, hooks: Optional["_Hooks"] = None) -> None:
        self.done = threading.Event()
        self.opcode = 0
        self.body = b""
        self.error: Optional[LaminaError] = None
        self.hooks = hooks

    def wait(self) -> Tuple[int, bytes]:
        self.done.wait()
        if self.error is not None:
            raise self.error
        return self.opcode, self.body


class _Hooks:
    """What a commit brings into force when the daemon accepts it (and, on a connection that
    reconnects, what the journal records when the reply comes: ``("commit", ops, time)``,
    ``("upload", name, format, width, height, data)`` or ``("release", name)``)."""

    def __init__(self, journal: Optional[Tuple[Any, ...]] = None) -> None:
        self.completions: Dict[int, Callable[[], None]] = {}
        self.delegates: List[Tuple[int, str, Optional[Callable[[], None]], Optional[Callable[[bool], None]]]] = []
        self.journal = journal

    def __bool__(self) -> bool:
        return bool(self.completions or self.delegates or self.journal)


class _Settings(NamedTuple):
    duration: float = 0.25
    timing: TimingFunction = TimingFunction.named("easeInEaseOut")
    disable_actions: bool = False
    completion_ids: Tuple[int, ...] = ()


class _Level:
    __slots__ = ("settings", "completion_id")

    def __init__(self, settings: _Settings, completion_id: Optional[int] = None) -> None:
        self.settings, self.completion_id = settings, completion_id


class Transaction:
    """An open transaction (what ``with connection.transaction():`` gives): its settings may
    change inside the block; ``sequence`` is the daemon's commit number once the outermost
    transaction committed."""

    def __init__(self, connection: "Connection", duration: Optional[float] = None, timing: Optional[TimingLike] = None,
                 disable_actions: Optional[bool] = None, completion: Optional[Callable[[], None]] = None) -> None:
        self.connection = connection
        self.sequence: Optional[int] = None
        self._settings = (duration, timing, disable_actions, completion)

    def set_duration(self, seconds: float) -> None:
        self.connection.set_animation_duration(seconds)

    def set_timing(self, timing: TimingLike) -> None:
        self.connection.set_animation_timing_function(timing)

    def set_disable_actions(self, disabled: bool) -> None:
        self.connection.set_disable_actions(disabled)

    def set_completion(self, block: Callable[[], None]) -> int:
        return self.connection.set_completion_block(block)

    def __enter__(self) -> "Transaction":
        c = self.connection
        duration, timing, disable_actions, completion = self._settings
        c.begin()
        if duration is not None:
            c.set_animation_duration(duration)
        if timing is not None:
            c.set_animation_timing_function(timing)
        if disable_actions is not None:
            c.set_disable_actions(disable_actions)
        if completion is not None:
            c.set_completion_block(completion)
        return self

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        try:
            self.sequence = self.connection.commit_transaction()
        except LaminaError:
            if exc is None:
                raise
            # The body's exception is the one to see; the commit's failure is its context.


#: A layer's pointer handler (``Layer.on_pointer``): returns ``lamina.HANDLED`` (True) to stop
#: the event, anything else to let it bubble on.
PointerHandler = Callable[[PointerEvent], Any]


def _pointer_path(r: _wire.Reader) -> Optional[List[Tuple[int, float, float]]]:
    """A ``pointerPath`` body's hops, (layer, x, y) innermost first; None when it is malformed
    (no hops, too many, short, or a point not finite: the event after it reaches its own layer)."""
    try:
        n = r.u32()
        if not 1 <= n <= _wire.MAX_POINTER_HOPS or n * 20 > len(r.body) - r.at:
            return None
        hops = [cast(Tuple[int, float, float], r.take("Idd")) for _ in range(n)]
    except ValueError:
        return None
    if not all(math.isfinite(x) and math.isfinite(y) for _, x, y in hops):
        return None
    return hops


def _bubble(chain: List[Tuple[PointerHandler, PointerEvent]], general: Optional[Callable[[PointerEvent], None]],
            event: PointerEvent) -> None:
    """One pointer event's delivery: the layers' handlers innermost first until one returns
    ``HANDLED`` (True), then ``general`` (``on_pointer``) with the event as routed. A handler
    that raises is reported as other callbacks are, and the event goes on."""
    for handler, e in chain:
        try:
            if handler(e) is True:
                return
        except Exception:
            sys.stderr.write("lamina: a pointer handler raised:\n")
            traceback.print_exc()
    if general is not None:
        general(event)


class EventStream:
    """The connection's events from the moment it was made, in order (``Connection.events()``):
    iterate it (``for event in stream``), or ``get(timeout)``. It ends after ``Disconnected``
    (or when closed: ``close()``, or leaving ``with``)."""

    def __init__(self, connection: "Connection") -> None:
        self._connection = connection
        self._queue: "queue.Queue[Event]" = queue.Queue()
        self._ended = False

    def get(self, timeout: Optional[float] = None) -> Event:
        """The next event; raises ``TimeoutError`` after ``timeout`` seconds without one, and
        ``StopIteration`` once the stream has ended."""
        if self._ended:
            raise StopIteration
        try:
            e = self._queue.get(timeout=timeout)
        except queue.Empty:
            raise TimeoutError("no event in %s s" % timeout) from None
        if isinstance(e, DisconnectedEvent):
            self._ended = True
        return e

    def __iter__(self) -> "EventStream":
        return self

    def __next__(self) -> Event:
        return self.get()

    def close(self) -> None:
        self._connection._unsubscribe(self)
        self._ended = True

    def __enter__(self) -> "EventStream":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


class Connection:
    """A connection to laminad (``lamina.connect()``). Make layers, change them, then ``commit()``
    (or use ``with connection.transaction(...):``): the daemon applies each commit whole or not at
    all. ``with lamina.connect() as c:`` closes it at the end.

    **Threads.** Stage changes (layer attributes, hierarchy, animations, transactions) from one
    thread at a time; the blocking requests (``commit``, queries, images) may be called from any
    thread, callbacks included. A reader thread reads the socket and wakes the waiting callers;
    a delivery thread runs callbacks (``on_event``, ``on_animation_event``, ``on_display_change``,
    ``on_reduce_motion_change``, ``on_pointer``, ``on_key``, ``on_error``, completion blocks and
    animations' ``on_start``/``on_stop``) one at a time in the order the events came. Nothing
    needs pumping. ``events()`` gives the same events as an iterator.
    """

    def __init__(self, socket: Optional[str] = None, name: Optional[str] = None,
                 reconnect: Union[None, bool, Reconnect] = None) -> None:
        path = socket or default_socket_path()
        self.socket_path = path
        self._client_name = name if name is not None else os.path.basename(sys.argv[0] or "") or "python"
        self._sock, self._buffer, welcome = self._open(path, self._client_name)
        self._welcomed(welcome)
        #: The reconnection policy (None: the connection ends with the daemon).
        self.reconnect: Optional[Reconnect] = (Reconnect() if reconnect is True else reconnect or None)
        # Kept while reconnection is on (docs/python.md, "Surviving a daemon restart").
        self._journal: Optional[Journal] = Journal() if self.reconnect is not None else None
        self._clock = ReplayClock(self.is_manual_clock, self.welcome_time)
        self._staged_ops: List[Tuple[int, bytes, Tuple[int, ...]]] = []   # the open transaction's, for the journal
        self._written_generation: Optional[int] = None
        self._generation = 0                     # reconnections so far
        self._reconnecting = False
        self._close_requested = False
        self._wake = threading.Event()           # set by close(): ends a reconnection's wait
        self._replayed_starts: Dict[Tuple[int, str], int] = {}
        self._candidate: Optional[_socket.socket] = None   # the socket a reconnection tries
        self.on_connection_change: Optional[Callable[[Event], None]] = None

        # Two locks, always taken in this order: `_out_lock` protects the outgoing buffer, the
        # transaction levels and the commit hooks, and orders writes to the socket; `_lock`
        # protects what the reader thread shares (waiters, callbacks' tables, subscribers). The
        # reader takes only `_lock`, so a write blocked on a full socket never stops it.
        self._out_lock = threading.Lock()
        self._lock = threading.Lock()
        self._ids = itertools.count(2)           # 1 is the hello's
        self._outgoing = bytearray()             # staged requests not yet written
        self._waiters: Dict[int, _Waiter] = {}
        self._completions: Dict[int, Callable[[], None]] = {}
        self._delegates: Dict[Tuple[int, str], List[Tuple[Optional[Callable[[], None]], Optional[Callable[[bool], None]]]]] = {}
        self._subscribers: List[EventStream] = []
        self._pending_errors: List[RequestFailed] = []
        self._closed = False
        self._hooks = _Hooks()
        self._next_layer_id = 1
        # Surfaces (surfaces.py): pool, buffer and frame-callback ids (one counter), the
        # buffers' release hooks and the frame callbacks waiting.
        self._surface_ids = itertools.count(1)
        self._buffer_releases: Dict[int, Callable[[bool], None]] = {}   # called with busy: False at bufferReleased
        self._frame_callbacks: Dict[int, Callable[[float, float], None]] = {}
        self._presentation_callbacks: Dict[int, Callable[[Any], None]] = {}
        # Client-drawn tiled images' suppliers, by image name (surfaces.py).
        self._tile_suppliers: Dict[str, _TileSupplier] = {}
        self._layers: "weakref.WeakValueDictionary[int, Layer]" = weakref.WeakValueDictionary()
        self._levels = [_Level(_Settings())]
        self._staged_settings = _Settings()
        self._next_completion_id = 1
        self.root = Layer(self, 0)
        self._layers[0] = self.root

        self.on_event: Optional[Callable[[Event], None]] = None
        self.on_animation_event: Optional[Callable[[Union[AnimationStarted, AnimationStopped]], None]] = None
        self.on_display_change: Optional[Callable[[Display], None]] = None
        self.on_reduce_motion_change: Optional[Callable[[bool], None]] = None
        self.on_pointer: Optional[Callable[[PointerEvent], None]] = None
        self.on_key: Optional[Callable[[KeyEvent], None]] = None
        self.on_error: Optional[Callable[[RequestFailed], None]] = None
        self._pointer_handlers: Dict[int, PointerHandler] = {}
        # The path the daemon sent for the pointer event that comes next (``pointerPath``):
        # (layer, x, y) per hop, innermost first. Only the reader thread touches it.
        self._pending_path: Optional[List[Tuple[int, float, float]]] = None

        self._jobs: "queue.Queue[Optional[Callable[[], None]]]" = queue.Queue()
        self._ended = threading.Event()
        self._delivery = threading.Thread(target=self._deliver, name="lamina-delivery", daemon=True)
        self._reader = threading.Thread(target=self._read_loop, name="lamina-reader", daemon=True)
        self._delivery.start()
        self._reader.start()

    # MARK: handshake

    @staticmethod
    def _open(path: str, name: str, sock: Optional[_socket.socket] = None) -> Tuple[_socket.socket, bytearray, bytes]:
        """Connects (``sock``, or a new socket) and says hello: the socket, what came after the
        welcome, the welcome's body."""
        sock = sock or _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            sock.connect(path)
        except OSError as e:
            sock.close()
            raise ConnectionFailed("cannot connect to laminad at %s: %s (is laminad running?)" % (path, e.strerror or e)) from None
        buffer = bytearray()
        return sock, buffer, Connection._handshake(sock, buffer, name)

    def _welcomed(self, welcome: bytes) -> None:
        r = _wire.Reader(welcome)
        major, minor, self.client_id = r.take("HHI")
        self.version = (major, minor)
        self._display = r.display()
        self.is_manual_clock = r.u8() == 1
        self.welcome_time = r.f64()
        self._reduce_motion = r.bool()

    @staticmethod
    def _handshake(sock: _socket.socket, buffer: bytearray, name: str) -> bytes:
        hello = struct.pack("<IHH", _wire.MAGIC, *_wire.VERSION) + _wire.string(name)
        try:
            sock.sendall(_wire.frame(_wire.HELLO, 1, hello))
        except OSError:
            pass   # refused (maxClients): its error is read below
        while True:
            try:
                messages = _wire.split_messages(buffer)
            except ValueError as e:
                sock.close()
                raise ProtocolViolation(str(e)) from None
            for opcode, rid, body in messages:
                if opcode == _wire.ERROR:
                    sock.close()
                    err = RequestFailed.from_body(rid, body)
                    if err.opcode == 0:
                        raise ConnectionFailed("laminad refused the connection: %s" % err.message)
                    raise err
                if opcode == _wire.WELCOME:
                    # Whatever came after the welcome stays in the buffer for the reader.
                    rest = b"".join(_wire.frame(o, i, b) for o, i, b in messages[messages.index((opcode, rid, body)) + 1:])
                    buffer[:0] = rest
                    return body
                sock.close()
                raise ProtocolViolation("expected welcome, got opcode 0x%02x" % opcode)
            try:
                chunk = sock.recv(65536)
            except OSError as e:
                chunk = b""
                reason = ": %s" % (e.strerror or e)
            else:
                reason = ""
            if not chunk:
                sock.close()
                raise ConnectionFailed("laminad closed the connection during the handshake%s" % reason)
            buffer += chunk

    # MARK: lifecycle

    def close(self) -> None:
        """Closes the connection; the daemon removes this client's layers in its next frame.
        Requests waiting for replies raise ``Disconnected``; event streams end (a reconnection
        in progress stops)."""
        with self._lock:
            self._close_requested = True
            candidate = self._candidate
        self._wake.set()
        if candidate is not None:   # a daemon that accepted and never answers must not hold the reader
            try:
                candidate.shutdown(_socket.SHUT_RDWR)
            except OSError:
                pass
        try:
            self._sock.shutdown(_socket.SHUT_RDWR)
        except OSError:
            pass
        if threading.current_thread() is not self._reader:
            self._reader.join(5)

    def __enter__(self) -> "Connection":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    @property
    def is_closed(self) -> bool:
        return self._ended.is_set()

    def wait_until_closed(self, timeout: Optional[float] = None) -> bool:
        """Blocks until the connection ends (True) or ``timeout`` passes (False)."""
        return self._ended.wait(timeout)

    # MARK: display and Reduce Motion

    @property
    def display(self) -> Display:
        """The display (canvas size in points, scale, refresh rate): from the welcome, then
        ``displayChanged``."""
        return self._display

    @property
    def canvas_size(self) -> Size:
        d = self._display
        return Size(float(d.width), float(d.height))

    @property
    def scale(self) -> float:
        return self._display.scale

    @property
    def reduce_motion(self) -> bool:
        """The daemon's Reduce Motion setting: when on, skip or shorten non-essential motion."""
        return self._reduce_motion

    @property
    def pending_errors(self) -> List[RequestFailed]:
        """Errors answering requests no one waited for (staged requests that failed when they
        arrived), oldest first."""
        with self._lock:
            return list(self._pending_errors)

    def events(self) -> EventStream:
        """A new stream of this connection's events from now on (each stream gets every event)."""
        s = EventStream(self)
        with self._lock:
            if self._closed:
                s._queue.put(DisconnectedEvent())
            else:
                self._subscribers.append(s)
        return s

    def _unsubscribe(self, s: EventStream) -> None:
        with self._lock:
            if s in self._subscribers:
                self._subscribers.remove(s)

    def on_pointer_of(self, layer: Layer, handler: Optional[PointerHandler]) -> None:
        """Handles the pointer events that hit ``layer`` **or any of its sublayers**: they
        bubble from the hit layer's handler outward to the client's root container's, then to
        ``on_pointer``. Each handler gets the event with ``layer`` its own layer, ``x``, ``y``
        the point in its own coordinates and ``target`` the hit layer; returning ``HANDLED``
        (True) stops the event there, anything else (None) passes it on. One handler per
        layer; None removes it. ``layer.on_pointer = handler`` is the same."""
        with self._lock:
            if handler is None:
                self._pointer_handlers.pop(layer.id, None)
            else:
                self._pointer_handlers[layer.id] = handler

    def drain_events(self, timeout: Optional[float] = None) -> bool:
        """Blocks until the callbacks of every event read so far have run (False on timeout).
        Not from a callback."""
        done = threading.Event()
        self._jobs.put(done.set)
        return done.wait(timeout)

    # MARK: layers

    def make_layer(self, kind: str = "layer") -> Layer:
        """A new layer of ``kind`` (``layer``, ``shape``, ``gradient``, ``text``) owned by this
        client; it exists in the daemon after the next commit."""
        if kind not in LAYER_KINDS:
            raise ValueError("unknown layer kind %r (one of %s)" % (kind, ", ".join(LAYER_KINDS)))
        layer_id = self._next_layer_id
        self._next_layer_id += 1
        self._stage(_wire.CREATE_LAYER, struct.pack("<IB", layer_id, LAYER_KINDS[kind]))
        layer = cast(Layer, LAYER_CLASSES[kind](self, layer_id))
        self._layers[layer_id] = layer
        return layer

    def make_shape_layer(self) -> ShapeLayer:
        return cast(ShapeLayer, self.make_layer("shape"))

    def make_gradient_layer(self) -> GradientLayer:
        return cast(GradientLayer, self.make_layer("gradient"))

    def make_text_layer(self) -> TextLayer:
        return cast(TextLayer, self.make_layer("text"))

    def make_replicator_layer(self) -> ReplicatorLayer:
        return cast(ReplicatorLayer, self.make_layer("replicator"))

    def make_emitter_layer(self) -> EmitterLayer:
        return cast(EmitterLayer, self.make_layer("emitter"))

    def make_tiled_layer(self) -> TiledLayer:
        return cast(TiledLayer, self.make_layer("tiled"))

    def make_surface_layer(self) -> SurfaceLayer:
        """A new surface layer: pixels this program draws, through shared memory (``SurfaceLayer``)."""
        return cast(SurfaceLayer, self.make_layer("surface"))

    def request_presentation_feedback(self, handler: Callable[[Any], None]) -> None:
        """Stages a ``presentationFeedback`` request: ``handler`` gets a
        ``PresentationFeedback`` (on the delivery thread) about the content of the transaction
        it is staged in, once that content reached a frame or was discarded."""
        fid = self._take_surface_id()
        self._presentation_callbacks[fid] = handler
        self._stage(_wire.PRESENTATION_FEEDBACK, struct.pack("<I", fid))

    def _take_surface_id(self) -> int:
        return next(self._surface_ids) & 0xFFFFFFFF

    def _round_trip_with_fd(self, opcode: int, body: bytes, fd: int, expect: int,
                            hooks: Optional[_Hooks] = None) -> bytes:
        """A request sent with a file descriptor (SCM_RIGHTS, on its first byte), after the
        staged requests; blocks for its reply (``hooks`` come into force when it is accepted)."""
        with self._out_lock:
            with self._lock:
                if self._closed:
                    raise Disconnected()
                if self._reconnecting:
                    raise Reconnecting()
                w = _Waiter(hooks)
                rid = self._take_id()
                self._waiters[rid] = w
            self._note_written()
            data, self._outgoing = bytes(self._outgoing), bytearray()
            message = _wire.frame(opcode, rid, body)
            try:
                if data:
                    self._sock.sendall(data)
                sent = self._sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("i", fd))])
                if sent < len(message):
                    self._sock.sendall(message[sent:])
            except OSError:
                pass   # the reader sees the end and fails the waiter
        got, rbody = w.wait()
        if got != expect:
            raise ProtocolViolation("expected opcode 0x%02x, got 0x%02x" % (expect, got))
        return rbody

    def layer(self, layer_id: int) -> Optional[Layer]:
        """This client's layer with ``layer_id`` while this program holds it (0: ``root``)."""
        return self._layers.get(layer_id)

    def _forget(self, layer: Layer) -> None:
        self._layers.pop(layer.id, None)

    # MARK: staging

    def _stage(self, opcode: int, body: bytes) -> None:
        """Stages a request, preceded by the transaction settings when they changed."""
        with self._out_lock:
            if opcode != _wire.COMPLETION:
                s = self._levels[-1].settings
                if s != self._staged_settings:
                    self._staged_settings = s
                    self._append(_wire.SET_TRANSACTION, self._settings_body(s))
            self._append(opcode, body)

    def _append(self, opcode: int, body: bytes) -> int:
        rid = self._take_id()
        self._outgoing += _wire.frame(opcode, rid, body)
        if self._journal is not None and _wire.is_staged(opcode):
            self._staged_ops.append((opcode, body, self._staged_settings.completion_ids))
        return rid

    def _take_id(self) -> int:
        rid = next(self._ids) & 0xFFFFFFFF
        while rid == 0:
            rid = next(self._ids) & 0xFFFFFFFF
        return rid

    @staticmethod
    def _settings_body(s: _Settings) -> bytes:
        return (struct.pack("<d", s.duration) + _wire.timing(s.timing) + struct.pack("<B", 1 if s.disable_actions else 0)
                + struct.pack("<I%dI" % len(s.completion_ids), len(s.completion_ids), *s.completion_ids))

    def _add_delegate(self, layer_id: int, key: str, on_start: Optional[Callable[[], None]],
                      on_stop: Optional[Callable[[bool], None]]) -> None:
        with self._out_lock:
            self._hooks.delegates.append((layer_id, key, on_start, on_stop))

    # MARK: transactions (CATransaction)

    def transaction(self, duration: Optional[float] = None, timing: Optional[TimingLike] = None,
                    disable_actions: Optional[bool] = None,
                    completion: Optional[Callable[[], None]] = None) -> Transaction:
        """A nested transaction as a context manager: the changes made in the block get these
        settings (implicit animations' ``duration``, ``timing`` function, ``disable_actions``),
        and ``completion`` runs once every animation they started has ended. Leaving the
        outermost one commits (blocking) and raises ``RequestFailed`` if the daemon refuses.
        If the block raises, what it staged is committed all the same (as a CATransaction's
        changes are) and the block's exception propagates.
        """
        return Transaction(self, duration, timing, disable_actions, completion)

    def begin(self) -> None:
        """``CATransaction.begin()``: opens a nested transaction inheriting the current settings."""
        with self._out_lock:
            self._levels.append(_Level(self._levels[-1].settings))

    def set_animation_duration(self, seconds: float) -> None:
        """``CATransaction.setAnimationDuration`` for the innermost transaction."""
        with self._out_lock:
            lv = self._levels[-1]
            lv.settings = lv.settings._replace(duration=max(0.0, float(seconds)))

    def set_animation_timing_function(self, timing: TimingLike) -> None:
        """``CATransaction.setAnimationTimingFunction`` for the innermost transaction."""
        with self._out_lock:
            lv = self._levels[-1]
            lv.settings = lv.settings._replace(timing=timing_function(timing))

    def set_disable_actions(self, disabled: bool) -> None:
        """``CATransaction.setDisableActions`` for the innermost transaction."""
        with self._out_lock:
            lv = self._levels[-1]
            lv.settings = lv.settings._replace(disable_actions=bool(disabled))

    def set_completion_block(self, block: Callable[[], None]) -> int:
        """``CATransaction.setCompletionBlock``: ``block`` runs (on the delivery thread) once every
        animation started by changes made after this call in the innermost transaction has
        ended or been removed. Set again in the same transaction, it replaces the block set
        before. Never runs if the commit is refused. Returns the completion id."""
        with self._out_lock:
            lv = self._levels[-1]
            ids = list(lv.settings.completion_ids)
            if lv.completion_id is not None:
                ids = [i for i in ids if i != lv.completion_id]
                self._hooks.completions.pop(lv.completion_id, None)
            cid = self._next_completion_id
            self._next_completion_id += 1
            lv.completion_id = cid
            lv.settings = lv.settings._replace(completion_ids=tuple(ids + [cid]))
            self._hooks.completions[cid] = block
            return cid

    def commit_transaction(self) -> Optional[int]:
        """``CATransaction.commit()``: closes the innermost transaction; the outermost one sends
        the staged changes and blocks for the daemon's answer (its sequence number)."""
        if self._close_level():
            return self._send_commit()
        return None

    def _close_level(self) -> bool:
        with self._out_lock:
            if len(self._levels) > 1:
                level = self._levels.pop()
                if level.completion_id is not None:
                    self._append(_wire.COMPLETION, struct.pack("<I", level.completion_id))
                if len(self._levels) > 1:
                    return False
            if self._levels[0].completion_id is not None:
                self._append(_wire.COMPLETION, struct.pack("<I", self._levels[0].completion_id))
            self._levels[0] = _Level(_Settings())
            self._staged_settings = _Settings()
            return True

    def commit(self) -> int:
        """Sends every staged change as one transaction and blocks until the daemon's answer
        (closing open transactions first). Returns the daemon's commit sequence number.

        Raises ``RequestFailed`` when the daemon refused it (nothing of it applied): with the
        code of the check that failed at commit (``INVALID_VALUE``, ``UNKNOWN_LAYER``, …) or
        ``TRANSACTION_FAILED`` when a staged request had already failed when it arrived; its
        ``failed_request``, ``layer`` and ``key`` name the staged request that failed.
        """
        while len(self._levels) > 1:
            self._close_level()
        self._close_level()
        return self._send_commit()

    def _send_commit(self) -> int:
        if self._journal is None:
            _, body = self._round_trips([(_wire.COMMIT, b"")], _wire.COMMITTED, take_hooks=True)[0]
            return cast(int, struct.unpack("<Q", body)[0])
        with self._out_lock:
            # The journal records the transaction's requests once the daemon accepts it; if
            # some were written to a daemon that has gone since, all are written again.
            ops, self._staged_ops = self._staged_ops, []
            hooks, self._hooks = self._hooks, _Hooks()
            with self._lock:
                hooks.journal = ("commit", ops, self._clock.now())
            if self._written_generation is not None and self._written_generation != self._generation:
                self._outgoing = bytearray(b"".join(_wire.frame(o, self._take_id(), b) for o, b, _ in ops))
            self._written_generation = None
        try:
            _, body = self._round_trips([(_wire.COMMIT, b"")], _wire.COMMITTED, hooks=hooks)[0]
        except (Disconnected, Reconnecting):
            self._restage(ops, hooks)
            raise
        return cast(int, struct.unpack("<Q", body)[0])

    def _restage(self, ops: List[Tuple[int, bytes, Tuple[int, ...]]], hooks: _Hooks) -> None:
        """A commit that no daemon answered (it went away): its requests and hooks are staged
        again, before what was staged since; the next commit sends them."""
        with self._out_lock:
            # What was staged since assumed the default settings (a commit resets them).
            bridge = [(_wire.SET_TRANSACTION, self._settings_body(_Settings()), ())] \
                if any(o == _wire.SET_TRANSACTION for o, _, _ in ops) else []
            self._staged_ops = ops + bridge + self._staged_ops
            self._outgoing = bytearray(b"".join(_wire.frame(o, self._take_id(), b) for o, b, _ in self._staged_ops))
            self._written_generation = None
            hooks.journal = None
            for cid, block in self._hooks.completions.items():
                hooks.completions.setdefault(cid, block)
            hooks.delegates += self._hooks.delegates
            self._hooks = hooks

    # MARK: requests with replies

    def _round_trip(self, opcode: int, body: bytes, expect: int) -> Tuple[int, bytes]:
        return self._round_trips([(opcode, body)], expect)[0]

    def _round_trips(self, requests: Sequence[Tuple[int, bytes]], expect: int,
                     take_hooks: bool = False, hooks: Optional[_Hooks] = None) -> List[Tuple[int, bytes]]:
        """Writes the staged requests and ``requests`` in one write, then blocks for every reply
        (a commit's hooks, ``take_hooks``, or ``hooks``, come into force when it is accepted)."""
        waiters = []
        with self._out_lock:
            if take_hooks:
                hooks, self._hooks = self._hooks, _Hooks()
            with self._lock:
                if self._closed:
                    raise Disconnected()
                if self._reconnecting:
                    raise Reconnecting()
                for opcode, body in requests:
                    w = _Waiter(hooks)
                    rid = self._append(opcode, body)
                    self._waiters[rid] = w
                    waiters.append(w)
            self._note_written()
            data, self._outgoing = bytes(self._outgoing), bytearray()
            try:
                self._sock.sendall(data)
            except OSError:
                pass   # the reader sees the end and fails the waiters
        out = []
        for w in waiters:
            opcode, rbody = w.wait()
            if opcode != expect:
                raise ProtocolViolation("expected opcode 0x%02x, got 0x%02x" % (expect, opcode))
            out.append((opcode, rbody))
        return out

    def _expect(self, expect: int, opcode: int, body: bytes) -> bytes:
        return self._round_trip(opcode, body, expect)[1]

    def flush(self) -> None:
        """Writes the staged requests now (they stay staged in the daemon until the commit)."""
        with self._out_lock:
            with self._lock:
                if self._reconnecting:
                    raise Reconnecting()
            self._note_written()
            data, self._outgoing = bytes(self._outgoing), bytearray()
            if data:
                try:
                    self._sock.sendall(data)
                except OSError:
                    raise Disconnected() from None

    def _note_written(self) -> None:
        """Staged requests are about to be written (under ``_out_lock``): a commit after a
        reconnection writes its transaction again."""
        if self._journal is not None and self._staged_ops and self._written_generation is None:
            self._written_generation = self._generation

    def ping(self) -> float:
        """A round trip to the daemon, in seconds."""
        token = random.getrandbits(64)
        start = _time.perf_counter()
        body = self._expect(_wire.PONG, _wire.PING, struct.pack("<Q", token))
        if struct.unpack("<Q", body)[0] != token:
            raise ProtocolViolation("pong token mismatch")
        return _time.perf_counter() - start

    def presentation_value(self, layer: Union[Layer, int], key_path: str) -> Any:
        """The presentation value of one of this client's layers at a key path (its model
        value with the animations running now), from a frame that includes every commit
        accepted before the query. Sub-key-paths answer their part (``position.x`` a float,
        ``bounds.size`` a ``Size``, ``transform.rotation.z`` radians)."""
        layer_id = layer.id if isinstance(layer, Layer) else int(layer)
        return self._presentation_values(layer_id, [key_path])[0]

    def _presentation_values(self, layer_id: int, key_paths: Sequence[str]) -> List[Any]:
        replies = self._round_trips([(_wire.GET_PRESENTATION, struct.pack("<I", layer_id) + _wire.string(k))
                                     for k in key_paths], _wire.PRESENTATION)
        return [_wire.Reader(body).value() for _, body in replies]

    def hit_test(self, point: Tuple[float, float]) -> HitTestResult:
        """The topmost layer under a canvas point in the presentation tree."""
        x, y = float(point[0]), float(point[1])
        r = _wire.Reader(self._expect(_wire.HIT_RESULT, _wire.HIT_TEST, struct.pack("<dd", x, y)))
        kind, layer_id = r.take("BI")
        name = {0: "none", 1: "own", 2: "other"}.get(kind, "other")
        return HitTestResult(name, layer_id, self._layers.get(layer_id) if kind == 1 else None)

    def capture(self, at: Optional[float] = None) -> Capture:
        """Renders a frame as PNG: the current one, or under the manual clock the one at ``at``."""
        r = _wire.Reader(self._expect(_wire.CAPTURED, _wire.CAPTURE, struct.pack("<d", _wire.nan_or(at))))
        t, w, h = r.take("dII")
        return Capture(r.bytes(), w, h, t)

    def advance_clock(self, seconds: float) -> float:
        """Moves the manual clock forward (``clockNotManual`` under the realtime clock); returns
        the new time. Events due at the new time come with the next frame: a query after this
        waits for them."""
        return cast(float, struct.unpack("<d", self._expect(_wire.CLOCK_ADVANCED, _wire.ADVANCE_CLOCK,
                                                            struct.pack("<d", seconds)))[0])

    def current_time(self) -> float:
        """The compositor's clock now, in seconds (``getTime``; ``CACurrentMediaTime()`` for the
        daemon's timeline): the time a commit sent now is given, the base of its animations'
        ``begin_time``; ``Layer.convert_time`` turns it into a layer's local time. Under the
        manual clock it moves only by ``advance_clock``."""
        return cast(float, struct.unpack("<d", self._expect(_wire.TIME, _wire.GET_TIME, b""))[0])

    def tree(self) -> Dict[str, Any]:
        """The daemon's model tree (docs/protocol.md, ``tree`` schema), parsed."""
        return cast(Dict[str, Any], json.loads(_wire.Reader(self._expect(_wire.TREE, _wire.GET_TREE, b"")).string()))

    def stats(self) -> Dict[str, Any]:
        """The render thread's statistics (``stats`` schema), parsed."""
        return cast(Dict[str, Any], json.loads(_wire.Reader(self._expect(_wire.STATS, _wire.GET_STATS, b"")).string()))

    def start_trace(self, max_frames: int = 0) -> int:
        """Starts recording a frame trace (docs/protocol.md, "Frame traces"): at most
        ``max_frames`` frames (0: the daemon's cap, 10,000); returns the cap in force. One
        recording runs per daemon: another client's start is ``limitExceeded``."""
        body = self._expect(_wire.TRACE_STARTED, _wire.START_TRACE, struct.pack("<I", max_frames))
        return cast(int, struct.unpack("<I", body)[0])

    def stop_trace(self) -> str:
        """Stops this client's recording and returns it as Chrome trace-event JSON, which
        Perfetto's UI and ``chrome://tracing`` open (write it to a ``.json`` file)."""
        return _wire.Reader(self._expect(_wire.TRACE, _wire.STOP_TRACE, b"")).string()

    def match(self, source: Layer, destination: Layer) -> None:
        """Matched geometry (SwiftUI's ``matchedGeometryEffect``) in the current transaction:
        ``destination`` starts at ``source``'s frame on screen (position and size in the canvas,
        and corner radius) and animates to its own while ``source`` animates to
        ``destination``'s frame, the two cross-fading. Stage it after the transaction's other
        changes of the two layers."""
        self._stage(_wire.MATCH, struct.pack("<II", source.id, destination.id))

    def add_transition(self, layer: Layer, type: str = "fade", subtype: str = "fromLeft",
                       duration: Optional[float] = None, timing: Optional[TimingLike] = None) -> None:
        """CATransition in the current transaction: everything it changes inside ``layer`` (its
        properties, sublayers added or removed, contents, text) is shown passing from the old
        rendering to the new one — ``type`` ``"fade"``, ``"moveIn"``, ``"push"`` or ``"reveal"``
        from the ``subtype``'s side (``"fromLeft"``, ``"fromRight"``, ``"fromTop"``,
        ``"fromBottom"``), over ``duration`` seconds with ``timing`` (left out: the transaction's).
        The daemon snapshots the old rendering; under Reduce Motion it cross-fades."""
        if type not in _wire.TRANSITION_TYPES:
            raise ValueError("unknown transition type %r (fade, moveIn, push, reveal)" % (type,))
        if subtype not in _wire.TRANSITION_SUBTYPES:
            raise ValueError("unknown transition subtype %r (fromLeft, fromRight, fromTop, fromBottom)" % (subtype,))
        s = self._levels[-1].settings
        seconds = s.duration if duration is None else float(duration)
        if not math.isfinite(seconds) or seconds < 0:
            raise ValueError("a transition's duration must be finite and >= 0")
        curve = s.timing if timing is None else timing_function(timing)
        body = (struct.pack("<IBBd", layer.id, _wire.TRANSITION_TYPES.index(type), _wire.TRANSITION_SUBTYPES.index(subtype),
                            seconds) + _wire.timing(curve))
        self._stage(_wire.TRANSITION, body)

    def set_reduce_motion(self, on: bool) -> None:
        """Sets the daemon's Reduce Motion setting (tools and tests); every other client is told."""
        body = self._expect(_wire.REDUCE_MOTION_CHANGED, _wire.SET_REDUCE_MOTION, b"\x01" if on else b"\x00")
        self._reduce_motion = body[:1] == b"\x01"

    def measure_text(self, text: Union[str, StyledText, Sequence[TextRun]], font: str = "sans-serif",
                     font_size: float = 36.0, width: Optional[float] = None) -> Size:
        """The size ``text`` needs in points, laid out as a text layer with this ``font`` and
        ``font_size`` lays it out: the widest line's width and the lines' height. With a
        ``width`` lines wrap at it; with None each paragraph is one line."""
        if isinstance(text, (list, tuple)) and not isinstance(text, StyledText):
            text = StyledText(tuple(text))
        body = (_wire.string(font) + struct.pack("<dd", font_size, _wire.nan_or(width))
                + _wire.value("text", text))
        w, h = _wire.Reader(self._expect(_wire.TEXT_MEASURED, _wire.MEASURE_TEXT, body)).take("dd")
        return Size(w, h)

    # MARK: images

    def upload_image(self, data: bytes, name: str) -> Image:
        """Uploads PNG, JPEG or WebP bytes (decoded by the daemon) under ``name``. Raises
        ``RequestFailed`` naming the image in ``key``: ``INVALID_IMAGE``, ``DUPLICATE_IMAGE``,
        ``LIMIT_EXCEEDED``, ``INVALID_VALUE`` (a bad name)."""
        return self._upload(name, 0, 0, 0, data)

    def upload_image_file(self, path: str, name: Optional[str] = None) -> Image:
        """Uploads an image file under ``name`` (the file's name when None)."""
        with open(path, "rb") as f:
            data = f.read()
        return self.upload_image(data, name if name is not None else os.path.basename(path))

    def upload_image_rgba(self, pixels: bytes, width: int, height: int, name: str) -> Image:
        """Uploads premultiplied RGBA8 pixels (sRGB-encoded, rows top first, width × height × 4 bytes)."""
        return self._upload(name, 1, width, height, pixels)

    def open_image_file(self, path: str, name: Optional[str] = None) -> Image:
        """Names a PNG file for tiled layers under ``name`` (the file's name when None) by
        sending its open descriptor (SCM_RIGHTS, ``openImageFile``): the daemon reads it region
        by region as tiles are drawn, so it may be of any size up to 2**30 pixels a side and
        never travels in a message. Only tiled layers show it. Raises ``OSError`` when the file
        cannot be opened here; ``RequestFailed`` naming the image in ``key``: ``INVALID_IMAGE``
        (not a regular file, not a PNG), ``LIMIT_EXCEEDED`` (too large), ``DUPLICATE_IMAGE``."""
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            return self.open_image_fd(fd, name if name is not None else os.path.basename(path))
        finally:
            os.close(fd)

    def open_image_fd(self, fd: int, name: str) -> Image:
        """``open_image_file`` with a descriptor already open (it stays the caller's). With
        reconnection on, the journal keeps a duplicate of it and names the file again after a
        daemon restart."""
        hooks = _Hooks(journal=("upload", name, 0, 0, 0, b"", "file", KeptFd(fd))) if self._journal is not None else None
        r = _wire.Reader(self._round_trip_with_fd(_wire.OPEN_IMAGE_FILE, _wire.string(name), fd, _wire.IMAGE_UPLOADED,
                                                  hooks=hooks))
        got = r.string()
        w, h = r.take("II")
        return Image(self, got, w, h)

    def create_tiled_image(self, name: str, width: int, height: int,
                           provider: Callable[[TileRequest, memoryview], bool],
                           on_cancelled: Optional[Callable[[TileRequest], None]] = None) -> Image:
        """Names a ``width`` × ``height`` image for tiled layers whose tiles this program draws
        on request (``createTiledImage``): as a tiled layer showing it draws, the daemon asks for
        each tile in view that is not in its cache; ``provider(request, memory)`` runs on the
        delivery thread with a ``TileRequest`` and ``request.width`` × ``request.height`` × 4
        zeroed bytes to fill with premultiplied RGBA (rows top first), and returns True to send
        them (through shared memory, ``provideTile``). Tiles not answered yet show the coarser
        level. ``on_cancelled(request)`` runs on the delivery thread for each ``tileCancelled``
        of a tile asked for and not answered (one not drawn yet is then not drawn). With
        reconnection on, the image is named again after a daemon restart and the new daemon asks
        for its tiles again. Raises ``RequestFailed`` naming the image: ``INVALID_VALUE`` (a
        size outside 1…2**30 a side, a bad name), ``DUPLICATE_IMAGE``."""
        supplier = _TileSupplier(self, provider, on_cancelled)
        self._tile_suppliers[name] = supplier
        hooks = (_Hooks(journal=("upload", name, 0, width, height, b"", "tiled", None))
                 if self._journal is not None else None)
        try:
            r = _wire.Reader(self._round_trips([(_wire.CREATE_TILED_IMAGE, _wire.string(name) + struct.pack("<II", width, height))],
                                               _wire.IMAGE_UPLOADED, hooks=hooks)[0][1])
        except BaseException:
            if self._tile_suppliers.get(name) is supplier:
                del self._tile_suppliers[name]
            raise
        got = r.string()
        w, h = r.take("II")
        return Image(self, got, w, h)

    def _upload(self, name: str, fmt: int, width: int, height: int, data: bytes) -> Image:
        data = bytes(data)
        body = (_wire.string(name) + struct.pack("<BII", fmt, width, height) + struct.pack("<I", len(data))
                + data)
        hooks = _Hooks(journal=("upload", name, fmt, width, height, data)) if self._journal is not None else None
        r = _wire.Reader(self._round_trips([(_wire.UPLOAD_IMAGE, body)], _wire.IMAGE_UPLOADED, hooks=hooks)[0][1])
        got = r.string()
        w, h = r.take("II")
        return Image(self, got, w, h)

    # MARK: the reader thread

    def _read_loop(self) -> None:
        try:
            while True:
                self._read()
                if not self._reconnect():
                    break
        except Exception:   # a daemon bug or a broken stream: end the connection, say why
            traceback.print_exc()
        finally:
            self._finish()

    def _read(self) -> None:
        """Reads and handles messages until the socket ends."""
        while True:
            for opcode, rid, body in _wire.split_messages(self._buffer):
                self._handle(opcode, rid, body)
            try:
                chunk = self._sock.recv(262144)
            except OSError:
                return
            if not chunk:
                return
            self._buffer += chunk

    # MARK: reconnecting

    @property
    def is_reconnecting(self) -> bool:
        """Whether the daemon went away and the connection is reconnecting (between
        ``ConnectionLost`` and ``Reconnected``)."""
        return self._reconnecting

    def _announce(self, event: Event) -> None:
        jobs: List[Callable[[], None]] = []
        ch = self.on_connection_change
        if ch is not None:
            jobs.append(lambda: ch(event))
        self._event(event, jobs)

    def _reconnect(self) -> bool:
        """After the socket ended: with reconnection on and ``close()`` not called, fails what
        is waited for, announces ``ConnectionLost`` and tries the socket with the policy's
        backoff until a daemon welcomes the client and accepts the replay (True), or the
        policy gives up (False)."""
        policy = self.reconnect
        with self._lock:
            if policy is None or self._close_requested:
                return False
            self._reconnecting = True
            waiters = list(self._waiters.values())
            self._waiters.clear()
        for w in waiters:
            w.error = Disconnected()
            w.done.set()
        self._announce(ConnectionLost())
        start = _time.monotonic()
        delay = policy.first_delay
        while True:
            if self._wake.wait(delay):
                return False   # close()
            outcome = self._attempt_replay()
            if outcome is True:
                return True
            if isinstance(outcome, RequestFailed):
                # The new daemon refused the model (a lower limit, say): the connection ends.
                with self._lock:
                    self._pending_errors.append(outcome)
                self._event(ErrorEvent(outcome), [])
                return False
            if policy.give_up_after is not None and _time.monotonic() - start >= policy.give_up_after:
                return False
            delay = policy.next_delay(delay)

    def _attempt_replay(self) -> Union[bool, RequestFailed]:
        """Connects, says hello, and replays the journal in one transaction (images uploaded
        first, released ones released after), reading the replies on this thread."""
        candidate = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        with self._lock:
            if self._close_requested:
                candidate.close()
                return False
            self._candidate = candidate
        try:
            return self._replay_on(candidate)
        finally:
            with self._lock:
                self._candidate = None

    def _replay_on(self, candidate: _socket.socket) -> Union[bool, RequestFailed]:
        try:
            sock, buffer, welcome = self._open(self.socket_path, self._client_name, candidate)
        except LaminaError:
            return False
        r = _wire.Reader(welcome)
        _, _, client_id = r.take("HHI")
        display = r.display()
        manual = r.u8() == 1
        welcome_time = r.f64()
        reduce_motion = r.bool()
        with self._lock:
            journal = cast(Journal, self._journal)
            self._clock.rebase(manual, welcome_time)
            # Frame callbacks and presentation feedback still waiting come from the new
            # daemon's first frame.
            waiting = ([(_wire.FRAME_CALLBACK, struct.pack("<I", i)) for i in sorted(self._frame_callbacks)]
                       + [(_wire.PRESENTATION_FEEDBACK, struct.pack("<I", i)) for i in sorted(self._presentation_callbacks)])
            uploads, staged, releases = journal.replay(
                self._clock.now(), set(self._completions),
                lambda ids: self._settings_body(_Settings(duration=0.0, disable_actions=True, completion_ids=ids)), waiting)
            self._replayed_starts = {}
            for k in journal.animation_keys():
                self._replayed_starts[k] = self._replayed_starts.get(k, 0) + 1
            again = journal.reattached()
            kept_buffers = {b for p in journal.pools for b in p.buffer_ids()}
            suppliers = list(self._tile_suppliers.values())
        # Client-drawn images start afresh (the new daemon asks for their tiles again, and has
        # none of their pools), before any of its ``tileWanted`` is read.
        for supplier in suppliers:
            supplier.reconnected()
        asked = set()
        # Messages with a descriptor (a pool's memfd, a PNG file's) go in a sendmsg of their own.
        parts: List[Tuple[bytearray, Optional[KeptFd]]] = [(bytearray(), None)]
        for opcode, body, kept in uploads:
            rid = self._take_id()
            asked.add(rid)
            if kept is not None:
                parts.append((bytearray(_wire.frame(opcode, rid, body)), kept))
                parts.append((bytearray(), None))
            else:
                parts[-1][0].extend(_wire.frame(opcode, rid, body))
        for opcode, body in staged:
            parts[-1][0].extend(_wire.frame(opcode, self._take_id(), body))
        rid = self._take_id()
        asked.add(rid)
        parts[-1][0].extend(_wire.frame(_wire.COMMIT, rid, b""))
        for opcode, body in releases:
            rid = self._take_id()
            asked.add(rid)
            parts[-1][0].extend(_wire.frame(opcode, rid, body))
        try:
            for data, kept in parts:
                if not data:
                    continue
                if kept is None:
                    sock.sendall(data)
                    continue
                sent = sock.sendmsg([data], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("i", kept.fd))])
                if sent < len(data):
                    sock.sendall(data[sent:])
            # Read until every reply came; events between them are handled as usual.
            while asked:
                for opcode, rid, body in _wire.split_messages(buffer):
                    if rid in asked:
                        asked.discard(rid)
                        if opcode == _wire.ERROR:
                            sock.close()
                            return RequestFailed.from_body(rid, body)
                    else:
                        self._handle(opcode, rid, body)
                if not asked:
                    break
                chunk = sock.recv(262144)
                if not chunk:
                    sock.close()
                    return False
                buffer += chunk
        except (OSError, ValueError):
            sock.close()
            return False
        # In use from here: requests go to the new daemon.
        with self._out_lock:
            with self._lock:
                if self._close_requested:
                    sock.close()
                    return False
                old, self._sock, self._buffer = self._sock, sock, buffer
                self._generation += 1
                self.client_id, self._display, self.is_manual_clock = client_id, display, manual
                self.welcome_time, self._reduce_motion = welcome_time, reduce_motion
                self._reconnecting = False
        try:
            old.close()
        except OSError:
            pass
        # The old daemon's releases never come: the kept buffers are free again, but those
        # attached again, busy until the new daemon releases them.
        for bid in kept_buffers:
            mark = self._buffer_releases.get(bid)
            if mark is not None:
                mark(bid in again)
        self._announce(Reconnected(client_id))
        return True

    def _finish(self) -> None:
        with self._lock:
            self._closed = True
            self._reconnecting = False
            waiters = list(self._waiters.values())
            self._waiters.clear()
            subscribers = list(self._subscribers)
            self._subscribers.clear()
        for w in waiters:
            w.error = Disconnected()
            w.done.set()
        for s in subscribers:
            s._queue.put(DisconnectedEvent())
        on_event = self.on_event
        if on_event is not None:
            self._jobs.put(lambda: on_event(DisconnectedEvent()))
        on_change = self.on_connection_change
        if on_change is not None:
            self._jobs.put(lambda: on_change(DisconnectedEvent()))
        self._jobs.put(None)
        try:
            self._sock.close()
        except OSError:
            pass
        self._ended.set()

    def _handle(self, opcode: int, rid: int, body: bytes) -> None:
        waiter = None
        if rid != 0:
            with self._lock:
                waiter = self._waiters.pop(rid, None)
        if waiter is not None:
            if opcode == _wire.ERROR:
                waiter.error = RequestFailed.from_body(rid, body)
            else:
                if opcode in (_wire.COMMITTED, _wire.IMAGE_UPLOADED, _wire.IMAGE_RELEASED) and waiter.hooks:
                    # In force before any later event is read: this commit's events come after.
                    with self._lock:
                        self._completions.update(waiter.hooks.completions)
                        for layer_id, key, start, stop in waiter.hooks.delegates:
                            self._delegates.setdefault((layer_id, key), []).append((start, stop))
                        self._record(waiter.hooks.journal)
                if opcode == _wire.CLOCK_ADVANCED and len(body) == 8:
                    with self._lock:
                        self._clock.clock_advanced(struct.unpack("<d", body)[0])
                if opcode == _wire.REDUCE_MOTION_CHANGED:
                    self._reduce_motion = body[:1] == b"\x01"
                    self._event(ReduceMotionChanged(self._reduce_motion), [])
                waiter.opcode, waiter.body = opcode, body
            waiter.done.set()
            return
        self._dispatch(opcode, rid, body)

    def _record(self, entry: Optional[Tuple[Any, ...]]) -> None:
        """Applies a hook's journal entry (under ``_lock``)."""
        journal = self._journal
        if journal is None or entry is None:
            return
        if entry[0] == "commit":
            journal.apply(entry[1], entry[2])
        elif entry[0] == "upload":
            journal.uploaded(*entry[1:])
        elif entry[0] == "release":
            journal.released(entry[1])

    def _dispatch(self, opcode: int, rid: int, body: bytes) -> None:
        r = _wire.Reader(body)
        jobs: List[Callable[[], None]] = []
        if opcode == _wire.ANIMATION_STARTED or opcode == _wire.ANIMATION_STOPPED:
            layer_id = r.u32()
            key = r.string()
            started = opcode == _wire.ANIMATION_STARTED
            event: Event = AnimationStarted(layer_id, key) if started else AnimationStopped(layer_id, key, r.bool())
            with self._lock:
                if started and (layer_id, key) in self._replayed_starts:
                    # A replayed animation had started before the daemon went away: not again.
                    n = self._replayed_starts.pop((layer_id, key))
                    if n > 1:
                        self._replayed_starts[(layer_id, key)] = n - 1
                    return
                if not started and self._journal is not None and cast(AnimationStopped, event).finished:
                    self._journal.animation_finished(layer_id, key)
                entries = self._delegates.get((layer_id, key), [])
                entry = entries[0] if entries else None
                if not started and entries:
                    entries.pop(0)
                    if not entries:
                        del self._delegates[(layer_id, key)]
            if entry is not None:
                start, stop = entry
                if started and start is not None:
                    jobs.append(start)
                if not started and stop is not None:
                    finished = cast(AnimationStopped, event).finished
                    jobs.append(lambda: stop(finished))
            handler = self.on_animation_event
            if handler is not None:
                jobs.append(lambda: handler(event))  # type: ignore[arg-type]
        elif opcode == _wire.TRANSACTION_COMPLETED:
            cid = r.u32()
            event = TransactionCompleted(cid)
            with self._lock:
                block = self._completions.pop(cid, None)
            if block is not None:
                jobs.append(block)
        elif opcode == _wire.DISPLAY_CHANGED:
            self._display = r.display()
            event = DisplayChanged(self._display)
            display = self._display
            dh = self.on_display_change
            if dh is not None:
                jobs.append(lambda: dh(display))
        elif opcode == _wire.REDUCE_MOTION_CHANGED:
            self._reduce_motion = r.bool()
            event = ReduceMotionChanged(self._reduce_motion)
        elif opcode == _wire.ERROR:
            err = RequestFailed.from_body(rid, body)
            with self._lock:
                self._pending_errors.append(err)
            event = ErrorEvent(err)
            eh = self.on_error
            if eh is not None:
                jobs.append(lambda: eh(err))
        elif opcode == _wire.POINTER_PATH:
            self._pending_path = _pointer_path(r)
            return   # not an event of its own: kept for the pointer event after it
        elif _wire.POINTER_DOWN <= opcode <= _wire.SCROLL:
            kind = {_wire.POINTER_DOWN: "down", _wire.POINTER_UP: "up", _wire.POINTER_MOVED: "moved",
                    _wire.SCROLL: "scroll"}[opcode]
            layer_id, x, y, cx, cy, button, mods, sx, sy, t = r.take("IddddBHddd")
            pe = PointerEvent(kind, layer_id, x, y, cx, cy, button, mods, sx, sy, t, layer_id)
            event = pe
            # The daemon sends the path right before its event; without one (an older daemon,
            # or a path for another layer) the event reaches its own layer only.
            path = self._pending_path
            self._pending_path = None
            if not path or path[0][0] != layer_id:
                path = [(layer_id, x, y)]
            with self._lock:
                chain = [(self._pointer_handlers[hop], pe._replace(layer=hop, x=hx, y=hy))
                         for hop, hx, hy in path if hop in self._pointer_handlers]
            ph = self.on_pointer
            if chain or ph is not None:
                jobs.append(lambda: _bubble(chain, ph, pe))
        elif opcode == _wire.BUFFER_RELEASED:
            hook = self._buffer_releases.get(r.u32())
            if hook is not None:
                hook(False)
            return
        elif opcode == _wire.TILE_WANTED or opcode == _wire.TILE_CANCELLED:
            request = TileRequest.read(r)
            supplier = self._tile_suppliers.get(request.name)
            if supplier is not None:
                if opcode == _wire.TILE_WANTED:
                    supplier.wanted(request)
                    self._jobs.put(lambda: supplier.draw(request))  # type: ignore[union-attr]
                elif supplier.cancelled(request) and supplier.on_cancelled is not None:
                    notice = supplier.on_cancelled
                    self._jobs.put(lambda: notice(request))
            return
        elif opcode == _wire.PRESENTED:
            fid, discarded, t, refresh, frame = r.take("I?ddQ")
            ph2 = self._presentation_callbacks.pop(fid, None)
            if ph2 is not None:
                feedback = PresentationFeedback(t, refresh, frame, discarded)
                self._jobs.put(lambda: ph2(feedback))
            return
        elif opcode == _wire.FRAME_DONE:
            cid, t, target = r.take("Idd")
            fh = self._frame_callbacks.pop(cid, None)
            if fh is not None:
                jobs.append(lambda: fh(t, target))
                for job in jobs:
                    self._jobs.put(job)
            return
        elif opcode in (_wire.KEY_DOWN, _wire.KEY_UP):
            layer_id, key_code, mods, repeat, t = r.take("IIHBd")
            ke = KeyEvent("down" if opcode == _wire.KEY_DOWN else "up", layer_id, key_code, mods, repeat != 0, t)
            event = ke
            kh = self.on_key
            if kh is not None:
                jobs.append(lambda: kh(ke))
        else:
            return   # an event this version does not know (a later minor version's): skipped
        self._event(event, jobs)

    def _event(self, event: Event, jobs: List[Callable[[], None]]) -> None:
        if isinstance(event, ReduceMotionChanged):
            rh = self.on_reduce_motion_change
            if rh is not None:
                on = event.on
                jobs.append(lambda: rh(on))
        general = self.on_event
        if general is not None:
            jobs.append(lambda: general(event))
        for job in jobs:
            self._jobs.put(job)
        with self._lock:
            subscribers = list(self._subscribers)
        for s in subscribers:
            s._queue.put(event)

    # MARK: the delivery thread

    def _deliver(self) -> None:
        while True:
            job = self._jobs.get()
            if job is None:
                # Run what is left (drain_events' markers), then end.
                while True:
                    try:
                        rest = self._jobs.get_nowait()
                    except queue.Empty:
                        return
                    if rest is not None:
                        self._run(rest)
            self._run(job)

    @staticmethod
    def _run(job: Callable[[], None]) -> None:
        try:
            job()
        except Exception:   # a callback's exception must not stop the others
            sys.stderr.write("lamina: an event callback raised:\n")
            traceback.print_exc()
