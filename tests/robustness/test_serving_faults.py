"""Serving faults: what operators and clients do to a running ``benchgraph serve`` (real
processes, asked over loopback), and what must hold through it.

- **A second start**: refused, naming the first server, and touching nothing that server
  holds (the store folder, its holder record, its generations are as they were); the first
  keeps answering queries, publishing writes and replacing workers. Several starts at once
  give exactly one server, round after round.
- **Slow clients**: connections sending a request's first lines and no more, from one address
  (past the per-client cap, each answered 429) and from ten, leave real users served at once;
  a request trickling in a byte at a time is answered 408 once it has taken the client timeout,
  and an idle connection is closed then.
- **Framing the server cannot read**: a transfer coding other than chunked is 400 in the error
  shape, never a 5xx.
- **A full disk**: the server runs on a 48 MiB file system of its own (a tmpfs mounted in a
  user and mount namespace of its own, ``unshare``), which the test fills from outside (through
  ``/proc/PID/root``) while pages are posted to the write API. A write that meets the full
  disk is 507 in the error shape; reads go on, a worker is replaced; once the filler is
  deleted a page posted again is taken and seen, with no restart; the server stops with exit
  0 even with the disk full again, and no traceback.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import selectors
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.parse
from collections.abc import Iterator
from pathlib import Path

import pytest
from robustness.corpus import Row, new_id, render_sota2
from support import EXAMPLES, PATIENCE, REPO, build_store, copy_store, run_cli
from support.live import TIME_LIMIT, Live, Reply, children, fetch, query_url

from bench.launch import SERVING, Server
from benchgraph import graphs
from benchgraph.store import holder

NOCAPS = REPO / "tests" / "data" / "sota2" / "nocaps-cider.md"  # not in the examples
NOCAPS_PAGE = "sota2/image-captioning-on-nocaps-val/cider"
TOKEN = "operator-5d1e7a90c3b24f68"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
# Starts at once, and rounds of them: the fault needed the loser to fail while the winner
# was still taking its first generation, which a few rounds give it the chance to.
STARTS = 3
ROUNDS = 3


@pytest.fixture(scope="module")
def examples(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_store(tmp_path_factory.mktemp("examples") / "store", EXAMPLES)


@pytest.fixture
def store(examples: Path, tmp_path: Path) -> Path:
    """A copy of the examples store of the test's own."""
    return copy_store(examples, tmp_path / "store")


@pytest.fixture
def token(tmp_path: Path) -> Path:
    path = tmp_path / "write.token"
    path.write_text(TOKEN + "\n")
    path.chmod(0o600)
    return path


@pytest.fixture
def first(store: Path, token: Path) -> Iterator[Live]:
    """The first server on the store: one worker (and its spare), the write API on."""
    live = Live(store, "--workers", "1", "--write-token-file", str(token))
    yield live
    log = live.errors()
    assert live.stop() == 0, log


def ask(url: str, query: str = "ASK { ?s ?p ?o }") -> Reply:
    return fetch(query_url(url + "sparql", query=query), Accept="application/sparql-results+json")


def holds(url: str, page: str) -> bool:
    """Whether the server at ``url`` answers that the graph of ``page`` holds statements."""
    reply = ask(url, f"ASK {{ GRAPH <{graphs.page(page)}> {{ ?s ?p ?o }} }}")
    assert reply.status == 200, reply.text
    return bool(reply.json()["boolean"])


def assert_keeps_serving(url: str) -> None:
    """The server at ``url`` answers a query, publishes a page posted and then withdrawn
    (each seen by its readers at once), and answers again after a query past the time limit
    made it replace its worker, twice (the spare, then the one started in its place)."""
    assert ask(url).status == 200
    auth = {"Authorization": f"Bearer {TOKEN}"}
    posted = fetch(query_url(url + "pages", name="nocaps-cider.md"), NOCAPS.read_bytes(), "POST",
                   Accept="application/json", **auth)  # fmt: skip
    assert posted.status == 201, posted.text
    assert holds(url, NOCAPS_PAGE)
    withdrawn = fetch(url + "pages/" + NOCAPS_PAGE, None, "DELETE", **auth)
    assert withdrawn.status == 200, withdrawn.text
    assert not holds(url, NOCAPS_PAGE)
    for _ in range(2):
        stopped = ask(url, RUNAWAY)
        assert stopped.status == 504, stopped.text
        after = ask(url)
        assert after.status == 200, after.text


