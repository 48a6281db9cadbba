"""What an ingest reports, counted by outcome: the lines the command prints and its summary
line, which the write API answers with too; and its warnings grouped by kind, so that a person
can read them.

Kinds. A shapes finding's kind is its source shape (``bgsh:Method-origin``). A parser warning
reaches the tally as the text of its :class:`ingest.records.PageWarning` (``FILE: LOCATION:
problem (hint)``, in ``Outcome.warnings``), and its kind is derived from that text: the file and
the location taken off, quoted values replaced by ``…`` and numbers by ``N`` (``row skipped: no
value (…)``). PageWarning has no kind field: the parsers word one problem alike for every row it
hits, and the text is all an Outcome carries.

Once per source. The shapes check each focus node, so what holds for a whole source (it records
no configuration, it names no method's origin paper) comes once per result or method. The tally
folds the findings of one shape, path and message on one source into one item (``all 300
results: has no recorded evaluation configuration …``): listed once with --verbose, counted once
by the folded summary. The shapes stay as they are, each finding on its focus node, and the
validation report stored with the source keeps every one (``benchgraph validate`` lists them).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TextIO

from benchgraph.validation import Finding, compact
from ingest.loader import KEPT, Outcome

# A value a message quotes: 'n/a', "it's" (Python's repr of a text), not an apostrophe.
_QUOTED = re.compile(r"""(?<!\w)(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")(?!\w)""")
# A number, a date or an instant, not the digits of a name (gpt4, v1).
_NUMBER = re.compile(r"(?<![A-Za-z])\d+(?:[.,:+\-T]\d+)*Z?")
# The location a warning's text starts with, once its numbers and quoted values are masked:
# ``line N``, ``line N, column model_name``, ``byte N`` or a path (``results[N].value``).
_LOCATION = re.compile(r"^(?:line N(?:, column [^:]+?)?|byte N|[^\s:]+): ")
_NAMED = 3  # the focus nodes a folded item names


@dataclass
class Group:
    """The warnings (or infos) of one kind: ``count`` of them (for a shape, its focus nodes, of
    kind ``noun``; "" for a parser warning), on ``sources`` sources, said ``items`` times once
    folded, and the first as ``example``."""

    severity: str  # "Warning" or "Info"
    kind: str
    noun: str
    example: str
    count: int = 0
    sources: int = 0
    items: int = 0


def warning_kind(text: str, origin: str) -> str:
    """The kind of the parser warning ``text`` of the file ``origin``: its problem (and hint),
    without the file and the location, quoted values as ``…`` and numbers as ``N``."""
    rest = text[len(origin) + 2 :] if origin and text.startswith(f"{origin}: ") else text
    rest = _NUMBER.sub("N", _QUOTED.sub("…", rest))
    return _LOCATION.sub("", rest, count=1)


