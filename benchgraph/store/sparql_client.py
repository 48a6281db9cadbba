"""The SPARQL 1.1 Protocol over HTTP, as a remote store speaks it: a query POSTed as a form
(``query``, ``default-graph-uri``, ``named-graph-uri``), an update POSTed as
``application/sparql-update``, a graph read with a Graph Store Protocol GET.

Every request has a time limit; refused or dropped connections and 429/502/503/504 answers are
retried with backoff, a bounded number of times; every failure is a StoreError naming the
endpoint and what failed (a query the server finds malformed is a SyntaxError).

Credentials (:mod:`benchgraph.store.credentials`) are answered by handlers built for each
request, so that nothing about them is process-wide: two stores with different accounts, or
many threads of one server, never share a Digest exchange. (SPARQLWrapper, the client the tests
use, answers Digest by installing a process-wide urllib opener, and keeps only the message of an
HTTP error, not its status or headers: reasons enough for a store to speak the protocol
itself.)
"""

from __future__ import annotations

import email.message
import http.client
import itertools
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO, TypeVar

from benchgraph.store.credentials import Credentials
from benchgraph.store.interface import StoreError

T = TypeVar("T")

AGENT = "benchgraph"
_TRANSIENT_STATUS = {429, 502, 503, 504}


# The header lines an answer may carry beyond one per graph of the dataset a query names.
# Virtuoso echoes each graph a query names as a header of its answer (``X-SPARQL-named-graph``),
# and http.client refuses an answer of more than 100 header lines ("got more than 100 headers"):
# every query saying GRAPH failed there once a store held about 50 pages, its page and report
# graphs all named. The limit is http.client's own, for the process; it is only ever raised,
# to what the largest dataset sent needs (under a lock: two threads never lower it).
_HEADER_LINES = 100
_header_guard = threading.Lock()


def _allow_headers(graphs: int) -> None:
    """Let an answer carry a header line for each of ``graphs`` graphs besides the usual ones."""
    needed = _HEADER_LINES + graphs
    with _header_guard:
        if getattr(http.client, "_MAXHEADERS", needed) < needed:
            http.client._MAXHEADERS = needed  # type: ignore[attr-defined]


class StoreTimeout(StoreError):
    """The server did not answer within the time limit."""


@dataclass(frozen=True)
class Reply:
    """An answer: its body, its media type, and its headers."""

    body: bytes
    media: str
    headers: email.message.Message


