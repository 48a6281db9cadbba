"""A real Oxigraph server (the ``oxigraph`` package's ``oxigraph serve``) on the loopback, and a
fault-injecting HTTP proxy to put in front of it."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.client
import os
import secrets
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from bench.launch import free_port

OXIGRAPH = shutil.which("oxigraph") or str(Path(sys.executable).parent / "oxigraph")


def update(base: str, text: str) -> None:
    """Send a SPARQL update to the server whose endpoints start with ``base``."""
    request = urllib.request.Request(
        f"{base}/update",
        data=text.encode(),
        headers={"Content-Type": "application/sparql-update"},
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        response.read()


class OxigraphServer:
    """``oxigraph serve`` on a loopback port, its data in ``folder`` (kept across restarts), in
    its plain configuration unless ``options`` add flags (``--union-default-graph``, say)."""

    def __init__(
        self, folder: Path, port: int | None = None, options: tuple[str, ...] = ()
    ) -> None:
        self.folder = folder
        self.options = options
        self.port = port or free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def url(self) -> str:
        """The query endpoint: what ``--store`` takes."""
        return f"{self.base}/query"

    def start(self) -> OxigraphServer:
        self.process = subprocess.Popen(
            [
                OXIGRAPH,
                "serve",
                "--location",
                str(self.folder),
                "--bind",
                f"127.0.0.1:{self.port}",
                *self.options,
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        wait_for(self.url)
        return self

    def kill(self) -> None:
        """Stop the server at once (SIGKILL), as a crash would."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(30)
            self.process = None

    def clear(self) -> None:
        update(self.base, "DROP ALL")


def wait_for(url: str, seconds: float = 30.0) -> None:
    deadline = time.monotonic() + seconds
    query = urllib.parse.urlencode({"query": "ASK {}"})
    while True:
        try:
            with urllib.request.urlopen(f"{url}?{query}", timeout=2) as response:
                response.read()
            return
        except (urllib.error.URLError, OSError):
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@dataclass
class Faults:
    """What the proxy does to the requests it passes on."""

    user: str = ""  # with a user, requests without these credentials get 401
    password: str = ""
    scheme: str = "Basic"  # the challenge: "Basic", "Digest" (RFC 7616, MD5, qop=auth), or other
    authorizations: list[str] = field(default_factory=list)  # each Authorization scheme seen
    challenged: int = 0  # 401 answers sent
    forbid_updates: bool = False  # 403 to every update
    fail_updates_from: int = 0  # from the Nth update on (1-based), answer ``status``
    fail_updates_count: int = 0  # ... this many times (0: forever)
    status: int = 503
    strip_dataset: bool = False  # drop default-graph-uri, named-graph-uri (a server ignoring them)
    updates_seen: int = 0
    failed: int = 0
    # A request whose body (form-decoded) holds every one of these texts is held, unanswered,
    # until ``released`` is set (or the proxy closes), then refused with ``status``: a query the
    # server never finishes. Empty: none is held.
    hold: tuple[str, ...] = ()
    held: int = 0
    released: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)