def folder_state(store: Path) -> tuple[list[str], bytes, list[str]]:
    """What a refused start must leave as it was: the store folder's names, the holder
    record's bytes, the generations' names."""
    generations = sorted(p.name for p in (store / holder.GENERATIONS).iterdir())
    record = (store / holder.FILE).read_bytes()
    return sorted(p.name for p in store.iterdir()), record, generations


def test_a_refused_start_touches_nothing_the_running_server_holds(first: Live) -> None:
    before = folder_state(first.store)
    done = run_cli("serve", "--port", "0", "--store", str(first.store))
    assert done.returncode == 2, done.stderr
    pid = first.process.pid
    assert f"another server holds the store at {first.store}" in done.stderr
    assert f"(pid {pid}, serving {first.url})" in done.stderr
    assert "Traceback" not in done.stderr
    assert folder_state(first.store) == before
    assert_keeps_serving(first.url)


def start(store: Path, token: Path, log: Path) -> Server:
    """``benchgraph serve`` on ``store`` with the write API on, started, not waited for."""
    command = [sys.executable, "-m", "benchgraph.cli", "serve", "--store", str(store)]
    command += ["--port", "0", "--query-timeout", TIME_LIMIT, "--workers", "1"]
    command += ["--write-token-file", str(token)]
    return Server(command, log, env=dict(os.environ))


def test_of_starts_at_once_exactly_one_serves_and_keeps_serving(
    store: Path, token: Path, tmp_path: Path
) -> None:
    for round_ in range(ROUNDS):
        logs = [tmp_path / f"serve-{round_}-{i}.log" for i in range(STARTS)]
        servers = [start(store, token, log) for log in logs]
        try:
            # Each prints its URL, or ends (refused) and its output closes.
            lines = [s.process.stdout.readline() for s in servers]  # type: ignore[union-attr]
            serving = [s for s, line in zip(servers, lines, strict=True) if "serving at" in line]
            assert len(serving) == 1, [s.errors() for s in servers]
            (winner,) = serving
            for refused in (s for s in servers if s is not winner):
                assert refused.process.wait() == 2, refused.errors()
                said = refused.errors()
                assert "holds the store" in said or "is locked by another process" in said, said
                assert "Traceback" not in said
            url = lines[servers.index(winner)].split("serving at ")[1].split()[0]
            assert_keeps_serving(url)
        finally:
            codes = [s.stop() for s in servers]
        assert codes.count(0) == 1, [s.errors() for s in servers]
        assert "Traceback" not in winner.errors()
        assert not (store / holder.GENERATIONS).exists() and holder.read(store) is None


# Slow connections: a request's first lines, never finished. The first address is that of
# the slow client; the real users ask from 127.0.0.1 (all of 127/8 is loopback on Linux).
SLOW = 250
CAP = 100
ADDRESSES = [f"127.0.0.{i}" for i in range(2, 12)]
PARTIAL = b"GET /sparql?query=ASK%7B%7D HTTP/1.1\r\nHost: benchgraph\r\n"


def address(url: str) -> tuple[str, int]:
    found = urllib.parse.urlsplit(url)
    return str(found.hostname), int(found.port or 80)


def connect(url: str, source: str) -> socket.socket:
    """A connection to the server at ``url`` from the loopback address ``source``."""
    sock = socket.socket()
    sock.bind((source, 0))
    sock.connect(address(url))
    return sock


def reply_of(data: bytes) -> tuple[int, dict[str, str], bytes]:
    """The status, headers (lower-case names) and body of a whole HTTP answer."""
    head, _, body = data.partition(b"\r\n\r\n")
    first, *lines = head.decode("latin-1").split("\r\n")
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines)}
    return int(first.split()[1]), headers, body


