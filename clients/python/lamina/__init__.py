"""Lamina's Python client: layers, transactions and animations over laminad's socket.

    import lamina

    with lamina.connect() as conn:
        layer = conn.make_layer()
        layer.bounds = (0, 0, 100, 100)
        layer.position = (100, 100)
        layer.background_color = "#ff3b30"
        conn.root.add_sublayer(layer)
        conn.commit()

docs/python.md is the guide and the reference; docs/protocol.md the protocol.
"""
from ._properties import ENUMS, LAYER_KINDS, PROPERTIES, PropertyInfo
from .animation import (Animation, AnimationGroup, BasicAnimation, ExpressionAnimation, Keyframe, KeyframeAnimation,
                        KeyframesAnimation, Phase, PhaseAnimation, SpringAnimation, TimingFunction)
from ._journal import Reconnect
from .connection import Capture, Connection, EventStream, HitTestResult, Image, Transaction, connect, default_socket_path
from .errors import ConnectionFailed, Disconnected, ErrorCode, LaminaError, ProtocolViolation, Reconnecting, RequestFailed
from .events import (HANDLED, IGNORED, AnimationStarted, AnimationStopped, ConnectionLost, DisplayChanged, ErrorEvent,
                     Event, KeyEvent, PointerEvent, Reconnected, ReduceMotionChanged, TransactionCompleted)
from .layers import (EmitterLayer, GradientLayer, Layer, Presentation, PropertyError, ReplicatorLayer, ShapeLayer,
                     TextLayer, TiledLayer)
from .lottie import LottieClock, LottieError, LottiePlayer
from .surfaces import BGRA8, RGBA8, PresentationFeedback, SurfaceBuffer, SurfaceLayer, TileRequest
from .values import (Color, CornerMask, DecomposedTransform, Display, EmitterCell, Filter, Path, PathTemplate, Point, Rect, Size,
                     StyledText, TextRun, Transform3D)

__version__ = "1.0.0"
#: The protocol version this library speaks.
PROTOCOL_VERSION = (1, 0)

__all__ = [
    "connect", "default_socket_path", "Reconnect", "Connection", "Transaction", "EventStream", "HitTestResult", "Capture", "Image",
    "Layer", "ShapeLayer", "GradientLayer", "TextLayer", "ReplicatorLayer", "EmitterLayer", "TiledLayer", "SurfaceLayer", "SurfaceBuffer", "PresentationFeedback", "TileRequest", "BGRA8",
    "RGBA8", "Presentation", "PropertyError",
    "Animation", "BasicAnimation", "KeyframeAnimation", "SpringAnimation", "AnimationGroup", "KeyframesAnimation",
    "Keyframe", "PhaseAnimation", "Phase", "ExpressionAnimation", "TimingFunction",
    "LaminaError", "ConnectionFailed", "Disconnected", "Reconnecting", "ProtocolViolation", "RequestFailed", "ErrorCode",
    "Event", "AnimationStarted", "AnimationStopped", "TransactionCompleted", "DisplayChanged", "ReduceMotionChanged",
    "ErrorEvent", "PointerEvent", "KeyEvent", "ConnectionLost", "Reconnected", "HANDLED", "IGNORED",
    "Point", "Size", "Rect", "Color", "Transform3D", "DecomposedTransform", "Path", "PathTemplate", "StyledText", "TextRun", "CornerMask", "Filter", "EmitterCell",
    "LottiePlayer", "LottieClock", "LottieError",
    "Display", "PROPERTIES", "PropertyInfo", "ENUMS", "LAYER_KINDS", "PROTOCOL_VERSION",
]
