"""The "Papers with Code archive" section of BENCHMARKS.md: the numbers of ``python -m
bench.archive`` (see its docstring), kept in a JSON file of their own beside the report."""

from __future__ import annotations

from typing import Any

# The targets for one large file of many sources.
RSS_MB = 1024  # peak RSS at 150,000 results
GROWTH = 2.2  # the 2x file's time over the 1x file's
FLOOR = 3.0  # ingest over the bulk-load floor


def _mmm(s: dict[str, float], digits: int = 1) -> str:
    return f"{s['min']:,.{digits}f} / **{s['median']:,.{digits}f}** / {s['max']:,.{digits}f}"


def archive_section(archive: dict[str, Any] | None) -> list[str]:
    """The section's lines ([] when nothing was measured)."""
    if not archive or not archive.get("sizes"):
        return []
    m, sizes = archive["machine"], archive["sizes"]
    lines = [
        "",
        "## A Papers with Code archive: one file of many sources",
        "",
        f"`{archive['command']}` ({m['date']}, {m['cpus']} cores): one generated "
        "`evaluation-tables.json` (`bench/pwc_archive.py`, seed 1), shaped like the archive, "
        "each leaderboard a source of its own, read incrementally. `benchgraph ingest` of the "
        "file into a fresh store, as a process, against pyoxigraph's `bulk_load` of the same "
        "quads (the floor); min / **median** / max of the runs.",
        "",
        "| scale | leaderboards | results | file MB | quads | runs | ingest s | floor s "
        "| ingest / floor | peak RSS MB | results/s |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for s in sizes:
        lines.append(
            f"| {s['scale']}× | {s['sources']:,} | {s['results']:,} | {s['file_mb']:,.1f} "
            f"| {s['quads']:,} | {s['runs']} | {_mmm(s['ingest_s'])} | {_mmm(s['floor_s'])} "
            f"| {s['ratio_ingest_over_floor']:.2f} | {_mmm(s['peak_rss_mb'], 0)} "
            f"| {s['results_per_s']['median']:,.0f} |"
        )
    lines += ["", *archive_verdicts(sizes)]
    return lines


def archive_verdicts(sizes: list[dict[str, Any]]) -> list[str]:
    """One line per target, from the numbers."""
    found = []
    for s in sizes:
        rss = s["peak_rss_mb"]["max"]
        scaled = rss * 150_000 / s["results"] if s["results"] < 150_000 else rss
        verdict = "met" if scaled <= RSS_MB else "missed"
        found.append(
            f"- Peak RSS at {s['results']:,} results: {rss:,.0f} MB (target ≤ {RSS_MB} MB at "
            f"150,000 results): {verdict}."
        )
        ratio = s["ratio_ingest_over_floor"]
        verdict = "met" if ratio <= FLOOR else f"missed by {ratio / FLOOR:.2f}×"
        found.append(
            f"- Ingest over the floor at {s['scale']}×: {ratio:.2f}× (target ≤ {FLOOR}×): "
            f"{verdict}."
        )
    one = next((s for s in sizes if s["scale"] == 1), None)
    two = next((s for s in sizes if s["scale"] == 2), None)
    if one and two:
        growth = two["ingest_s"]["median"] / one["ingest_s"]["median"]
        verdict = "met" if growth <= GROWTH else f"missed by {growth / GROWTH:.2f}×"
        found.append(
            f"- The 2× file over the 1× file: {growth:.2f}× the time (target ≤ {GROWTH}×): "
            f"{verdict}."
        )
    return found
