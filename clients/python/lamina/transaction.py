"""Transactions (``CATransaction``): the settings of the open ``with connection.transaction()``
blocks, and the commit settings they make together."""

from __future__ import annotations

from typing import Any, Callable, Optional, Sequence

from . import protocol, wire
from .values import TimingFunction, TimingFunctionLike, timing_function as _timing_function

#: A setting the transaction leaves to the enclosing one (None is a value: "no timing function").
UNSET: Any = object()


class Transaction:
    """One open ``with connection.transaction(...)`` block (``CATransaction``). Its settings
    apply to the changes made inside it after they are set, and are inherited by nested
    transactions; assigning an attribute inside the block changes them from then on."""

    def __init__(self, duration: Optional[float], timing: Any, disable_actions: Optional[bool],
                 completion: Optional[Callable[[], Any]], group: int) -> None:
        self.duration = duration
        self._timing = timing
        self.disable_actions = disable_actions
        self.completion = completion
        self.group = group

    @property
    def timing_function(self) -> Optional[TimingFunction]:
        return None if self._timing is UNSET else self._timing

    @timing_function.setter
    def timing_function(self, value: TimingFunctionLike) -> None:
        self._timing = _timing_function(value)


def combined_settings(frames: Sequence[Transaction]) -> wire.Settings:
    """The settings a change made now is committed under: each open transaction's, outermost
    first, a nested one's overriding, with every completion group of them."""
    duration = protocol.DEFAULT_TRANSACTION_DURATION
    tf: Optional[TimingFunction] = None
    disable = False
    groups = []
    for f in frames:
        if f.duration is not None:
            duration = float(f.duration)
        if f._timing is not UNSET:
            tf = f._timing
        if f.disable_actions is not None:
            disable = bool(f.disable_actions)
        if f.group:
            groups.append(f.group)
    return wire.Settings(duration, tf, disable, tuple(groups))
