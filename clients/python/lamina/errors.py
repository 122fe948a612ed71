"""Errors: what laminad refused, and what went wrong with the connection."""

from __future__ import annotations

from typing import Optional

from . import protocol


class LaminaError(Exception):
    """An error laminad reported, or a problem with the connection to it.

    For a server error, `code` is the protocol's error number and `name` its name
    (``"invalid-property"``), `subject` says what it answers (``"commit"``, ``"request"`` or
    ``"none"``), `serial` is the commit serial or request id, `operation_index` the offending
    operation of a commit (-1 when none), and `message` laminad's sentence naming what was wrong.
    For a connection problem `code` is None.
    """

    def __init__(self, message: str, *, code: Optional[int] = None, subject: str = "none", serial: int = 0,
                 operation_index: int = -1) -> None:
        self.message = message
        self.code = code
        self.name: Optional[str] = protocol.ERROR_NAMES.get(code, f"error {code}") if code is not None else None
        self.subject = subject
        self.serial = serial
        self.operation_index = operation_index
        super().__init__(str(self))

    def __str__(self) -> str:
        if self.code is None:
            return self.message
        s = str(self.name)
        if self.subject in ("commit", "request"):
            s += f" in {self.subject} {self.serial}"
        if self.operation_index >= 0:
            s += f" at operation {self.operation_index}"
        return f"{s}: {self.message}"

    def __repr__(self) -> str:
        return f"LaminaError({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, LaminaError) and type(other) is type(self)
                and (self.message, self.code, self.subject, self.serial, self.operation_index)
                == (other.message, other.code, other.subject, other.serial, other.operation_index))

    __hash__ = Exception.__hash__


class ConnectionClosed(LaminaError):
    """laminad closed the connection (or could not be reached)."""


class ProtocolViolation(LaminaError):
    """Bytes from laminad that are not a Lamina message."""
