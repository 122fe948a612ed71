"""The events a connection hands out (`Connection.poll_events`, `Connection.events`,
`Connection.on_event`): those of layers (`lamina.layer`), of videos (`lamina.video`), and the
connection's own below."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Tuple, Union

from .apps import AppSurfaceEvent
from .layer import AnimationEvent, InputEvent, ScrollEvent
from .video import VideoEvent
from .display_link import FrameEvent
from .wire import DisplayOutput


@dataclass
class TransactionCompleted:
    """Every animation of a transaction with a completion callback has stopped."""

    group: int


@dataclass
class WatchEvent:
    """A line laminad streams to `Connection.watch` and `Connection.listen` connections."""

    data: Dict[str, Any]


@dataclass
class DisplayChangedEvent:
    """laminad's outputs changed (a mode, a display plugged in or out; protocol 1.7): `size` is
    the desktop's new size in points (``Connection.display_size`` has it already, and the root
    layer's bounds), `outputs` each output's name, rectangle, scale, transform and refresh."""

    size: Tuple[int, int]
    outputs: List[DisplayOutput]


Event = Union[AnimationEvent, TransactionCompleted, InputEvent, WatchEvent, VideoEvent, ScrollEvent, DisplayChangedEvent, FrameEvent,
              AppSurfaceEvent]
