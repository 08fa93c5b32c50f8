"""Events the daemon sends that are not replies: delivered to callbacks and event iterators."""
from __future__ import annotations

from typing import NamedTuple, Union

from .errors import RequestFailed
from .values import Display

__all__ = [
    "AnimationStarted", "AnimationStopped", "TransactionCompleted", "DisplayChanged", "ReduceMotionChanged",
    "ErrorEvent", "PointerEvent", "KeyEvent", "ConnectionLost", "Reconnected", "Disconnected", "Event",
    "SHIFT", "CONTROL", "ALT", "SUPER", "HANDLED", "IGNORED",
]

#: Modifier bits of ``PointerEvent.modifiers`` and ``KeyEvent.modifiers``.
SHIFT, CONTROL, ALT, SUPER = 1, 2, 4, 8

#: What a layer's pointer handler returns (``Layer.on_pointer``): ``HANDLED`` (True) stops the
#: event there; ``IGNORED`` (False), None or any other false value lets it bubble on.
HANDLED, IGNORED = True, False


class AnimationStarted(NamedTuple):
    """An explicit animation of this client started (the frame that applied its commit)."""
    layer: int
    key: str


class AnimationStopped(NamedTuple):
    """It stopped: ``finished`` when its active interval ended, False when removed or replaced."""
    layer: int
    key: str
    finished: bool


class TransactionCompleted(NamedTuple):
    """A transaction's completion (the id its ``completion`` was given)."""
    id: int


class DisplayChanged(NamedTuple):
    display: Display


class ReduceMotionChanged(NamedTuple):
    on: bool


class ErrorEvent(NamedTuple):
    """An error answering a request no one waited for (a staged request that failed when it
    arrived; its transaction's commit then raises ``transactionFailed``)."""
    error: RequestFailed


class PointerEvent(NamedTuple):
    """A pointer event from a viewer's window for one of this client's layers.

    ``kind``: ``down``, ``up``, ``moved`` or ``scroll``; ``x``, ``y``: the point in the layer's
    bounds coordinates; ``canvas_x``, ``canvas_y``: in canvas points; ``button``: 0 primary, 1
    secondary, 2 middle; ``scroll_x``, ``scroll_y``: points (scroll only); ``time``: compositor time;
    ``target``: the layer the event was routed to (the hit layer, DOM's ``event.target``).

    A layer's handler (``Layer.on_pointer``) gets the event as it bubbles: ``layer`` is the
    handler's own layer and ``x``, ``y`` the point in its coordinates; ``target`` stays the hit
    layer. ``Connection.on_pointer`` and event streams get it as routed (``layer == target``).
    """
    kind: str
    layer: int
    x: float
    y: float
    canvas_x: float
    canvas_y: float
    button: int
    modifiers: int
    scroll_x: float
    scroll_y: float
    time: float
    target: int = 0


class KeyEvent(NamedTuple):
    """A key event (``kind``: ``down`` or ``up``); ``key`` is a GLFW key code (letters upper
    case ASCII, escape 256, enter 257, …); ``layer`` 0 is the client's container."""
    kind: str
    layer: int
    key: int
    modifiers: int
    repeat: bool
    time: float


class ConnectionLost(NamedTuple):
    """The daemon went away; the connection is reconnecting (``lamina.Reconnect``). Requests
    raise ``Reconnecting`` until ``Reconnected``."""


class Reconnected(NamedTuple):
    """A daemon on the same socket welcomed the client again and accepted the replay of its
    committed model; ``client_id`` is its id in that daemon."""
    client_id: int


class Disconnected(NamedTuple):
    """The connection ended (the last event): the daemon closed it (without reconnection, or
    after reconnecting gave up), or ``close()`` was called."""


Event = Union[AnimationStarted, AnimationStopped, TransactionCompleted, DisplayChanged, ReduceMotionChanged,
              ErrorEvent, PointerEvent, KeyEvent, ConnectionLost, Reconnected, Disconnected]
