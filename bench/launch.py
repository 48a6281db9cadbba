"""Server processes for the benchmarks and the tests: a free loopback port, a process stopped by
its own pid, ``benchgraph serve`` started as a user starts it (``--port 0``, its URL read from
what it prints), and the processes a server has started (its query workers)."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SERVING = re.compile(r"serving at (\S+)")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on (at the time of asking)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class Server:
    """A server process, stopped (SIGTERM, by its own pid) by :meth:`stop`; its standard error
    goes to the file ``log`` when given (a pipe nobody reads could fill up and stall it)."""

    def __init__(
        self, command: list[str], log: Path | None = None, env: dict[str, str] | None = None
    ) -> None:
        self.log = log
        # The child keeps its own copy of the log's file descriptor.
        opened = log.open("w", encoding="utf-8") if log else nullcontext(subprocess.DEVNULL)
        with opened as errors:
            self.process = subprocess.Popen(
                command, stdout=subprocess.PIPE, stderr=errors, text=True, cwd=REPO, env=env
            )

    def errors(self) -> str:
        """What the process has written to its standard error so far ('' without a log)."""
        return self.log.read_text(encoding="utf-8", errors="replace") if self.log else ""

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM the process (SIGKILL after ``timeout`` seconds); return its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        return self.process.returncode


class Served(Server):
    """``benchgraph serve`` on ``store`` with ``options``, in its own process on a free loopback
    port, and the URL it printed. Its standard error goes to ``log``, or to a temporary file
    removed when it stops. Raises RuntimeError, with what it wrote, when it does not start."""

    def __init__(
        self,
        store: Path | str,
        *options: str,
        log: Path | None = None,
        env: dict[str, str] | None = None,
    ) -> None:
        # Without a log of its own, a temporary file that stop() removes.
        self._scratch = None if log else tempfile.NamedTemporaryFile(suffix=".log")  # noqa: SIM115
        command = [sys.executable, "-m", "benchgraph.cli", "serve", "--store", str(store)]
        command += ["--port", "0", *options]
        super().__init__(command, log or Path(self._scratch.name), env)  # type: ignore[union-attr]
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = SERVING.search(line)
        if not found:
            errors = self.errors()
            self.stop()
            raise RuntimeError(f"benchgraph serve did not start: {line}{errors}")
        self.url = found.group(1)

    def stop(self, timeout: float = 30) -> int:
        code = super().stop(timeout)
        if self._scratch is not None:
            self._scratch.close()
        return code


def _stat(pid: int | str) -> list[str]:
    """The fields of ``/proc/PID/stat`` after the command name: state, parent pid, ...
    Raises OSError once the process is gone."""
    return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (a server's query workers)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int(_stat(entry.name)[1]) == pid:
                    found.append(int(entry.name))
            except OSError:  # ended meanwhile
                continue
    return found


def running(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended and waiting to be reaped, does not)."""
    try:
        return _stat(pid)[0] != "Z"
    except OSError:
        return False
