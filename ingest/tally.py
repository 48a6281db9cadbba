"""What an ingest reports, counted by outcome: the lines the command prints and its summary
line, which the write API answers with too."""

from __future__ import annotations

from ingest.loader import KEPT, Outcome


class Tally:
    """What an ingest reports: counts, and the lines to print (messages and the parser's
    warnings; the shapes' findings and the files skipped as no page, if verbose), and the
    summary line (:meth:`summary`), which the write API answers with too."""

    def __init__(self, verbose: bool) -> None:
        self.verbose = verbose
        statuses = ("loaded", "unchanged", "kept", "refused", "unreadable", "skipped", "replaced")
        self.counts = {s: 0 for s in statuses}
        self.results = self.warnings = self.infos = 0
        self.lines: list[str] = []

    def add(self, o: Outcome) -> None:
        self.counts[o.status] += 1
        if o.message and (self.verbose or o.status != "skipped"):
            self.lines.append(f"{o.status}: {o.message}\n")
        self.lines.extend(f"warning: {warning}\n" for warning in o.warnings)
        if self.verbose:
            self.lines.extend(f.text() + "\n" for f in o.findings)
        if o.status in ("loaded", "unchanged"):
            self.results += o.results
        self.warnings += len(o.warnings)
        self.warnings += sum(1 for f in o.findings if f.severity == "Warning")
        self.infos += sum(1 for f in o.findings if f.severity == "Info")

    def summary(self, listed: bool) -> str:
        """The summary line: how many inputs had each outcome, the results of the pages loaded
        (or unchanged), the warnings and infos; unless ``listed``, that --verbose lists them."""
        counts = self.counts
        hint = " (--verbose lists them)" if (self.warnings or self.infos) and not listed else ""
        # Only a folder walked can skip a file: a count that is always 0 for files named is
        # left out.
        skipped = f", {counts['skipped']} skipped (not a page)" if counts["skipped"] else ""
        # Only a version older than the current one is kept: 0 in the common case, left out.
        kept = ""
        if counts["kept"]:
            kept = f", {counts['kept']} {KEPT}"
        # Only a store written under earlier identity rules has sources to replace.
        if counts["replaced"]:
            kept += f", {counts['replaced']} replaced (stored under an earlier identity)"
        return (
            f"{counts['loaded']} loaded, {counts['unchanged']} unchanged{kept}, "
            f"{counts['refused']} refused, {counts['unreadable']} unreadable{skipped}; "
            f"{self.results} results in "
            f"the loaded pages; {self.warnings} warnings, {self.infos} infos{hint}"
        )
