"""Exceptions. ``RequestFailed`` carries every field of the daemon's error event."""
from __future__ import annotations

import enum
from typing import Optional

from . import _wire

__all__ = ["ErrorCode", "LaminaError", "ConnectionFailed", "Disconnected", "ProtocolViolation", "RequestFailed"]


class ErrorCode(enum.IntEnum):
    """The protocol's error codes (docs/protocol.md, "Errors")."""
    BAD_HANDSHAKE = 1
    UNSUPPORTED_VERSION = 2
    MESSAGE_TOO_LARGE = 3
    MALFORMED = 4
    UNKNOWN_OPCODE = 5
    UNKNOWN_LAYER = 6
    DUPLICATE_LAYER = 7
    INVALID_PROPERTY = 8
    INVALID_VALUE = 9
    INVALID_HIERARCHY = 10
    LIMIT_EXCEEDED = 11
    CLOCK_NOT_MANUAL = 12
    CAPTURE_FAILED = 13
    TRANSACTION_FAILED = 14
    INTERNAL_ERROR = 15
    INVALID_ANIMATION = 16
    UNKNOWN_IMAGE = 17
    INVALID_IMAGE = 18
    DUPLICATE_IMAGE = 19
    UNKNOWN_BUFFER = 20
    INVALID_BUFFER = 21

    @property
    def protocol_name(self) -> str:
        """The protocol's name for the code (``invalidValue``)."""
        head, *rest = self.name.lower().split("_")
        return head + "".join(w.capitalize() for w in rest)


class LaminaError(Exception):
    """Every error this library raises."""


class ConnectionFailed(LaminaError):
    """The daemon could not be reached (or refused the connection: ``maxClients``)."""


class Disconnected(LaminaError):
    """The daemon closed the connection (or ``close()`` was called)."""

    def __init__(self, message: str = "the daemon closed the connection") -> None:
        super().__init__(message)


class Reconnecting(LaminaError):
    """The daemon went away and the connection is reconnecting (``lamina.Reconnect``): nothing
    was sent. A commit's staged changes stay staged: commit again after ``Reconnected``."""

    def __init__(self, message: str = "the daemon went away; reconnecting (nothing was sent)") -> None:
        super().__init__(message)


class ProtocolViolation(LaminaError):
    """The daemon sent something this library cannot read as the reply expected."""


class RequestFailed(LaminaError):
    """The daemon answered a request with an error event.

    Its fields are the event's: ``request_id`` and ``opcode`` name the request answered;
    ``failed_request``, ``failed_opcode``, ``layer`` and ``key`` the request that failed (for a
    rejected commit, the staged request that failed first); ``code`` is an ``ErrorCode`` (an
    ``int`` for a code this version does not know); ``message`` is English for people.
    """

    def __init__(self, request_id: int, opcode: int, code: int, failed_request: int, failed_opcode: int,
                 layer: int, key: str, message: str) -> None:
        try:
            self.code: "ErrorCode | int" = ErrorCode(code)
        except ValueError:
            self.code = code
        self.request_id = request_id
        self.opcode = opcode
        self.failed_request = failed_request
        self.failed_opcode = failed_opcode
        self.layer = layer
        self.key = key
        self.message = message
        name = self.code.protocol_name if isinstance(self.code, ErrorCode) else "code %d" % code
        super().__init__("%s failed (%s): %s" % (_wire.REQUEST_NAMES.get(opcode, "0x%02x" % opcode), name, message))

    @property
    def request_name(self) -> str:
        """The protocol's name of the request answered (``commit``)."""
        return _wire.REQUEST_NAMES.get(self.opcode, "0x%02x" % self.opcode)

    @property
    def failed_request_name(self) -> str:
        """The protocol's name of the request that failed (``setProperty``)."""
        return _wire.REQUEST_NAMES.get(self.failed_opcode, "0x%02x" % self.failed_opcode)

    @classmethod
    def from_body(cls, request_id: int, body: bytes) -> "RequestFailed":
        return cls(request_id=request_id, **_wire.error_fields(body))

    def __reduce__(self):  # type: ignore[no-untyped-def]
        code = int(self.code)
        return (RequestFailed, (self.request_id, self.opcode, code, self.failed_request, self.failed_opcode,
                                self.layer, self.key, self.message))


def error_for_refusal(err: RequestFailed) -> Optional[ConnectionFailed]:
    if err.opcode == 0:
        return ConnectionFailed("the daemon refused the connection: %s" % err.message)
    return None
