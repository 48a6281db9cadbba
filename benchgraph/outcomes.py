"""What writing a page, or withdrawing one, came to: the records the ingest gives and the
command line and the write API report. In the base layer, so that the server reads them
without importing the parsers (it is given the gate that makes them: :class:`Gate`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal, Protocol

from benchgraph import validation
from benchgraph.store import Change, Store

# kept: a version older than the current one, kept as history only. restored: a version kept
# as history made current again. replaced: a source stored under an earlier identity of the
# bytes just loaded, withdrawn (kept as history).
Status = Literal[
    "loaded", "unchanged", "restored", "kept", "refused", "unreadable", "skipped", "replaced"
]
RemovalStatus = Literal["removed", "not found", "not current"]


@dataclass(frozen=True)
class Outcome:
    """What happened to one input."""

    origin: str
    status: Status
    message: str = ""
    results: int = 0
    graph: str | None = None
    findings: tuple[validation.Finding, ...] = ()  # warnings and infos of an accepted page
    warnings: tuple[str, ...] = ()  # what the parser read past on an accepted page
    page: str = ""  # the page's identity, once it is known (loaded or unchanged)
    reasons: tuple[str, ...] = ()  # why it is refused: the parse error, or each violation
    not_a_page: bool = False  # refused (or skipped) because no format recognises it


@dataclass(frozen=True)
class Removal:
    """What happened to one page named: removed (one per page, so a source URL can give
    several), or not found (one per name that names no page in the store). A page named
    again by a later name is ``named_above``: it is listed there, not removed twice."""

    given: str
    status: RemovalStatus
    message: str
    page: str = ""  # the page's identity
    graph: str | None = None
    results: int = 0
    named_above: bool = False


@dataclass(frozen=True)
class Prepared:
    """A page's bytes through the gate: its ``outcome``, the summary line the command line
    would print for it, and the ``change`` that writes it (None: nothing to write)."""

    outcome: Outcome
    summary: str
    change: Change | None = None


class Gate(Protocol):
    """The ingest's gate as the write API takes it (``benchgraph serve`` gives the app
    :class:`ingest.gate.IngestGate`)."""

    def prepare(self, store: Store, data: bytes, origin: str) -> Prepared:
        """Parse, map and validate the page ``data`` (called ``origin``) against ``store``."""
        ...

    def withdraw(self, store: Store, page: str) -> list[Removal]:
        """Withdraw the page whose identity is ``page`` from ``store``, as a removal does."""
        ...