class FaultProxy:
    """An HTTP proxy on the loopback in front of a real server: it passes every request on,
    unless ``faults`` says to refuse it (a server behind a gateway that checks credentials,
    or that fails for a while)."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.faults = Faults()
        self.nonces: set[str] = set()
        proxy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:
                proxy.handle(self, None)

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                proxy.handle(self, self.rfile.read(length))

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/query"

    def close(self) -> None:
        self.faults.released.set()
        self.server.shutdown()
        self.server.server_close()

    def _refusal(self, handler: BaseHTTPRequestHandler) -> int:
        f = self.faults
        given = handler.headers.get("Authorization") or ""
        if given:
            f.authorizations.append(given.split(" ", 1)[0])
        if f.user and not self._authorized(handler.command, given):
            f.challenged += 1
            return 401
        if not handler.path.startswith("/update"):
            return 0
        with f.lock:
            f.updates_seen += 1
            if f.forbid_updates:
                return 403
            failing = f.fail_updates_from and f.updates_seen >= f.fail_updates_from
            if failing and (not f.fail_updates_count or f.failed < f.fail_updates_count):
                f.failed += 1
                return f.status
        return 0

    def _challenge(self) -> str:
        if self.faults.scheme != "Digest":
            return f'{self.faults.scheme} realm="store"'
        nonce = secrets.token_hex(16)
        self.nonces.add(nonce)
        return f'Digest realm="store", nonce="{nonce}", qop="auth", algorithm=MD5'

    def _authorized(self, method: str, given: str) -> bool:
        """Whether ``given`` (an Authorization header) holds the credentials, in the scheme
        the proxy asks for."""
        f = self.faults
        scheme, _, rest = given.partition(" ")
        if scheme != f.scheme:
            return False
        if scheme == "Basic":
            return rest == base64.b64encode(f"{f.user}:{f.password}".encode()).decode()
        fields = urllib.request.parse_keqv_list(urllib.request.parse_http_list(rest))
        if fields.get("username") != f.user or fields.get("nonce") not in self.nonces:
            return False

        def md5(text: str) -> str:
            return hashlib.md5(text.encode()).hexdigest()

        known = md5(f"{f.user}:store:{f.password}")
        asked = md5(f"{method}:{fields.get('uri', '')}")
        parts = (known, fields["nonce"], fields.get("nc"), fields.get("cnonce"), "auth", asked)
        return fields.get("response") == md5(":".join(str(p) for p in parts))

    def _held(self, body: bytes | None) -> bool:
        """Whether the request with ``body`` is one to hold (see :attr:`Faults.hold`)."""
        f = self.faults
        if not f.hold or body is None:
            return False
        text = urllib.parse.unquote_plus(body.decode("utf-8", "replace"))
        if not all(part in text for part in f.hold):
            return False
        with f.lock:
            f.held += 1
        f.released.wait()
        return True

    def handle(self, handler: BaseHTTPRequestHandler, body: bytes | None) -> None:
        refusal = self.faults.status if self._held(body) else self._refusal(handler)
        if refusal:
            message = f"refused by the proxy ({refusal})".encode()
            handler.send_response(refusal)
            if refusal == 401:
                handler.send_header("WWW-Authenticate", self._challenge())
            handler.send_header("Content-Length", str(len(message)))
            handler.end_headers()
            with contextlib.suppress(OSError):  # a client that gave up on a held request
                handler.wfile.write(message)
            return
        host, port = urllib.parse.urlsplit(self.target).netloc.split(":")
        connection = http.client.HTTPConnection(host, int(port), timeout=60)
        headers = {k: v for k, v in handler.headers.items() if k.lower() != "authorization"}
        path = handler.path
        if self.faults.strip_dataset:
            path, body = _without_dataset(path), _without_dataset(body)
            if body is not None:
                headers = {k: v for k, v in headers.items() if k.lower() != "content-length"}
        try:
            connection.request(handler.command, path, body, headers)
            answer = connection.getresponse()
            data = answer.read()
        except OSError:
            handler.send_response(502)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        finally:
            connection.close()
        handler.send_response(answer.status)
        for key, value in answer.getheaders():
            if key.lower() not in ("transfer-encoding", "connection", "content-length"):
                handler.send_header(key, value)
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        with contextlib.suppress(OSError):
            handler.wfile.write(data)


def _without_dataset(data: str | bytes | None) -> Any:
    """A query string or form body without its default-graph-uri and named-graph-uri fields."""
    if data is None:
        return None
    text = data.decode() if isinstance(data, bytes) else data
    path, mark, query = text.rpartition("?") if "?" in text else ("", "", text)
    kept = [
        field
        for field in query.split("&")
        if not field.startswith(("default-graph-uri=", "named-graph-uri="))
    ]
    out = f"{path}{mark}{'&'.join(kept)}"
    return out.encode() if isinstance(data, bytes) else out


def shared_server() -> str | None:
    """The query endpoint of an Oxigraph server started for the whole test run (``.ci/run``
    starts one), or None to start one here.

    When the tests run in several processes (pytest-xdist), only the first uses it: the tests
    empty the server they share, so each other process starts one of its own."""
    if os.environ.get("PYTEST_XDIST_WORKER", "gw0") != "gw0":
        return None
    return os.environ.get("BENCHGRAPH_TEST_OXIGRAPH") or None
