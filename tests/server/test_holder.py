"""Who holds a store: the record its lock's holder leaves beside it, and the messages a command
refused the lock is given (real processes: ``benchgraph serve`` on loopback, ``benchgraph
ingest``, and a program outside benchgraph that holds RocksDB's lock)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support import PATIENCE, REPO, await_holding, run_cli

from benchgraph.store import holder
from server.generation import fingerprint

ROCKSDB_WORDS = ("LOCK", "Resource temporarily unavailable", "IO error")
COMMANDS = {
    "ingest": ("ingest", str(REPO / "examples")),
    "query": ("query", "ASK { ?s ?p ?o }"),
    "export": ("export",),
    "validate": ("validate", "--no-save"),
}


def record(store: Path) -> dict[str, Any]:
    return json.loads((store / holder.FILE).read_text(encoding="utf-8"))


def assert_plain(stderr: str) -> None:
    """The message is benchgraph's own: no RocksDB words, no traceback."""
    assert "Traceback" not in stderr
    for words in ROCKSDB_WORDS:
        assert words not in stderr, stderr


def assert_writers_refused(store: Path, message: str) -> None:
    """An ingest and a serve of ``store`` are each refused, exit 2, with ``message``, plainly."""
    for args in (COMMANDS["ingest"], ("serve", "--port", "0")):
        done = run_cli(*args, store=store)
        assert done.returncode == 2, done.stderr
        assert message in done.stderr, done.stderr
        assert_plain(done.stderr)


def ended_process_pid() -> int:
    """The pid of a process that has ended."""
    process = subprocess.Popen([sys.executable, "-c", "pass"])
    process.wait()
    return process.pid


def write_stale(store: Path, command: str = "ingest") -> int:
    """Leave a record naming an ended process in ``store``; return its pid."""
    pid = ended_process_pid()
    since = "2026-01-02T03:04:05+00:00"
    holder.write(store, holder.Holder(pid, command, since))
    return pid


