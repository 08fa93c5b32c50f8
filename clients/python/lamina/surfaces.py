"""Surface layers: pixels this program draws itself, shown through shared memory
(docs/protocol.md, Surfaces; docs/python.md, Surfaces)."""
from __future__ import annotations

import fcntl
import mmap
import os
import struct
import threading
from typing import TYPE_CHECKING, Callable, List, NamedTuple, Optional, Sequence, Tuple

from . import _wire
from ._journal import KeptFd
from .layers import LAYER_CLASSES, Layer

if TYPE_CHECKING:
    from .connection import Connection

__all__ = ["SurfaceLayer", "SurfaceBuffer", "PresentationFeedback", "TileRequest", "BGRA8", "RGBA8"]

#: Buffer formats: 8 bits a channel, premultiplied. BGRA8 is cairo's ``FORMAT_ARGB32`` on a
#: little-endian machine.
BGRA8, RGBA8 = 0, 1

Damage = Tuple[int, int, int, int]


class PresentationFeedback(NamedTuple):
    """What ``presented`` says of a commit's content: the compositor time of the frame that
    showed it (when it reached the window, or a headless daemon's offscreen target), the time
    between frames, the frame's number (increasing), and whether it was ``discarded`` (every
    surface it attached was attached again by a later commit applied in the same frame)."""
    time: float
    refresh_interval: float
    frame: int
    discarded: bool


class TileRequest(NamedTuple):
    """One tile of a client-drawn tiled image (``Connection.create_tiled_image``), as the
    daemon asks for it (``tileWanted``): the image's name, the level of detail (the image scaled
    by 2**-level; negative: magnified), the tile's column and row in that level's grid of
    ``tile_width`` × ``tile_height`` tiles, and the level's pixels it holds."""
    name: str
    level: int
    column: int
    row: int
    tile_width: int
    tile_height: int
    x: int
    y: int
    width: int
    height: int

    @staticmethod
    def read(r: "_wire.Reader") -> "TileRequest":
        name = r.string()
        return TileRequest(name, *r.take("iIIIIIIII"))

    def key(self) -> Tuple[int, int, int, int, int]:
        return (self.level, self.column, self.row, self.tile_width, self.tile_height)


