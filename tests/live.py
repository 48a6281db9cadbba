"""A live server, started as a user starts it: ``benchgraph serve`` in its own process, on a
free loopback port."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from support import REPO

# The live servers stop runaway queries after this long, so the time-out tests stay quick.
TIME_LIMIT = "1.5"


class Live:
    """A ``benchgraph serve`` process and the URL it printed."""

    def __init__(self, store: Path | str, *options: str, env: dict[str, str] | None = None) -> None:
        command = [sys.executable, "-m", "benchgraph.cli", "serve", "--store", str(store)]
        command += ["--port", "0", "--query-timeout", TIME_LIMIT, *options]
        # stderr goes to a file: a pipe nobody reads could fill up and stall the server.
        self.log = tempfile.TemporaryFile(mode="w+")  # noqa: SIM115 (closed by stop())
        self.process = subprocess.Popen(
            command,
            cwd=REPO,
            env={**os.environ, **(env or {})},
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if "serving at " not in line:
            self.process.kill()
            self.process.wait(10)
            self.log.seek(0)
            raise AssertionError(f"the server did not start: {line}{self.log.read()}")
        self.url = line.split("serving at ", 1)[1].split()[0]
        self.sparql = self.url + "sparql"
        self.store = store

    def stop(self, timeout: float = 30) -> int:
        """SIGTERM the server; return its exit code."""
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        if self.process.stdout is not None:
            self.process.stdout.close()
        self.log.close()
        return self.process.returncode


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