@contextlib.contextmanager
def held(program: str, store: Path) -> Iterator[tuple[subprocess.Popen[str], str]]:
    """A Python process running ``program`` on ``store`` (its ``sys.argv[1]``), which holds
    the store until its standard input closes, and the first line it printed once it held it."""
    process = subprocess.Popen(
        [sys.executable, "-c", program, str(store)],
        cwd=REPO,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        yield process, process.stdout.readline()
    finally:
        if not process.stdin.closed:
            process.stdin.close()
        process.wait(PATIENCE)
        process.stdout.close()


def test_a_server_that_cannot_be_gone_through_is_named_with_what_to_do(
    scratch_store: Path, http: Any
) -> None:
    """Commands go through the server that holds their store; one that listens elsewhere than
    on loopback (or whose secret they cannot read) cannot be asked, and they say so."""
    live = http.Live(scratch_store)
    try:
        pid = live.process.pid
        served = holder.read(scratch_store)
        assert served is not None and served.secret
        elsewhere = "http://192.0.2.7:8080/"  # as a server bound to a public address says
        holder.write(scratch_store, holder.Holder(pid, "serve", served.since, elsewhere))
        for command in sorted(COMMANDS):
            done = run_cli(*COMMANDS[command], store=scratch_store)
            assert done.returncode == 2, (command, done.stderr)
            assert f"held by `benchgraph serve` (pid {pid}, serving {elsewhere})" in done.stderr
            assert "does not listen on loopback" in done.stderr and f"kill {pid}" in done.stderr
            assert f"read it through {elsewhere}sparql" in done.stderr
            assert_plain(done.stderr)
    finally:
        assert live.stop() == 0


def test_the_record_of_a_server_is_private_names_its_url_and_goes_when_it_stops(
    scratch_store: Path, http: Any
) -> None:
    live = http.Live(scratch_store)
    try:
        path = scratch_store / holder.FILE
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
        found = record(scratch_store)
        assert found["pid"] == live.process.pid and found["command"] == "serve"
        assert found["url"] == live.url and found["since"]
    finally:
        assert live.stop() == 0
    assert not path.exists()
    assert not list(scratch_store.glob(f".{holder.FILE}*"))


def test_the_generation_ignores_the_holder_record(scratch_store: Path, http: Any) -> None:
    before = fingerprint(scratch_store)
    write_stale(scratch_store)
    assert fingerprint(scratch_store) == before
    live = http.Live(scratch_store)
    try:
        # The server took its generation before its record held the URL; the record now does.
        assert record(scratch_store)["url"] == live.url
        reply = http.fetch(f"{live.url}dump.nt")
        assert reply.status == 200
        [served] = (scratch_store / holder.GENERATIONS).iterdir()  # the one snapshot read
        assert not (served / holder.FILE).exists()
        assert reply.headers["etag"].strip('"').startswith(fingerprint(served).tag + "-")
    finally:
        assert live.stop() == 0
    assert not (scratch_store / holder.GENERATIONS).exists()


def test_a_stale_record_is_ignored_and_replaced(scratch_store: Path, http: Any) -> None:
    stale = write_stale(scratch_store)
    done = run_cli("query", "ASK { ?s ?p ?o }", store=scratch_store)
    assert done.returncode == 0, done.stderr
    assert record(scratch_store)["pid"] == stale  # a command that only reads writes nothing
    done = run_cli(*COMMANDS["ingest"], store=scratch_store)
    assert done.returncode == 0, done.stderr
    assert not (scratch_store / holder.FILE).exists()  # replaced, then removed at the end
    dead = write_stale(scratch_store, command="serve")
    live = http.Live(scratch_store)
    try:
        found = record(scratch_store)
        assert found["pid"] == live.process.pid != dead and found["url"] == live.url
    finally:
        assert live.stop() == 0


@pytest.fixture
def ingesting(tmp_path: Path) -> Iterator[tuple[subprocess.Popen[str], Path]]:
    """``benchgraph ingest`` of 200 generated pages into a new store, paused (SIGSTOP) once it
    has recorded that it holds the store, so that it holds it for as long as the test needs."""
    corpus = tmp_path / "corpus"
    made = subprocess.run(
        [sys.executable, "-m", "bench.generate", "--pages", "200", "--out", str(corpus)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert made.returncode == 0, made.stderr
    store = tmp_path / "store"
    ingest = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", str(corpus / "pages")],
        cwd=REPO,
        env={**os.environ, "BENCHGRAPH_STORE": str(store)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        await_holding(ingest, store)  # (or the ingest ended, which fails below)
        ingest.send_signal(signal.SIGSTOP)
        assert ingest.poll() is None, "the ingest ended before it could be paused"
        yield ingest, store
    finally:
        if ingest.poll() is None:
            ingest.send_signal(signal.SIGCONT)
            ingest.kill()
        ingest.wait(PATIENCE)


@pytest.mark.parametrize("command", ["serve", "query"])
def test_a_store_being_ingested_says_wait_for_the_ingest(
    ingesting: tuple[subprocess.Popen[str], Path], command: str
) -> None:
    ingest, store = ingesting
    args = ("serve", "--port", "0") if command == "serve" else COMMANDS["query"]
    done = run_cli(*args, store=store)
    assert done.returncode == 2, done.stderr
    pid = ingest.pid
    assert f"being written by `benchgraph ingest` (pid {pid}, since " in done.stderr
    assert f"wait for pid {pid} to finish" in done.stderr
    assert_plain(done.stderr)
    found = record(store)
    assert stat.S_IMODE((store / holder.FILE).stat().st_mode) == 0o600
    assert found["pid"] == pid and found["command"] == "ingest" and found["url"] is None


def test_an_ingest_killed_leaves_a_stale_record_the_next_command_ignores(
    ingesting: tuple[subprocess.Popen[str], Path],
) -> None:
    ingest, store = ingesting
    ingest.kill()
    ingest.wait(PATIENCE)
    assert record(store)["pid"] == ingest.pid  # no clean close: the record stays
    # A command that writes (one that only reads refuses a store whose first ingest stopped
    # half-way, which this one may have begun).
    done = run_cli(*COMMANDS["ingest"], store=store)
    assert done.returncode == 0, done.stderr
    assert "is locked" not in done.stderr
    assert not (store / holder.FILE).exists()


def test_a_lock_no_benchgraph_command_claims_is_reported_as_unknown(
    scratch_store: Path,
) -> None:
    program = (
        "import sys, pyoxigraph; s = pyoxigraph.Store(sys.argv[1]); print('open', flush=True);"
        " sys.stdin.read()"
    )
    with held(program, scratch_store) as (_, said):
        assert said == "open\n"
        for stale in (False, True):
            if stale:
                write_stale(scratch_store)
            assert_writers_refused(
                scratch_store,
                f"the store at {scratch_store} is locked by another process (no benchgraph "
                "command says it holds it); wait for it to end",
            )


@pytest.mark.parametrize(
    ("argv", "program", "command"),
    [
        (["/venv/bin/benchgraph", "ingest", "--store", "s", "p"], "benchgraph", "ingest"),
        (["/repo/benchgraph/cli/__main__.py", "serve", "--port", "0"], "benchgraph", "serve"),
        (["/venv/bin/pytest", "tests"], "pytest", ""),
        (["-c"], "python", ""),
    ],
)
def test_the_command_recorded_is_the_one_run(argv: list[str], program: str, command: str) -> None:
    assert holder.running_command(argv) == (program, command)


@pytest.fixture
def reader(scratch_store: Path) -> Iterator[subprocess.Popen[str]]:
    """A process that opened ``scratch_store`` as a command that only reads does, and holds it
    open until the test ends."""
    program = (
        "import sys; from benchgraph.store.embedded import EmbeddedStore\n"
        "store = EmbeddedStore(sys.argv[1], only_reads=True)\n"
        "print(len(store.named_graphs()), flush=True); sys.stdin.read(); store.close()"
    )
    with held(program, scratch_store) as (process, said):
        assert int(said) > 0
        yield process


def test_commands_that_only_read_share_the_store_and_writers_wait_for_them(
    reader: subprocess.Popen[str], scratch_store: Path, tmp_path: Path
) -> None:
    assert not (scratch_store / holder.FILE).exists()  # a reader leaves no record
    assert holder.lock_holders(scratch_store, "READ") == [reader.pid]
    for command in ("query", "export", "validate"):  # validate --no-save writes nothing
        done = run_cli(*COMMANDS[command], store=scratch_store)
        assert done.returncode in (0, 1), done.stderr  # 1: validate's warnings
        assert done.stdout, command
    copied = run_cli("copy", "--from", str(scratch_store), "--to", str(tmp_path / "copy"))
    assert copied.returncode == 0 and "counts match" in copied.stdout, copied.stderr
    assert_writers_refused(
        scratch_store,
        f"the store at {scratch_store} is being read by another command (pid {reader.pid}), "
        "which only reads it; wait for it to end",
    )
    assert reader.stdin is not None
    reader.stdin.close()
    reader.wait(PATIENCE)
    done = run_cli(*COMMANDS["ingest"], store=scratch_store)
    assert done.returncode == 0, done.stderr
