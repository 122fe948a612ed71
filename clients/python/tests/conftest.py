"""Shared test set-up: the package from this checkout, the repository's protocol files, and a
real laminad (headless, virtual clock, its own socket) for the tests that need one."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Dict, Iterator, Optional, Sequence

import pytest

PACKAGE_ROOT = Path(__file__).resolve().parent.parent
REPOSITORY_ROOT = PACKAGE_ROOT.parent.parent
# The package from this checkout, whether or not it is installed.
sys.path.insert(0, str(PACKAGE_ROOT))

PROTOCOL_JSON = REPOSITORY_ROOT / "protocol" / "lamina-protocol.json"
FIXTURES = REPOSITORY_ROOT / "protocol" / "fixtures"


@pytest.fixture(scope="session")
def protocol_json() -> dict:
    return json.loads(PROTOCOL_JSON.read_text())


@pytest.fixture(scope="session")
def fixture_index() -> dict:
    return json.loads((FIXTURES / "index.json").read_text())


def laminad_path() -> Path:
    """$LAMINAD, else .build/debug/laminad in the repository."""
    env = os.environ.get("LAMINAD")
    return Path(env) if env else REPOSITORY_ROOT / ".build" / "debug" / "laminad"


class Daemon:
    """A laminad process: headless, virtual clock, a socket in a fresh temporary folder."""

    def __init__(self, size: str = "320x240", socket: str = "", env: Optional[Dict[str, str]] = None,
                 args: Sequence[str] = ()) -> None:
        """`socket`: listen there (a laminad killed before left it: a restart on the same path).
        `env`: variables added to laminad's environment (LAMINA_SYSFS_ROOT). `args`: more
        command-line options (``["--audio-sink", "none"]``)."""
        self.directory = os.path.dirname(socket) if socket else tempfile.mkdtemp(prefix="lamina-py-")
        self.socket = socket or os.path.join(self.directory, "lamina.sock")
        if socket and os.path.exists(socket):
            os.unlink(socket)
        self.log_path = os.path.join(self.directory, f"laminad-{time.monotonic_ns()}.log")
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(laminad_path()), "--backend", "headless", "--size", size, "--clock", "virtual",
             "--socket", self.socket, "--log-level", "debug", *args],
            stdout=self._log, stderr=subprocess.STDOUT, env={**os.environ, **env} if env else None)
        # laminad renames the socket into place once it listens, so the file existing means
        # connections are accepted. This waits for start-up; it is not a timing assertion.
        deadline = time.monotonic() + 30
        while not os.path.exists(self.socket):
            if self.process.poll() is not None or time.monotonic() > deadline:
                self.stop(keep_log=True)
                raise RuntimeError(f"laminad did not start listening on {self.socket}:\n{self.log()}")
            time.sleep(0.02)

    def log(self) -> str:
        with open(self.log_path, "rb") as f:
            return f.read().decode("utf-8", "replace")

    def kill(self) -> None:
        """SIGKILL, as a crash: the socket file stays, the folder too (for a restart on it)."""
        self.process.kill()
        self.process.wait()
        self._log.close()

    def stop(self, keep_log: bool = False) -> None:
        """Ends laminad and removes its folder (`keep_log`: its log stays readable, for a report)."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self._log.close()
        if keep_log:
            text = self.log()
            self.log = lambda: text  # type: ignore[method-assign]
        shutil.rmtree(self.directory, ignore_errors=True)


@pytest.fixture
def daemon() -> Iterator[Daemon]:
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()} (swift build --product laminad, or set LAMINAD)")
    d = Daemon()
    try:
        yield d
        assert d.process.poll() is None, f"laminad exited during the test:\n{d.log()}"
    finally:
        d.stop()


@pytest.fixture
def first() -> Iterator[Daemon]:
    """A laminad the test may kill (reconnection, restarts): stopped at the end if still running."""
    if not laminad_path().exists():
        pytest.skip(f"laminad is not built at {laminad_path()} (swift build --product laminad, or set LAMINAD)")
    d = Daemon()
    yield d
    d.stop()


def near(p, q, tolerance: int = 2) -> bool:
    """Whether two RGBA pixels differ by at most `tolerance` in every channel."""
    return all(abs(a - b) <= tolerance for a, b in zip(p, q))
