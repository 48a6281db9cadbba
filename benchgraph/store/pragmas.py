"""Planning hints a query's text carries for one kind of server, in comments every other engine
ignores.

A line ``# virtuoso: define sql:select-option "order"`` in a query (``queries/leaderboard.rq``
has one) is sent to Virtuoso as that pragma ahead of the query: Virtuoso then joins the query's
parts in the order they are written instead of searching for an order of its own. Its search
costs seconds on a query of many subqueries, and the order it finds evaluates a subquery of
aggregates once per row of another (the CompoSET leaderboard ran past 60 s). A hint changes the
plan, never the answer: the contract tests hold each query's rows on Virtuoso to the embedded
store's.

Only the hints in :data:`ALLOWED` are sent, so a query cannot pass anything else to the server
this way (a pragma can also name graphs to load from the web): any other line is a comment like
the rest. The server's kind is read from the ``Server`` header of its answers.
"""

from __future__ import annotations

import re
from email.message import Message

__all__ = ["ALLOWED", "hinted", "server_kind"]

# The hints a query may carry, by server kind.
ALLOWED = {"virtuoso": frozenset({'define sql:select-option "order"'})}
_LINE = re.compile(r"^#\s*([a-z]+):\s*(define\s.*?)\s*$", re.MULTILINE | re.IGNORECASE)


def server_kind(headers: Message) -> str:
    """The kind of server whose answer had ``headers``: "virtuoso", or "" for any other."""
    return "virtuoso" if "virtuoso" in headers.get("Server", "").lower() else ""


def hinted(text: str, kind: str) -> str:
    """The query ``text`` with the hints it carries for a server of ``kind`` ahead of it (each
    once), as such a server reads them; ``text`` itself for another kind, or when it carries
    none that :data:`ALLOWED` holds."""
    allowed = ALLOWED.get(kind, frozenset())
    found = [
        " ".join(hint.split())
        for server, hint in _LINE.findall(text)
        if server.lower() == kind and " ".join(hint.split()) in allowed
    ]
    return "".join(f"{hint}\n" for hint in dict.fromkeys(found)) + text
