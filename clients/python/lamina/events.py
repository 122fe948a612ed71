"""The events a connection hands out (`Connection.poll_events`, `Connection.events`,
`Connection.on_event`): those of layers (`lamina.layer`), of videos (`lamina.video`), and the
connection's own below."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Union

from .layer import AnimationEvent, InputEvent, ScrollEvent
from .video import VideoEvent


@dataclass
class TransactionCompleted:
    """Every animation of a transaction with a completion callback has stopped."""

    group: int


@dataclass
class WatchEvent:
    """A line laminad streams to `Connection.watch` and `Connection.listen` connections."""

    data: Dict[str, Any]


Event = Union[AnimationEvent, TransactionCompleted, InputEvent, WatchEvent, VideoEvent, ScrollEvent]
