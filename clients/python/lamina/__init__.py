"""Lamina for Python: layers, transactions and animations drawn by laminad, in the manner of
Core Animation, over laminad's Unix socket (docs/protocol.md). Pure standard library.

::

    import lamina
    conn = lamina.connect()
    box = lamina.Layer(bounds=(0, 0, 100, 50), position=(200, 300), background_color="#FF8800")
    conn.root.add_sublayer(box)
    conn.sync()                      # laminad applied it, or this raises its LaminaError
    with conn.transaction(duration=1):
        box.opacity = 0              # laminad fades it over 1 s
"""

from . import geometry, gestures, protocol, transform, wire
from .animation import (FOREVER, Animation, AnimationGroup, BasicAnimation, KeyframeAnimation, SpringAnimation,
                        Transition)
from .connection import (AnimationEvent, Connection, ConnectionEvent, Event, InputEvent, Presentation, ReconnectPolicy,
                         Screenshot, Transaction, TransactionCompleted, WatchEvent, connect, socket_candidates)
from .errors import ConnectionClosed, LaminaError, ProtocolViolation
from .events import DisplayChangedEvent
from .apps import AppSurface, AppSurfaceEvent
from .display_link import DisplayLink, FrameEvent, FrameRateRange
from .image import Image, SessionImage
from .emitter import EmitterCell
from .filters import Filter
from .drawing import Drawing
from .text_runs import TextRun
from .gestures import (GestureRecognizer, LongPressRecognizer, PanRecognizer, PinchRecognizer, RotationRecognizer,
                       SwipeRecognizer, TapRecognizer)
from .layout import AutoresizingMask, Constraint
from .layer import (INHERIT, EmitterLayer, GradientLayer, Layer, ReplicatorLayer, ScrollEvent, ScrollLayer,
                    ShapeLayer, TextLayer, TiledLayer, TilesWantedEvent,
                    TransformLayer)
from .png import decode_png, encode_png, write_png
from .values import Path, TimingFunction, TypedValue
from .video import Video, VideoEvent

__version__ = "1.7.0"

__all__ = [
    "geometry", "gestures", "protocol", "transform", "wire", "FOREVER", "Animation", "AnimationGroup", "BasicAnimation", "KeyframeAnimation",
    "SpringAnimation", "Transition", "AnimationEvent", "Connection", "ConnectionEvent", "ReconnectPolicy", "Event", "InputEvent", "Presentation",
    "Screenshot", "Transaction", "TransactionCompleted", "WatchEvent", "connect", "socket_candidates",
    "ConnectionClosed", "LaminaError", "ProtocolViolation", "Image", "SessionImage", "INHERIT", "GradientLayer", "Layer",
    "ReplicatorLayer", "ScrollEvent", "ScrollLayer", "ShapeLayer", "TextLayer", "TransformLayer", "EmitterLayer",
    "EmitterCell", "decode_png", "encode_png", "write_png", "Path",
    "TimingFunction", "TypedValue", "Video", "VideoEvent", "AutoresizingMask", "Constraint", "Filter", "Drawing", "TextRun",
    "DisplayChangedEvent", "GestureRecognizer", "TapRecognizer", "LongPressRecognizer", "PanRecognizer",
    "PinchRecognizer", "RotationRecognizer", "SwipeRecognizer",
    "DisplayLink", "FrameEvent", "FrameRateRange",
    "TiledLayer", "TilesWantedEvent", "AppSurface", "AppSurfaceEvent",
]