def receive(sock: socket.socket) -> bytes:
    """What ``sock`` has to read; b"" once the server closed it. The server may close a
    connection it answered before reading all the client sent, which ends it with a reset."""
    try:
        return sock.recv(65536)
    except ConnectionResetError:
        return b""


def read_reply(sock: socket.socket) -> tuple[int, dict[str, str], bytes]:
    """One answer read from ``sock``, as far as its Content-Length, the connection left open."""
    sock.settimeout(PATIENCE)
    data = b""
    while b"\r\n\r\n" not in data or len(data.partition(b"\r\n\r\n")[2]) < int(
        reply_of(data)[1]["content-length"]
    ):
        chunk = receive(sock)
        assert chunk, f"the connection closed before the answer was whole: {data!r}"
        data += chunk
    return reply_of(data)


def read_all(sock: socket.socket) -> bytes:
    """What the server sends on ``sock`` until it closes it (PATIENCE at most)."""
    sock.settimeout(PATIENCE)
    data = b""
    while chunk := receive(sock):
        data += chunk
    return data


def answered(socks: list[socket.socket], count: int) -> dict[socket.socket, bytes]:
    """Wait until the server has answered and closed ``count`` of ``socks``; what each got."""
    chooser = selectors.DefaultSelector()
    for sock in socks:
        chooser.register(sock, selectors.EVENT_READ)
    got: dict[socket.socket, bytes] = {}
    closed: set[socket.socket] = set()
    while len(closed) < count:
        ready = chooser.select(PATIENCE)
        assert ready, f"{len(closed)} of {count} connections answered in {PATIENCE} s"
        for key, _ in ready:
            sock = key.fileobj
            assert isinstance(sock, socket.socket)
            chunk = receive(sock)
            got[sock] = got.get(sock, b"") + chunk
            if not chunk:
                closed.add(sock)
                chooser.unregister(sock)
    chooser.close()
    return got


def assert_error_shape(data: bytes, status: int) -> dict[str, object]:
    found, headers, body = reply_of(data)
    assert found == status, data[:500]
    assert headers["content-type"] == "application/json"
    shaped: dict[str, object] = json.loads(body)
    assert set(shaped) == {"ok", "error", "status"}, shaped
    assert shaped["ok"] is False and shaped["status"] == status
    return shaped


@pytest.fixture
def slow(store: Path) -> Iterator[tuple[Live, list[socket.socket]]]:
    """A server (its idle limit out of the way of the test) and a list to hold the slow
    connections, closed after the test."""
    live = Live(store, "--client-connections", str(CAP), "--client-timeout", "3600")
    socks: list[socket.socket] = []
    yield live, socks
    for sock in socks:
        sock.close()
    log = live.errors()
    assert live.stop() == 0, log
    assert "Traceback" not in log


def test_slow_connections_from_one_address_past_the_cap_are_429_and_users_are_served(
    slow: tuple[Live, list[socket.socket]],
) -> None:
    live, socks = slow
    for _ in range(SLOW):
        socks.append(connect(live.url, ADDRESSES[0]))
        socks[-1].sendall(PARTIAL)
    refused = answered(socks, SLOW - CAP)  # so the server has taken every connection
    for data in refused.values():
        said = assert_error_shape(data, 429)
        assert f"{CAP} connections" in str(said["error"])
    held = [sock for sock in socks if sock not in refused]
    assert len(held) == CAP
    for sock in held:
        sock.sendall(b"A")  # a little more of the header, slowly
    reply = ask(live.url)
    assert reply.status == 200 and reply.json()["boolean"] is True
    chooser = selectors.DefaultSelector()
    for sock in held:
        chooser.register(sock, selectors.EVENT_READ)
    assert chooser.select(0) == []  # the slow ones under the cap are still waited for
    chooser.close()


def test_slow_connections_from_many_addresses_leave_users_served(
    slow: tuple[Live, list[socket.socket]],
) -> None:
    live, socks = slow
    for i in range(SLOW):  # under the cap on each address: none refused
        socks.append(connect(live.url, ADDRESSES[i % len(ADDRESSES)]))
        socks[-1].sendall(PARTIAL)
    # Connections are accepted in order: answered, this one came after all the slow ones
    # (waitress's old limit of 100 connections left it waiting for ever).
    reply = ask(live.url)
    assert reply.status == 200 and reply.json()["boolean"] is True