class _TileSupplier:
    """Answers a client-drawn image's tile requests: one memfd pool (grown to the largest tile
    asked for; the memfd kept open to send the pool again after a reconnection) holding one
    buffer; ``provider(request, memory)`` draws into ``memory`` (``width`` × ``height`` × 4
    bytes of premultiplied RGBA, rows top first, zeroed) on the delivery thread and returns True
    to answer (False: leave the tile unanswered). ``on_cancelled(request)`` is told of each
    ``tileCancelled`` of a tile asked for and not answered."""

    def __init__(self, connection: "Connection", provider: Callable[[TileRequest, memoryview], bool],
                 on_cancelled: Optional[Callable[[TileRequest], None]] = None) -> None:
        self._connection = connection
        self._provider = provider
        self.on_cancelled = on_cancelled
        self._pool = connection._take_surface_id()
        self._buffer = connection._take_surface_id()
        self._map: Optional[mmap.mmap] = None
        self._fd: Optional[int] = None
        self._pool_sent = False
        self._size: Optional[Tuple[int, int]] = None
        self._pending: set = set()        # asked, not drawn yet
        self._outstanding: set = set()    # asked, neither answered nor cancelled
        self._drawing: Optional[Tuple[int, int, int, int, int]] = None
        self._drawing_cancelled = False
        self._lock = threading.Lock()
        self.closed = False

    def wanted(self, request: TileRequest) -> None:
        with self._lock:
            self._pending.add(request.key())
            self._outstanding.add(request.key())

    def cancelled(self, request: TileRequest) -> bool:
        """A request not drawn yet is dropped; one being drawn is not answered. Whether it was
        asked for and not answered."""
        with self._lock:
            if request.key() == self._drawing:
                self._drawing_cancelled = True
            self._pending.discard(request.key())
            if request.key() in self._outstanding:
                self._outstanding.discard(request.key())
                return True
            return False

    def reconnected(self) -> None:
        """A new daemon serves the connection: what the old one asked is dropped (the new one
        asks again); the pool and buffer are sent again when next needed."""
        with self._lock:
            self._pending.clear()
            self._outstanding.clear()
            self._drawing_cancelled = self._drawing is not None
            self._pool_sent = False
            self._size = None

    def close(self) -> None:
        with self._lock:
            self.closed = True
            self._pending.clear()
            self._outstanding.clear()

    def __del__(self) -> None:
        if self._fd is not None:
            try:
                os.close(self._fd)
            except OSError:
                pass

    def _send_pool(self) -> None:
        assert self._map is not None and self._fd is not None
        self._connection._round_trip_with_fd(_wire.CREATE_POOL, struct.pack("<IQ", self._pool, len(self._map)), self._fd,
                                             _wire.POOL_CREATED)
        self._pool_sent = True

    def draw(self, request: TileRequest) -> None:
        with self._lock:
            if self.closed or request.key() not in self._pending:
                return
            self._pending.discard(request.key())
            self._drawing, self._drawing_cancelled = request.key(), False
        try:
            self._draw(request)
        finally:
            with self._lock:
                self._drawing = None

    def _draw(self, request: TileRequest) -> None:
        w, h = request.width, request.height
        n = w * h * 4
        if n <= 0:
            return
        c = self._connection
        try:
            if self._map is None or len(self._map) < n:
                if self._map is not None:
                    if self._pool_sent:
                        if self._size is not None:
                            c._round_trip(_wire.DESTROY_BUFFER, struct.pack("<I", self._buffer), _wire.BUFFER_DESTROYED)
                        c._round_trip(_wire.DESTROY_POOL, struct.pack("<I", self._pool), _wire.POOL_DESTROYED)
                    self._size, self._pool_sent = None, False
                    self._map.close()
                    self._map = None
                    if self._fd is not None:
                        os.close(self._fd)
                        self._fd = None
                size = max(n, 256 * 256 * 4)
                fd = os.memfd_create("lamina-tiles", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
                try:
                    os.ftruncate(fd, size)
                    fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
                    self._map = mmap.mmap(fd, size)
                except BaseException:
                    os.close(fd)
                    raise
                self._fd = fd
            if not self._pool_sent:
                self._send_pool()
            view = memoryview(self._map)[:n]
            view[:] = bytes(n)
            try:
                answer = self._provider(request, view)
            finally:
                view.release()
            with self._lock:
                if self._drawing_cancelled:
                    return
            if not answer:
                return
            if self._size != (w, h):
                if self._size is not None:
                    c._round_trip(_wire.DESTROY_BUFFER, struct.pack("<I", self._buffer), _wire.BUFFER_DESTROYED)
                    self._size = None
                c._round_trip(_wire.CREATE_BUFFER, struct.pack("<IIQIIIB", self._buffer, self._pool, 0, w, h, w * 4, RGBA8),
                              _wire.BUFFER_CREATED)
                self._size = (w, h)
            body = _wire.string(request.name) + struct.pack("<iIIIII", request.level, request.column, request.row,
                                                           request.tile_width, request.tile_height, self._buffer)
            c._round_trip(_wire.PROVIDE_TILE, body, _wire.BUFFER_RELEASED)
            with self._lock:
                self._outstanding.discard(request.key())
        except Exception:
            return   # refused (the error is also a pending error) or disconnected


class SurfaceBuffer:
    """One buffer of a surface layer's ring: ``memory`` is this program's mapping of it
    (``height`` rows of ``stride`` bytes, premultiplied, in ``format``'s byte order). It is
    ``busy`` from ``present`` until the daemon releases it: don't draw into it meanwhile."""

    def __init__(self, buffer_id: int, memory: memoryview, width: int, height: int, stride: int, fmt: int) -> None:
        self.id = buffer_id
        self.memory = memory
        self.width, self.height, self.stride, self.format = width, height, stride, fmt
        self._busy = threading.Event()

    @property
    def busy(self) -> bool:
        return self._busy.is_set()

    def _mark(self, busy: bool) -> None:
        """``bufferReleased`` (False), or a replay's attaching it again (True)."""
        if busy:
            self._busy.set()
        else:
            self._busy.clear()

    def __repr__(self) -> str:
        return "SurfaceBuffer(%d, %dx%d%s)" % (self.id, self.width, self.height, ", busy" if self.busy else "")


class SurfaceLayer(Layer):
    """A layer that shows pixels this program draws (kind ``surface``). Make one with
    ``connection.make_surface_layer()``, then ``make_buffers`` once; each frame:
    ``b = layer.next_buffer()``, draw into ``b.memory``, ``layer.present(b, damage)``,
    ``connection.commit()``. ``on_frame(time, target_time)`` runs (on the delivery thread)
    once the daemon made the frame that shows the last ``present``: draw the next one then."""

    kind = "surface"

    def __init__(self, connection: "Connection", layer_id: int) -> None:
        super().__init__(connection, layer_id)
        self.buffers: List[SurfaceBuffer] = []
        self.on_frame: Optional[Callable[[float, float], None]] = None
        #: When set, each ``present`` also asks for presentation feedback (a
        #: ``PresentationFeedback``, on the delivery thread).
        self.on_presented: Optional[Callable[[PresentationFeedback], None]] = None
        self._map: Optional[mmap.mmap] = None
        self._cursor = 0

    def make_buffers(self, width: int, height: int, fmt: int = BGRA8, count: int = 3) -> List[SurfaceBuffer]:
        """Makes ``count`` buffers of ``width`` × ``height`` pixels (rows of ``width`` × 4 bytes)
        in one memfd sealed against shrinking, and sends it to the daemon as a pool. Raises
        ``RequestFailed`` when the daemon refuses it (``LIMIT_EXCEEDED``, ``INVALID_BUFFER``).
        Keep three: a buffer the daemon samples in place stays busy while it is shown and until
        the frame after the one that replaced it finished, so a ring of two waits for that."""
        if self.buffers:
            raise ValueError("make_buffers is called once per surface layer")
        if width <= 0 or height <= 0 or count <= 0:
            raise ValueError("width, height and count must be > 0")
        stride = width * 4
        size = stride * height * count
        fd = os.memfd_create("lamina-surface-%d" % self.id, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, size)
            fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_SHRINK)
            self._map = mmap.mmap(fd, size)
            c = self._connection
            pool = c._take_surface_id()
            c._round_trip_with_fd(_wire.CREATE_POOL, struct.pack("<IQ", pool, size), fd, _wire.POOL_CREATED)
            # A connection that reconnects keeps the memfd open (a duplicate) to send the pool
            # and its buffers again after a daemon restart.
            kept = KeptFd(fd) if c._journal is not None else None
        finally:
            os.close(fd)
        view = memoryview(self._map)
        made = []
        for k in range(count):
            bid = c._take_surface_id()
            offset = k * stride * height
            body = struct.pack("<IIQIIIB", bid, pool, offset, width, height, stride, fmt)
            c._round_trip(_wire.CREATE_BUFFER, body, _wire.BUFFER_CREATED)
            made.append(body)
            b = SurfaceBuffer(bid, view[offset:offset + stride * height], width, height, stride, fmt)
            c._buffer_releases[bid] = b._mark
            self.buffers.append(b)
        # The buffers keep the memory; the pool's id is not needed any more.
        c._round_trip(_wire.DESTROY_POOL, struct.pack("<I", pool), _wire.POOL_DESTROYED)
        if kept is not None:
            with c._lock:
                c._journal.made_pool(self.id, pool, size, kept, made)  # type: ignore[union-attr]
        return self.buffers

    def next_buffer(self) -> Optional[SurfaceBuffer]:
        """A buffer the daemon does not read now (round robin), or None while all are busy."""
        n = len(self.buffers)
        for k in range(n):
            b = self.buffers[(self._cursor + k) % n]
            if not b.busy:
                self._cursor = (self._cursor + k + 1) % n
                return b
        return None

    def present(self, buffer: SurfaceBuffer, damage: Optional[Sequence[Damage]] = None) -> None:
        """Stages ``buffer``'s attachment with its damaged rectangles ((x, y, width, height) in
        buffer pixels; None: all of it) and a frame callback (``on_frame``); the next
        ``commit`` shows it."""
        rects = list(damage or [])
        buffer._busy.set()
        body = struct.pack("<III", self.id, buffer.id, len(rects))
        for x, y, w, h in rects:
            body += struct.pack("<iiII", x, y, w, h)
        c = self._connection
        c._stage(_wire.ATTACH_BUFFER, body)
        callback = c._take_surface_id()
        handler = self.on_frame
        if handler is not None:
            c._frame_callbacks[callback] = handler
        c._stage(_wire.FRAME_CALLBACK, struct.pack("<I", callback))
        if self.on_presented is not None:
            c.request_presentation_feedback(self.on_presented)

    def release_buffers(self) -> None:
        """Forgets the ring (the daemon unmaps it when no commit in flight copies from it)."""
        c = self._connection
        for b in self.buffers:
            try:
                c._round_trip(_wire.DESTROY_BUFFER, struct.pack("<I", b.id), _wire.BUFFER_DESTROYED)
            except Exception:
                pass
            c._buffer_releases.pop(b.id, None)
            b.memory.release()
        if c._journal is not None:
            with c._lock:
                c._journal.dropped_buffers(b.id for b in self.buffers)
        self.buffers = []


LAYER_CLASSES["surface"] = SurfaceLayer


