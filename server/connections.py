"""The HTTP server's connections: waitress, bounded so that slow or greedy clients cannot lock
the others out, and its own refusals in the one error shape.

- At most :attr:`Limits.connections` connections are open at once (waitress's
  ``connection_limit``; past it, new ones wait in the listen backlog). The limit on open files
  is raised to fit them where the system allows.
- At most :attr:`Limits.per_client` of them from one client address (0: no cap). Waitress has
  no hook for that, so the channel counts itself in when made and out when closed (beside the
  bookkeeping waitress's own channel keeps), and one past the cap is answered 429 with
  ``Retry-After`` and closed. Behind a proxy every client has the proxy's address: raise the
  cap, or set 0, and bound clients in the proxy.
- A connection idle for :attr:`Limits.timeout` seconds is closed (waitress's
  ``channel_timeout``), and a request whose headers and body take longer than that to arrive
  is answered 408 and closed: waitress has no limit of its own on that, so a client sending a
  byte now and then kept its connection for ever.
- What waitress refuses before the app sees the request (malformed, headers or body too large,
  a transfer coding it cannot read) is answered in the error shape, always as JSON (there may
  be no ``Accept`` to go by): 400, 408, 413, 429 or 431. A transfer coding other than chunked
  is 400, where waitress says 501: the request is the client's fault, not the server's.
"""

from __future__ import annotations

import json
import logging
import resource
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from waitress import utilities
from waitress.adjustments import Adjustments
from waitress.channel import HTTPChannel
from waitress.server import TcpWSGIServer
from waitress.task import ErrorTask
from werkzeug.http import HTTP_STATUS_CODES

from server.errors import shape

_log = logging.getLogger(__name__)
# Open files beside the connections: the store's files, the workers' pipes, the dumps.
_OTHER_FILES = 1024
# How often (seconds) idle connections and slow requests are looked for.
_SWEEP_SECONDS = 1
# What an error repeats of the request (a header line, a method) is cut there.
_SHOWN = 200


@dataclass(frozen=True)
class Limits:
    """How many connections at once (``connections``), from one client address (``per_client``,
    0: any number), and the seconds a connection may stay idle or take to send one request
    (``timeout``)."""

    connections: int
    per_client: int
    timeout: int


class TooManyConnections(utilities.Error):
    code = 429
    reason = "Too Many Requests"


class RequestTimeout(utilities.Error):
    code = 408
    reason = "Request Timeout"


def _message(error: utilities.Error, adj: Adjustments) -> tuple[int, str]:
    """The status and the words of what waitress refused, as the error shape gives them."""
    if isinstance(error, utilities.ServerNotImplemented):  # an unknown transfer coding
        return 400, (
            "the request's Transfer-Encoding cannot be read: send the body with "
            "Content-Length, or with Transfer-Encoding: chunked alone"
        )
    if isinstance(error, utilities.RequestHeaderFieldsTooLarge):
        size = adj.max_request_header_size
        return 431, f"the request's headers are larger than the limit of {size} bytes"
    if isinstance(error, utilities.RequestEntityTooLarge):
        return 413, f"the request is larger than the limit of {adj.max_request_body_size} bytes"
    if isinstance(error, utilities.BadRequest):
        shown = str(error.body)[:_SHOWN]
        return 400, f"the request is malformed: {shown}"
    if isinstance(error, TooManyConnections | RequestTimeout):
        return error.code, str(error.body)
    return 500, "internal error: the server could not answer this request"


class ShapedErrorTask(ErrorTask):
    """Waitress's answer to a request it refused, in the error shape."""

    def execute(self) -> None:
        status, message = _message(self.request.error, self.channel.adj)
        body = json.dumps(shape(status, message)).encode()
        self.status = f"{status} {HTTP_STATUS_CODES.get(status, 'Error')}"
        self.response_headers.append(("Content-Type", "application/json"))
        if status == 429:
            self.response_headers.append(("Retry-After", "1"))
        self.set_close_on_finish()
        self.content_length = len(body)
        self.write(body)