def test_a_request_trickling_in_is_408_and_an_idle_connection_is_closed(store: Path) -> None:
    """The trickle keeps the connection busy, never idle: only the time the request takes
    can end it."""
    live = Live(store, "--client-timeout", "1")
    deadline = time.monotonic() + PATIENCE
    try:
        with connect(live.url, "127.0.0.1") as trickling, selectors.DefaultSelector() as chooser:
            chooser.register(trickling, selectors.EVENT_READ)
            trickling.sendall(PARTIAL + b"X-Slow: ")
            while not chooser.select(0.1):  # a byte every tenth of a second, until answered
                assert time.monotonic() < deadline, "the trickling request was never answered"
                trickling.sendall(b"a")
            assert_error_shape(read_all(trickling), 408)
        with connect(live.url, "127.0.0.1") as idle:
            idle.sendall(PARTIAL + b"\r\n")
            status, _, body = read_reply(idle)
            assert status == 200 and json.loads(body)["boolean"] is True
            assert read_all(idle) == b""  # then idle: closed by the server, and nothing more
    finally:
        log = live.errors()
        assert live.stop() == 0, log


@pytest.mark.parametrize("coding", ["gzip, chunked", "chunked, gzip", "gzip", "identity"])
def test_a_transfer_coding_the_server_cannot_read_is_4xx_in_the_error_shape(
    first: Live, coding: str
) -> None:
    head = "POST /sparql HTTP/1.1\r\nHost: benchgraph\r\nContent-Type: application/sparql-query"
    head += f"\r\nTransfer-Encoding: {coding}\r\n\r\n"
    with connect(first.url, "127.0.0.1") as sock:
        sock.sendall(head.encode() + b"5\r\nASK{}\r\n0\r\n\r\n")
        said = assert_error_shape(read_all(sock), 400)
    assert "Transfer-Encoding" in str(said["error"])
    assert ask(first.url).status == 200


DISK = "48m"  # the full disk's size: the store takes some 2 MiB of it


def page(number: int) -> bytes:
    """A generated sota2 page, a benchmark of its own with 20 results."""
    rows = [
        Row(f"Method {number}-{j}", f"{50 + j}.{number}", new_id("full", number, j),
            new_id("paper", number, j))
        for j in range(20)
    ]  # fmt: skip
    text = render_sota2(f"Task {number:03}", f"Dataset {number:03}", "Accuracy", "PERCENT",
                        "Higher is better", rows, slug=f"full-{number:03}")  # fmt: skip
    return text.encode()


def page_name(number: int) -> str:
    return f"sota2/task-{number:03}-on-dataset-{number:03}/accuracy"


def post(url: str, number: int) -> Reply:
    return fetch(query_url(url + "pages", name=f"page-{number:03}.md"), page(number), "POST",
                 Accept="application/json", Authorization=f"Bearer {TOKEN}")  # fmt: skip


def on_a_small_disk(store: Path, disk: Path, token: Path, log: Path) -> Server:
    """``benchgraph serve`` with the write API on a copy of ``store`` on a tmpfs of DISK
    mounted at ``disk``, in a user and mount namespace of its own (so no one else sees it, and
    it goes with the server)."""
    script = (
        'mount -t tmpfs -o size="$1" tmpfs "$2" && cp -a "$3" "$2/store" && shift 3 && exec "$@"'
    )
    command = ["unshare", "--user", "--map-root-user", "--mount", "sh", "-c", script, "sh"]
    command += [DISK, str(disk), str(store), sys.executable, "-m", "benchgraph.cli", "serve"]
    command += ["--store", str(disk / "store"), "--port", "0", "--query-timeout", TIME_LIMIT]
    command += ["--workers", "1", "--write-token-file", str(token)]
    return Server(command, log, env=dict(os.environ))


