"""Planning hints a query carries for one kind of server (benchgraph/store/pragmas.py): sent to
that server only, and only those allowed."""

from __future__ import annotations

from email.message import Message

from benchgraph import queries
from benchgraph.store import pragmas

ORDER = 'define sql:select-option "order"'


def _headers(server: str) -> Message:
    headers = Message()
    headers["Server"] = server
    return headers


def test_the_server_kind_is_read_from_the_server_header() -> None:
    assert pragmas.server_kind(_headers("Virtuoso/07.20.3229 (Linux) x86_64")) == "virtuoso"
    assert pragmas.server_kind(_headers("Oxigraph/0.5.2")) == ""
    assert pragmas.server_kind(Message()) == ""


def test_a_hint_goes_ahead_of_the_query_for_its_server_only() -> None:
    text = f"# virtuoso: {ORDER}\nSELECT * WHERE {{ ?s ?p ?o }}"
    assert pragmas.hinted(text, "virtuoso") == f"{ORDER}\n{text}"
    assert pragmas.hinted(text, "") == text


def test_a_hint_not_allowed_stays_a_comment() -> None:
    text = '# virtuoso: define get:soft "replace"\nSELECT * WHERE { ?s ?p ?o }'
    assert pragmas.hinted(text, "virtuoso") == text


def test_the_leaderboard_asks_virtuoso_for_its_join_order_as_written() -> None:
    text = queries.find("leaderboard").text
    assert pragmas.hinted(text, "virtuoso").startswith(ORDER + "\n")