class Client:
    """Requests to the servers of ``urls``, with ``credentials`` (None: none), each limited to
    ``timeout`` seconds, transient failures retried ``retries`` times."""

    def __init__(
        self,
        urls: Sequence[str],
        credentials: Credentials | None = None,
        *,
        timeout: float = 30.0,
        retries: int = 3,
    ) -> None:
        self.credentials = credentials
        self.urls = tuple(urls)
        self.timeout = timeout
        self.retries = retries
        self.backoff = 0.5  # seconds before the first retry; doubled for each next one

    def query(
        self,
        what: str,
        endpoint: str,
        text: str,
        accept: str,
        *,
        default_graphs: Sequence[str] = (),
        named_graphs: Sequence[str] = (),
    ) -> Reply:
        """Send the query ``text`` with the dataset given (none: the server's)."""
        body, headers = _query_form(text, accept, default_graphs, named_graphs)
        _allow_headers(len(default_graphs) + len(named_graphs))
        return self.send(what, endpoint, body, headers)

    def update(self, what: str, endpoint: str, text: str) -> None:
        """Send the update ``text``."""
        headers = {"Content-Type": "application/sparql-update; charset=utf-8"}
        self.send(what, endpoint, text.encode("utf-8"), headers)

    def get(self, what: str, url: str, accept: str) -> Reply:
        """GET ``url``."""
        return self.send(what, url, None, {"Accept": accept})

    def send(self, what: str, url: str, body: bytes | None, headers: dict[str, str]) -> Reply:
        """Send one request (POST with ``body``, else GET) and read its answer whole."""

        def attempt() -> Reply:
            with self.open_now(what, url, body, headers) as response:
                return Reply(response.read(), response.headers.get_content_type(), response.headers)

        return self.attempts(what, url, attempt)

    def stream(self, what: str, endpoint: str, text: str, accept: str) -> IO[bytes]:
        """Send the query ``text`` and return the open answer, to be read as it comes (and
        closed)."""
        body, headers = _query_form(text, accept, (), ())
        return self.attempts(what, endpoint, lambda: self.open_now(what, endpoint, body, headers))

    def open_now(
        self, what: str, url: str, body: bytes | None, headers: dict[str, str]
    ) -> http.client.HTTPResponse:
        """One attempt: the request sent through handlers of its own (see the module). A
        challenge urllib cannot answer (a scheme other than Basic and Digest, a Digest algorithm
        it lacks) is a StoreError saying which."""
        handlers = self.credentials.handlers(self.urls) if self.credentials else []
        opener = urllib.request.build_opener(*handlers)
        request = urllib.request.Request(url, data=body, headers={"User-Agent": AGENT, **headers})
        try:
            response = opener.open(request, timeout=self.timeout)
        except ValueError as error:  # urllib's word for a challenge it cannot answer
            raise StoreError(f"cannot send {what} to {url}: {error}") from None
        assert isinstance(response, http.client.HTTPResponse)
        cap = response.headers.get(CUT_HEADER)
        if cap is not None:
            response.close()
            raise StoreError(
                f"{url} cut its answer while {what} at {cap} rows (its {CUT_HEADER} header; "
                "Virtuoso's ResultSetMaxRows): a cut answer is never taken as whole, so raise "
                "that limit above the largest answer benchgraph reads (every quad, for a copy)"
            )
        if response.headers.get(STATE_HEADER, "").strip() == INCOMPLETE_STATE:
            said = " ".join(response.headers.get(MESSAGE_HEADER, "").split()[:8])
            response.close()
            raise StoreTimeout(
                f"{url} answered with the rows it had found when its time ran out, while "
                f"{what} ({STATE_HEADER} {INCOMPLETE_STATE}: {said}): an incomplete answer is "
                "never taken as whole; raise the server's time limit (Virtuoso's "
                "MaxQueryExecutionTime), or drop a timeout parameter from the endpoint's URL"
            )
        return response

    def attempts(self, what: str, endpoint: str, attempt: Callable[[], T]) -> T:
        """Run ``attempt``; retry transient failures with backoff; turn every failure into a
        StoreError (or SyntaxError for a query the server found malformed)."""
        for n in itertools.count(1):
            try:
                return attempt()
            except urllib.error.HTTPError as error:
                failure = self._refusal(error, what, endpoint)
            except TimeoutError:
                raise self._timeout(what, endpoint) from None
            except (urllib.error.URLError, OSError, http.client.HTTPException) as error:
                reason = getattr(error, "reason", error)
                if isinstance(reason, TimeoutError | socket.timeout):
                    raise self._timeout(what, endpoint) from None
                failure = _Failure(
                    StoreError(f"cannot reach {endpoint} while {what}: {reason or error}"),
                    transient=True,
                )
            if not failure.transient or n > self.retries:
                if failure.transient and self.retries:
                    raise StoreError(f"{failure.error} (after {n} attempts)") from None
                raise failure.error from None
            time.sleep(self.backoff * 2 ** (n - 1))
        raise AssertionError("unreachable")

    def _timeout(self, what: str, endpoint: str) -> StoreTimeout:
        return StoreTimeout(f"{endpoint} did not answer within {self.timeout:g} s while {what}")

    def _refusal(self, error: urllib.error.HTTPError, what: str, endpoint: str) -> _Failure:
        status = error.code
        detail = " ".join(_body(error).split())[:300]
        if status == 400 and "query" in what:
            return _Failure(SyntaxError(f"{endpoint} refused the query: {detail}"), False)
        if status in (401, 403):
            return _Failure(StoreError(self._denial(status, error, what, endpoint)), False)
        if status == 500 and detail.startswith(f"Virtuoso {TIMED_OUT_STATE} "):
            return _Failure(
                StoreTimeout(
                    f"{endpoint} stopped the query at its own time limit while {what} "
                    f"({detail[:80]}): raise that limit (Virtuoso's MaxQueryExecutionTime) "
                    "or narrow the query"
                ),
                False,
            )
        if status == 404:
            return _Failure(
                StoreError(f"{endpoint} while {what}: (404 Not Found) no such endpoint or graph"),
                False,
            )
        return _Failure(
            StoreError(f"{endpoint} failed while {what} (HTTP {status}): {detail}"),
            status in _TRANSIENT_STATUS,
        )

    def _denial(self, status: int, error: urllib.error.HTTPError, what: str, endpoint: str) -> str:
        """What a 401 or 403 means here, naming the user (never the password)."""
        name = "Unauthorized" if status == 401 else "Forbidden"
        challenge = error.headers.get("WWW-Authenticate", "") if error.headers else ""
        asked = challenge.split(" ", 1)[0]
        asks = f"; it asks for {asked}" if status == 401 and asked else ""
        said = f"{endpoint} refused {what} ({status} {name}{asks})"
        who = self.credentials
        if who is None:
            return (
                f"{said}: give credentials in BENCHGRAPH_STORE_USER and BENCHGRAPH_STORE_PASSWORD "
                "(or a netrc file named by BENCHGRAPH_STORE_NETRC)"
            )
        if status == 401 and asked.lower() == "basic" and who.scheme == "digest":
            return f"{said} for user {who.user!r}: BENCHGRAPH_STORE_AUTH=digest sends no Basic"
        if status == 401:
            return f"{said} for user {who.user!r}: check the user and password (from {who.source})"
        return f"{said} for user {who.user!r}: the account may not do this"


# The header with which a server says it cut an answer at its row limit (Virtuoso answers HTTP
# 200 with the first rows only).
CUT_HEADER = "X-SPARQL-MaxRows"
# The headers with which Virtuoso says an answer is what it had found when its time ran out
# (its "anytime" answers: HTTP 200, the rows found so far, often none, and the state S1TAT).
STATE_HEADER, MESSAGE_HEADER = "X-SQL-State", "X-SQL-Message"
INCOMPLETE_STATE = "S1TAT"
# The state of Virtuoso's answer (HTTP 500, "Virtuoso S1T00 Error SR171: Transaction timed out")
# to a query it stopped at its MaxQueryExecutionTime without rows to give.
TIMED_OUT_STATE = "S1T00"


def _query_form(
    text: str, accept: str, default_graphs: Sequence[str], named_graphs: Sequence[str]
) -> tuple[bytes, dict[str, str]]:
    """The body and headers of a query POSTed as a form, with its dataset."""
    form = [("query", text)]
    form += [("default-graph-uri", graph) for graph in default_graphs]
    form += [("named-graph-uri", graph) for graph in named_graphs]
    headers = {"Content-Type": "application/x-www-form-urlencoded", "Accept": accept}
    return urllib.parse.urlencode(form).encode("ascii"), headers


@dataclass(frozen=True)
class _Failure:
    error: Exception
    transient: bool


def _body(error: urllib.error.HTTPError) -> str:
    try:
        return error.read().decode("utf-8", "replace")
    except (OSError, AttributeError):
        return ""
