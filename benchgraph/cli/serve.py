"""The ``benchgraph serve`` command: the web app on waitress, a production WSGI server.

It starts the query workers (failing fast when the store is missing or held by another
process, which it names) and the warming of the named queries that take no parameter
(:class:`server.named.Warmer`, which logs at INFO what it warmed), listens, adds its URL to the
store's holder record, prints the URL (the connections bounded as
:mod:`server.connections` says), and on SIGTERM or Ctrl-C stops gracefully: no
new connections, requests in flight answered (for up to the query time limit and some), workers
stopped, store released.
"""

from __future__ import annotations

import argparse
import logging
import signal
import sys
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from waitress import wasyncore

from benchgraph import settings
from benchgraph.cli.console import EXIT_ERROR, EXIT_OK, store_option

if TYPE_CHECKING:
    from server.backend import Backend

# Bodies up to this many times the request limit reach the app (and its 413 in the error
# shape); waitress itself refuses larger ones before reading them.
_BODY_SLACK = 16


def add_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``serve`` command to the ``benchgraph`` command line."""
    serve = commands.add_parser(
        "serve",
        help="serve the store over HTTP: SPARQL endpoint, named queries, linked data, site",
        description="Serve the store over HTTP, read-only unless --write-token-file turns on "
        "the write API (POST /pages, DELETE /pages/...): the SPARQL 1.1 endpoint at /sparql, "
        "the named queries at /queries, the OpenAPI document at /openapi.json, the resources at "
        "/id/..., the browsable site at /site, dumps at /dump.*, VoID at /void. The store must "
        "exist (benchgraph ingest). While the server runs it is the store's one writer: the "
        "other commands on the store (ingest, remove, query, export...) go through it, and its "
        "readers see each page they write at once. The named queries that take no parameter "
        "are answered in the background at start and after each change of the store, one at "
        "a time within the dump time limit, so that their first request is answered from the "
        "cache. Stops gracefully on SIGTERM or Ctrl-C. Exit codes: 0 stopped; 2 a bad setting, "
        "a store that cannot be opened, or a port that cannot be bound.",
    )
    store_option(serve)
    for s in settings.SETTINGS:
        if s.command == "serve":
            shown = s.default or "(empty)"
            serve.add_argument(
                s.flag,
                dest=s.name,
                metavar=s.kind.upper() if s.kind != "text" else "TEXT",
                help=f"{s.help} Default: ${s.env}, else {shown}.",
            )
    serve.set_defaults(handler=run_serve)


def _url(host: str, port: int) -> str:
    shown = f"[{host}]" if ":" in host else host
    return f"http://{shown}:{port}/"


def _busy(server: Any) -> bool:
    """Whether a request is being answered or an answer is still being sent (waitress 3.0)."""
    dispatcher = server.task_dispatcher
    if dispatcher.active_count or dispatcher.queue:
        return True
    channels = [c for c in list(server._map.values()) if c is not server]
    return any(getattr(c, "requests", None) or getattr(c, "total_outbufs_len", 0) for c in channels)


def serve(server: Any, host: str, grace: float, bound: Callable[[str], None] | None = None) -> int:
    """Run ``server`` (listening on ``host``, :func:`server.connections.listen`) until SIGTERM
    or SIGINT, then drain for up to ``grace`` seconds; ``bound`` is given the server's URL
    once it listens, before the URL is printed."""
    # A signal handler must take no lock: a second signal arriving inside the first handler
    # would wait forever for a lock its own thread holds (threading.Event.set takes one).
    stopping = [False]

    def stop(signum: int, frame: object) -> None:
        stopping[0] = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    url = _url(host, int(server.effective_port))
    if bound is not None:
        bound(url)
    print(f"benchgraph: serving at {url} (SPARQL endpoint {url}sparql); Ctrl-C stops", flush=True)
    while not stopping[0]:
        wasyncore.loop(timeout=0.2, use_poll=True, map=server._map, count=1)
    server.accepting = False
    deadline = time.monotonic() + grace
    while _busy(server) and time.monotonic() < deadline:
        wasyncore.loop(timeout=0.05, use_poll=True, map=server._map, count=1)
    server.task_dispatcher.shutdown(cancel_pending=True, timeout=1)
    wasyncore.close_all(server._map)
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    """Handler of ``benchgraph serve``."""
    # The app is imported here, not at the top: every other command starts without Flask.
    from ingest.gate import IngestGate
    from server import allocator
    from server.app import create_app
    from server.connections import Limits, listen
    from server.named import Warmer
    from server.workers import WorkerPool

    allocator.limit_arenas()  # before the server's threads start
    explicit = {name: getattr(args, name, None) for name in settings.SERVE}
    try:
        app = create_app(explicit, gate=IngestGate())
    except settings.SettingError as error:
        sys.stderr.write(f"benchgraph: error: {error}\n")
        return EXIT_ERROR
    values = app.config["BENCHGRAPH"]
    backend: Backend = app.extensions["benchgraph"]
    backend.pool.start()  # StoreError: reported by the CLI, exit 2
    app.logger.setLevel(logging.INFO)  # what was warmed, beside the errors
    warmer = Warmer(app)
    warmer.start()
    limits = Limits(
        int(values["connection_limit"]),
        int(values["client_connections"]),
        int(values["client_timeout"]),
    )
    host, body = str(values["host"]), int(values["max_request_bytes"]) * _BODY_SLACK
    try:
        server = listen(app, host, int(values["port"]), int(values["threads"]), body, limits)
        return serve(
            server,
            host,
            grace=float(values["query_timeout"]) + 5,
            bound=backend.pool.serving if isinstance(backend.pool, WorkerPool) else None,
        )
    except OSError as error:
        sys.stderr.write(
            f"benchgraph: error: cannot listen on {values['host']}:{values['port']}: {error}\n"
        )
        return EXIT_ERROR
    finally:
        warmer.stop()
        backend.pool.close()
        print("benchgraph: stopped", file=sys.stderr, flush=True)
