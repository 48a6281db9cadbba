"""Read pages in a worker process that can be killed: a hard time limit for the fuzz tests.

Neither Python nor the parsers can cancel a regular expression that runs for minutes, so each
page is read (``read_page``, then ``map_page`` when it parses) in a long-lived child process.
The test side sends the path of a file and its origin as one JSON line; the worker answers one
JSON line. The budget is CPU time, which the worker measures itself, so a machine busy with
other work does not make a page late; a page whose answer does not come within a wall-clock
allowance several times the budget is killed, reported as ``timeout``, and the next page gets a
fresh worker.

Run as a script, this file is the worker; imported, it gives the test side, ``ParseWorkers``.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
import time
import traceback
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NOW = "2026-01-01T00:00:00+00:00"
GRACE = 1.0  # seconds beyond the allowance for the pipe and the file read, before the kill
# The wall-clock allowance is this many times the CPU budget: a parser that runs away (a
# regular expression backtracking for minutes) is still stopped within seconds, while a page
# that only waited for a busy core is not.
WALL_PER_CPU = 5.0


@dataclass(frozen=True)
class Verdict:
    """What reading one page did. ``outcome``: page | refused | crashed | timeout | died;
    ``mapped``: ok | refused | crashed, when the page parsed."""

    origin: str
    outcome: str
    error: str = ""  # exception type
    message: str = ""
    where: str = ""  # innermost project frame of a crash, "ingest/sota2.py:317 in _parse_scope"
    results: int = 0
    mapped: str = ""
    seconds: float = 0.0

    def problems(self, budget: float) -> list[str]:
        """What breaks the contract: only a Page or a PageError naming the origin, in time."""
        found = []
        if self.outcome not in ("page", "refused"):
            found.append(f"{self.outcome} {self.error} at {self.where}: {self.message[:200]}")
        if self.outcome == "refused" and self.origin not in self.message:
            found.append(f"PageError does not name the origin: {self.message[:200]}")
        if self.mapped == "crashed":
            found.append(f"map_page raised {self.error} at {self.where}: {self.message[:200]}")
        if self.mapped == "refused" and self.origin not in self.message:
            found.append(f"map_page's PageError does not name the origin: {self.message[:200]}")
        if self.seconds > budget:
            found.append(f"took {self.seconds:.2f} s, budget {budget:.2f} s")
        return found


class ParseWorker:
    """One worker process. ``send`` a page, wait on ``fileno``, then ``receive`` its Verdict;
    ``expire`` kills a worker that overran and reports the page as ``timeout``."""

    def __init__(self, scratch: Path) -> None:
        self.scratch = scratch
        self.scratch.mkdir(parents=True, exist_ok=True)
        self.restarts = 0
        self.deadline = 0.0
        self._proc: subprocess.Popen[str] | None = None
        self._fresh = True  # a fresh worker's first answer also waits for its imports
        self._origin = ""
        self._started = 0.0

    def _start(self) -> subprocess.Popen[str]:
        if self._proc is None or self._proc.poll() is not None:
            self._proc = subprocess.Popen(
                [sys.executable, __file__],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                cwd=REPO,
            )
            self._fresh = True
        return self._proc

    def _kill(self) -> None:
        if self._proc is not None:
            self._proc.kill()
            self._proc.wait()
            for stream in (self._proc.stdin, self._proc.stdout):
                if stream is not None:
                    stream.close()
            self._proc = None
            self.restarts += 1

    def close(self) -> None:
        if self._proc is not None and self._proc.stdin is not None:
            self._proc.stdin.close()
            try:
                self._proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            if self._proc.stdout is not None:
                self._proc.stdout.close()
            self._proc = None

    def send(self, data: bytes, origin: str, budget: float) -> None:
        path = self.scratch / "page.bin"
        path.write_bytes(data)
        proc = self._start()
        assert proc.stdin is not None
        proc.stdin.write(json.dumps({"path": str(path), "origin": origin}) + "\n")
        proc.stdin.flush()
        self._origin, self._started = origin, time.monotonic()
        allowance = budget * WALL_PER_CPU + GRACE + (10.0 if self._fresh else 0.0)
        self.deadline = self._started + allowance

    def fileno(self) -> int:
        assert self._proc is not None and self._proc.stdout is not None
        return self._proc.stdout.fileno()

    def receive(self) -> Verdict:
        assert self._proc is not None and self._proc.stdout is not None
        line = self._proc.stdout.readline()
        if not line:
            self._kill()
            return Verdict(self._origin, "died", message="the worker process exited")
        self._fresh = False
        return Verdict(**json.loads(line))

    def expire(self) -> Verdict:
        self._kill()
        return Verdict(self._origin, "timeout", seconds=time.monotonic() - self._started)


class ParseWorkers:
    """A few workers reading pages side by side; ``check_all`` yields one Verdict per page
    (in the order they finish), ``check`` reads one page."""

    def __init__(self, scratch: Path, count: int = 2) -> None:
        self.workers = [ParseWorker(scratch / f"worker-{i}") for i in range(count)]

    @property
    def restarts(self) -> int:
        return sum(w.restarts for w in self.workers)

    def close(self) -> None:
        for w in self.workers:
            w.close()

    def check(self, data: bytes, origin: str, budget: float) -> Verdict:
        return next(self.check_all([(data, origin, budget)]))

    def check_all(self, pages: Iterable[tuple[bytes, str, float]]) -> Iterator[Verdict]:
        todo = iter(pages)
        idle, busy = list(self.workers), []
        while True:
            while idle:
                job = next(todo, None)
                if job is None:
                    break
                worker = idle.pop()
                worker.send(*job)
                busy.append(worker)
            if not busy:
                return
            wait = max(0.0, min(w.deadline for w in busy) - time.monotonic())
            ready, _, _ = select.select(busy, [], [], wait)
            now = time.monotonic()
            for worker in list(busy):
                if worker in ready:
                    verdict = worker.receive()
                elif now >= worker.deadline:
                    verdict = worker.expire()
                else:
                    continue
                busy.remove(worker)
                idle.append(worker)
                yield verdict


def _where(error: BaseException) -> str:
    frames = [
        f
        for f in traceback.extract_tb(error.__traceback__)
        if f.filename.startswith(str(REPO)) and "/tests/" not in f.filename
    ]
    if not frames:
        return ""
    f = frames[-1]
    return f"{os.path.relpath(f.filename, REPO)}:{f.lineno} in {f.name}"


def _read(path: str, origin: str) -> dict[str, object]:
    from ingest.mapper import map_page
    from ingest.reading import read_page
    from ingest.records import PageError

    data = Path(path).read_bytes()
    started = time.process_time()
    answer: dict[str, object] = {"origin": origin}
    try:
        page = read_page(data, origin)
    except PageError as error:
        answer.update(outcome="refused", error="PageError", message=str(error))
    except Exception as error:
        answer.update(
            outcome="crashed", error=type(error).__name__, message=str(error), where=_where(error)
        )
    else:
        answer.update(outcome="page", results=len(page.results))
        try:
            map_page(page, NOW)
            answer.update(mapped="ok")
        except PageError as error:
            answer.update(mapped="refused", error="PageError", message=str(error))
        except Exception as error:
            answer.update(
                mapped="crashed",
                error=type(error).__name__,
                message=str(error),
                where=_where(error),
            )
    answer["seconds"] = time.process_time() - started  # CPU seconds
    return answer


def main() -> None:

    for line in sys.stdin:
        job = json.loads(line)
        sys.stdout.write(json.dumps(_read(job["path"], job["origin"])) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    main()