class Channel(HTTPChannel):
    """A client's connection, counted per client address, its requests timed."""

    error_task_class = ShapedErrorTask
    client: str | None = None  # the address it is counted under, once counted
    request: Any = None  # the request being received (waitress's)
    began = 0.0  # when the request being received began to arrive

    def __init__(
        self, server: Listener, sock: Any, addr: Any, adj: Adjustments, map: Any = None
    ) -> None:
        super().__init__(server, sock, addr, adj, map)
        self.client = str(addr[0]) if isinstance(addr, tuple) else ""
        count = server.clients[self.client] = server.clients[self.client] + 1
        cap = server.limits.per_client
        if cap and count > cap:
            self.refuse(TooManyConnections(
                f"this address has {cap} connections open to the server already, the most "
                "one client may; close one, or try again shortly"
            ))  # fmt: skip

    def del_channel(self, map: Any = None) -> None:
        super().del_channel(map)
        if self.client is not None:
            server: Listener = self.server
            server.clients[self.client] -= 1
            if server.clients[self.client] <= 0:
                del server.clients[self.client]
            self.client = None

    def received(self, data: bytes) -> bool:
        before = self.request
        taken: bool = super().received(data)
        if self.request is not None and self.request is not before:
            self.began = time.time()  # a request began to arrive
        return taken

    def refuse(self, error: utilities.Error) -> None:
        """Answer ``error`` in place of the request being received (or before any), then
        close: the way waitress answers a request its parser refused."""
        with self.requests_lock:
            request = self.request or self.parser_class(self.adj)
            self.request = None
            request.error = error
            request.completed = True
            self.requests.append(request)
            if len(self.requests) == 1:
                self.server.add_task(self)

    def overdue(self, cutoff: float) -> bool:
        """Whether a request began to arrive before ``cutoff`` and is not all there yet."""
        return self.request is not None and not self.requests and self.began < cutoff


class Listener(TcpWSGIServer):
    """Waitress's server, with :class:`Channel` for its connections and :class:`Limits`."""

    channel_class = Channel

    def __init__(self, app: Any, adj: Adjustments, limits: Limits) -> None:
        self.limits = limits
        self.clients: Counter[str] = Counter()
        super().__init__(app, map={}, adj=adj)

    def maintenance(self, now: float) -> None:
        """Answer 408 to the requests that took too long to arrive, then close the idle
        connections (waitress's own sweep, which leaves those answering alone)."""
        cutoff = now - self.limits.timeout
        for channel in list(self.active_channels.values()):
            if isinstance(channel, Channel) and channel.overdue(cutoff):
                channel.refuse(RequestTimeout(
                    f"the request took longer than {self.limits.timeout} s to arrive; send "
                    "it whole, and faster"
                ))  # fmt: skip
        super().maintenance(now)


def listen(app: Any, host: str, port: int, threads: int, body: int, limits: Limits) -> Listener:
    """A server for ``app`` listening on ``host``:``port`` with ``threads`` threads, refusing
    bodies over ``body`` bytes unread, within ``limits``. Raises OSError if it cannot listen."""
    _fit_open_files(limits.connections + _OTHER_FILES)
    adj = Adjustments(
        host=host,
        port=port,
        threads=threads,
        ident="benchgraph",
        max_request_body_size=body,
        asyncore_use_poll=True,
        connection_limit=limits.connections,
        channel_timeout=limits.timeout,
        cleanup_interval=_SWEEP_SECONDS,
    )
    return Listener(app, adj, limits)


def _fit_open_files(wanted: int) -> None:
    """Raise this process's limit on open files to ``wanted`` if it is lower, as far as the
    system's hard limit allows; say so in the log when that is not far enough."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    except (OSError, ValueError) as error:
        _log.warning("cannot raise the limit on open files to %d: %s", raised, error)
        return
    if raised < wanted:
        _log.warning(
            "the system allows %d open files, fewer than the %d the connection limit wants: "
            "lower connection_limit, or raise the hard limit (ulimit -Hn)",
            raised,
            wanted,
        )