class Tally:
    """What an ingest reports: counts; the lines to print (:attr:`listing`: what was refused,
    unreadable or replaced, and, if verbose, the files skipped as no page and each warning and
    info, said once per source); the warnings grouped by kind (:meth:`grouped_lines`); and the
    summary line (:meth:`summary`), which the write API answers with too.

    ``log``: a text file that gets every warning and info as it is added, one a line, none
    folded (the tally itself keeps only the groups, and the listing if verbose).
    """

    def __init__(self, verbose: bool, log: TextIO | None = None) -> None:
        self.verbose = verbose
        self.log = log
        statuses = (
            "loaded", "unchanged", "restored", "kept", "refused", "unreadable", "skipped",
            "replaced",
        )  # fmt: skip
        self.counts = {s: 0 for s in statuses}
        self.results = self.warnings = self.infos = 0
        self.said = {"Warning": 0, "Info": 0}  # warnings and infos, folded once per source
        self.listing: list[str] = []  # messages and, if verbose, each item, folded
        self.groups: dict[tuple[str, str], Group] = {}

    def add(self, o: Outcome) -> None:
        """Count the outcome ``o``, keep its lines, and group its warnings and findings."""
        self.counts[o.status] += 1
        if o.message and (self.verbose or o.status != "skipped"):
            self.listing.append(f"{o.status}: {o.message}\n")
        if o.status in ("loaded", "unchanged", "restored"):
            self.results += o.results
        self.warnings += len(o.warnings)
        self.warnings += sum(1 for f in o.findings if f.severity == "Warning")
        self.infos += sum(1 for f in o.findings if f.severity == "Info")
        self._group(o)

    def _group(self, o: Outcome) -> None:
        """Add the warnings and findings of ``o``, one source, to their groups; list each
        item if verbose, and write each one to the log."""
        seen: set[tuple[str, str]] = set()
        for warning in o.warnings:
            line = f"warning: {warning}\n"
            self._count("Warning", warning_kind(warning, o.origin), "", warning, 1, seen)
            self._say(line)
            if self.log is not None:
                self.log.write(line)
        for found in _folds(o.findings):
            first = found[0]
            item = _item(found, o)
            example = item.split(": ", 1)[1].rstrip("\n")
            kind = compact(first.shape)
            self._count(first.severity, kind, _noun(found), example, len(found), seen)
            self._say(item, first.severity)
            if self.log is not None:
                self.log.writelines(_line(f, o) for f in found)

    def _count(
        self,
        severity: str,
        kind: str,
        noun: str,
        example: str,
        count: int,
        seen: set[tuple[str, str]],
    ) -> None:
        """Count ``count`` of a kind (``seen``: the kinds counted for this source so far)."""
        group = self.groups.setdefault((severity, kind), Group(severity, kind, noun, example))
        group.count += count
        group.items += 1
        if (severity, kind) not in seen:
            seen.add((severity, kind))
            group.sources += 1

    def _say(self, line: str, severity: str = "Warning") -> None:
        """Count an item said once, and list it if verbose."""
        self.said[severity] += 1
        if self.verbose:
            self.listing.append(line)

    def grouped_lines(self) -> list[str]:
        """The warnings, then the infos, grouped by kind, most first: a heading line, then one
        line a kind, with its count, the sources it is on, and its first as an example::

            warnings by kind:
              bgsh:Method-origin: 571 methods on 103 sources, e.g. FILE: source KEY: 3 methods
              (…): has no known origin paper … [bgsh:Method-origin, bg:introducedIn]
              row skipped: no value (…): 2 on 1 source, e.g. FILE: line 7, column …

        Returns no line when nothing was warned of.
        """
        lines: list[str] = []
        for severity in ("Warning", "Info"):
            groups = [g for g in self.groups.values() if g.severity == severity]
            if groups:
                lines.append(f"{severity.lower()}s by kind:\n")
            for g in sorted(groups, key=lambda g: (-g.count, g.kind)):
                lines.append(f"  {g.kind}: {_amount(g)}, e.g. {g.example}\n")
        return lines

    def summary(self, listed: bool, folded: bool = False) -> str:
        """The summary line: how many inputs had each outcome, the results of the pages loaded
        (or unchanged), the warnings and infos; unless ``listed``, that --verbose lists them.
        ``folded``: the warnings and infos counted as :attr:`listing` says them, what holds
        for many nodes of one source once."""
        counts = self.counts
        warnings, infos = self.warnings, self.infos
        if folded:
            warnings, infos = self.said["Warning"], self.said["Info"]
        hint = " (--verbose lists them)" if (warnings or infos) and not listed else ""
        # Only a folder walked can skip a file: a count that is always 0 for files named is
        # left out.
        skipped = f", {counts['skipped']} skipped (not a page)" if counts["skipped"] else ""
        # Only a version older than the current one is kept: 0 in the common case, left out.
        kept = ""
        if counts["restored"]:  # only a rollback restores: 0 in the common case, left out
            kept = f", {counts['restored']} restored (made current again)"
        if counts["kept"]:
            kept += f", {counts['kept']} {KEPT}"
        # Only a store written under earlier identity rules has sources to replace.
        if counts["replaced"]:
            kept += f", {counts['replaced']} replaced (stored under an earlier identity)"
        return (
            f"{counts['loaded']} loaded, {counts['unchanged']} unchanged{kept}, "
            f"{counts['refused']} refused, {counts['unreadable']} unreadable{skipped}; "
            f"{self.results} results in "
            f"the loaded pages; {warnings} warnings, {infos} infos{hint}"
        )


def _folds(findings: Iterable[Finding]) -> list[list[Finding]]:
    """The warnings and infos of one source, those of one shape, path and message together,
    in the order of their first."""
    folds: dict[tuple[str, str, str | None, str], list[Finding]] = {}
    for f in findings:
        if f.severity in ("Warning", "Info"):
            folds.setdefault((f.severity, f.shape, f.path, f.message), []).append(f)
    return list(folds.values())


def _item(found: list[Finding], o: Outcome) -> str:
    """The findings of one fold said once: ``warning: FILE: source KEY: all 300 results:
    MESSAGE [SHAPE, PATH]``, naming the first few focus nodes when they are not all results."""
    first = found[0]
    if len(found) == 1:
        what = f"{first.kind} {first.name}"
    elif first.kind == "result" and len(found) == o.results:
        what = f"all {len(found)} results"
    else:
        names = ", ".join(f.name for f in found[:_NAMED])
        more = f" and {len(found) - _NAMED} more" if len(found) > _NAMED else ""
        what = f"{len(found)} {_noun(found)}s ({names}{more})"
    where = ", ".join(x for x in (compact(first.shape), first.path) if x)
    source = _source(first, o) if len(found) == 1 else _source(None, o)
    return f"{first.severity.lower()}: {first.page}: {source}{what}: {first.message} [{where}]\n"


def _line(f: Finding, o: Outcome) -> str:
    """One finding as the log has it: its text, with its source's key when known."""
    return f"{f.severity.lower()}: {f.page}: {_source(f, o)}{f.describe()}\n"


def _source(f: Finding | None, o: Outcome) -> str:
    """``source KEY: ``, naming the source of the finding ``f`` (the file may hold several),
    unless the finding names it already, or its key is not known."""
    if not o.page or (f is not None and f.kind == "source" and f.name == o.page):
        return ""
    return f"source {o.page}: "


def _noun(found: list[Finding]) -> str:
    """What the focus nodes of a fold are (``result``, ``method``...), ``node`` if several."""
    kinds = {f.kind for f in found}
    return kinds.pop() if len(kinds) == 1 else "node"


def _amount(g: Group) -> str:
    """How many of a group there are, on how many sources: ``571 methods on 103 sources``,
    ``103 sources`` for a shape of the source itself, ``2 on 1 source`` for a parser's."""
    sources = f"{g.sources} source" + ("s" if g.sources != 1 else "")
    if not g.noun:
        return f"{g.count} on {sources}"
    if g.noun == "source":
        return sources
    return f"{g.count} {g.noun}" + ("s" if g.count != 1 else "") + f" on {sources}"