@pytest.fixture
def full_disk() -> None:
    """Skip unless this machine lets this user mount a tmpfs in namespaces of its own."""
    if shutil.which("unshare") is None:
        pytest.skip("needs unshare (util-linux) to make a small disk to fill")
    probe = ["unshare", "--user", "--map-root-user", "--mount", "mount", "-t", "tmpfs", "tmpfs",
             "/mnt"]  # fmt: skip
    if subprocess.run(probe, capture_output=True, timeout=PATIENCE).returncode != 0:
        pytest.skip("this machine does not let this user mount a tmpfs in a namespace")


def fill(folder: Path) -> Path:
    """Fill the file system of ``folder`` to the last byte with a file; return it."""
    filler = folder / "filler"
    with filler.open("wb", buffering=0) as out:  # unbuffered: each write meets the disk
        for size in (1 << 20, 4096, 1):
            try:
                while True:
                    out.write(b"\0" * size)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
    return filler


def first_refused(url: str, numbers: range) -> int:
    """Post the pages ``numbers`` until one is refused; return its number. Pages may still
    be taken for a while on a full disk (RocksDB writes into room it took ahead)."""
    for number in numbers:
        reply = post(url, number)
        if reply.status != 201:
            return number
    raise AssertionError(f"pages {numbers} were all taken on a full disk")


def assert_full(reply: Reply) -> None:
    assert reply.status == 507, reply.text
    said = reply.json()
    assert set(said) == {"ok", "error", "status"} and said["status"] == 507, said
    assert "not acknowledged" in said["error"] and reply.headers["retry-after"]


def test_a_full_disk_is_507_and_the_server_recovers_by_itself(
    full_disk: None, store: Path, token: Path, tmp_path: Path
) -> None:
    disk, log = tmp_path / "disk", tmp_path / "serve.log"
    disk.mkdir()
    server = on_a_small_disk(store, disk, token, log)
    try:
        line = server.process.stdout.readline()  # type: ignore[union-attr]
        found = SERVING.search(line)
        assert found, server.errors()
        url = found.group(1)
        seen = Path(f"/proc/{server.process.pid}/root") / disk.relative_to("/")
        assert post(url, 0).status == 201 and holds(url, page_name(0))
        filler = fill(seen)
        refused = first_refused(url, range(1, 100))
        assert_full(post(url, refused))  # and again: the store stays refusing
        assert ask(url).status == 200  # readers go on, on the generation they have
        assert ask(url, RUNAWAY).status == 504  # its worker replaced, on a full disk
        assert ask(url).status == 200
        filler.unlink()
        deadline = time.monotonic() + PATIENCE
        while (reply := post(url, refused)).status == 507:  # until the store is open anew
            assert time.monotonic() < deadline, "the server never took writes again"
            time.sleep(0.1)  # how often to ask, not how long to wait
        assert reply.status in (200, 201), reply.text  # 200: unchanged, it had been stored
        assert holds(url, page_name(refused)) and holds(url, page_name(0))
        assert post(url, refused + 1).status == 201 and holds(url, page_name(refused + 1))
        filler = fill(seen)
        assert_full(post(url, first_refused(url, range(refused + 2, 200))))
    finally:
        code = server.stop()
    said = log.read_text(encoding="utf-8")
    assert code == 0, said
    assert "Traceback" not in said and "has room again" in said, said


def test_a_dump_whose_worker_stalls_is_answered_503_within_the_time_limit(
    tmp_path: Path,
) -> None:
    store = copy_store(build_store(tmp_path / "built", EXAMPLES), tmp_path / "store")
    live = Live(store, "--workers", "1", "--dump-timeout", "600")
    stopped: list[int] = []
    try:
        assert fetch(query_url(live.sparql, query="ASK {}")).status == 200  # workers up
        stopped = children(live.process.pid)
        assert stopped
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)  # every worker stalls: none answers, none dies
        reply = fetch(live.url + "dump.nq", timeout=PATIENCE)
        assert reply.status == 503, reply.text
        assert "made no progress" in reply.json()["error"], reply.text
    finally:
        for pid in stopped:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGCONT)
    # The stalled worker was replaced: the server answers, and stops cleanly.
    assert fetch(query_url(live.sparql, query="ASK {}")).status == 200
    assert live.stop() == 0
