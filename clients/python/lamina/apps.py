"""App windows as layer contents (protocol 1.7, docs/clients.md "App windows as layer contents").

A privileged client that manages apps (`Connection.manage_apps`) hears of the Wayland app
windows laminad hosts — `AppSurfaceEvent`s: appeared, changed (title, app id, size), gone (with
why) — and shows one in a layer with ``layer.contents = surface``, as Core Animation shows an
``IOSurface``: with everything a layer does (transforms, corners, masks, opacity, animations).
laminad sizes the window to the layer's bounds (``app_sizing`` "bounds") or leaves its size to
the app ("app"), places it by ``contents_gravity``, and sends input landing on the layer to the
app in window points. Once the window is gone the layer keeps its last frame
(``app_exit_contents`` "keep") or shows nothing ("clear").
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class AppSurface:
    """An app window laminad hosts, as contents: ``layer.contents = surface`` shows it.

    `id` is laminad's number for it (the value of the layer's ``app_surface``); `app_id` and
    `title` the app's ``xdg_toplevel`` app id and title; `pid` its process (0 when unknown);
    `width` and `height` the window's size in points."""

    id: int
    app_id: str = ""
    title: str = ""
    pid: int = 0
    width: int = 0
    height: int = 0

    def __post_init__(self) -> None:
        if not isinstance(self.id, int) or isinstance(self.id, bool) or not 0 < self.id <= 0xFFFFFFFF:
            raise ValueError(f"an app surface's id is a window number from 1 to 4294967295, got {self.id!r}")

    @classmethod
    def with_id(cls, id: int) -> "AppSurface":
        """The window numbered `id` (from an `AppSurfaceEvent`), when only its number is known."""
        return cls(id)

    @property
    def size(self) -> tuple:
        return (self.width, self.height)


@dataclass
class AppSurfaceEvent:
    """An app window appeared, changed or went (`kind`: "appeared", "changed", "gone").

    `surface` is the window as now (for "gone", as it was); `reason` says why it went:
    "closed" (the app closed it and lives on), "exited" (the app's connection ended with the
    window up: it exited or crashed), "dropped" (laminad dropped the app: a protocol error or a
    limit); "closed" for the other kinds. ``Connection.app_surfaces`` is up to date when the
    event is handed out."""

    kind: str
    surface: AppSurface
    reason: str = "closed"

    @property
    def id(self) -> int:
        return self.surface.id

