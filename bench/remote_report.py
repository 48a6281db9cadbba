"""The "Remote stores" section of BENCHMARKS.md: the numbers of ``python -m bench.remote`` (see
its docstring), kept in a JSON file of their own beside the report."""

from __future__ import annotations

import math
from typing import Any


def _n(value: float, digits: int = 2) -> str:
    return "—" if math.isnan(value) else f"{value:,.{digits}f}"


def _mmm(s: dict[str, float], digits: int = 2) -> str:
    return f"{_n(s['min'], digits)} / **{_n(s['median'], digits)}** / {_n(s['max'], digits)}"


def remote_section(remote: dict[str, Any] | None) -> list[str]:
    """The section's lines ([] when nothing was measured)."""
    if not remote or not remote.get("sizes"):
        return []
    m = remote["machine"]
    lines = [
        "",
        "## Remote stores: ingest vs each server's bulk loader, named queries on Virtuoso",
        "",
        "`python -m bench.remote` (its docstring says how), on the machine above, from "
        f"{m['date']} (the load average after each server's part is listed below the "
        "table). `benchgraph ingest "
        "--store URL` as a process against each server's own loader of the same quads: what "
        "benchgraph wrote into the Oxigraph server (`benchgraph export --format nquads "
        "--history`). The quads each one left are counted over SPARQL; `same quads` says "
        "whether all agree. Ratio: ingest / loader (medians).",
        "",
        "| pages | results | server | runs | ingest s | loader | loader s | ingest / loader "
        "| quads (ingest / loader) | same quads |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for size in remote["sizes"]:
        lines += [*_ingest_rows(size, "Oxigraph server", size["oxigraph"])]
        lines += [*_ingest_rows(size, "Virtuoso", size["virtuoso"])]
    lines += _export_lines(remote["sizes"])
    lines += _query_lines(remote["sizes"])
    lines += ["", "```", *sorted({s["command"] for s in remote["sizes"]}), "```"]
    return lines


def _ingest_rows(size: dict[str, Any], server: str, part: dict[str, Any]) -> list[str]:
    """A row per loader of ``server`` at one size."""
    if "skipped" in part:
        return [f"| {size['pages']} | {size['results']} | {server} | — | not run: "
                f"{part['skipped']} | | | | | |"]  # fmt: skip
    runs = part["ingest_s"]
    count = len({runs["min"], runs["median"], runs["max"]})
    rows = []
    for loader, measured in part["loaders"].items():
        quads = f"{part['quads']['benchgraph ingest']:,} / {part['quads'][loader]:,}"
        rows.append(
            f"| {size['pages']} | {size['results']} | {server} | {size.get('repeat', count)} "
            f"| {_mmm(runs)} | `{loader}` | {_mmm(measured['s'], 3)} "
            f"| **{_n(measured['ratio'], 1)}×** | {quads} "
            f"| {'yes' if part['same_quads'] else 'NO'} |"
        )
    return rows


def _export_lines(sizes: list[dict[str, Any]]) -> list[str]:
    """The load average after each part, and whether ``benchgraph export`` read the Virtuoso
    store back, per size."""
    lines = [""]
    for size in sizes:
        ox_, vt = size["oxigraph"], size["virtuoso"]
        lines.append(
            f"- {size['pages']} pages, measured from {size['date']}: load average after the "
            f"Oxigraph server's part {ox_['load_average']}, after Virtuoso's "
            f"{vt.get('load_average', '(not run)')}"
        )
        if "export" in vt:
            lines.append(f"  - `benchgraph export --store VIRTUOSO_URL`: {vt['export']}")
    return lines


def _query_lines(sizes: list[dict[str, Any]]) -> list[str]:
    """The named queries on Virtuoso, where they were measured."""
    measured = [s for s in sizes if s.get("queries")]
    if not measured:
        return []
    lines = [
        "",
        "Named queries on Virtuoso: `benchgraph serve --store VIRTUOSO_URL` (GET "
        "`/queries/NAME?param=IRI`; a query without a parameter, which benchgraph caches, at "
        "its `/sparql`, which caches nothing, with the query's defaults written into the text "
        "and the text made distinct by a comment) against Virtuoso's `/sparql` given what "
        "benchgraph sends it (the parameter written into the text, the merged view as "
        "`default-graph-uri`, every page graph as `named-graph-uri` for a query that says "
        "GRAPH). One client, a distinct parameter value per request; p50 in ms. Rows are "
        "checked request by request against `oxigraph serve-read-only` over the Oxigraph "
        "store of the same pages. Ratio: benchgraph / Virtuoso. A query Virtuoso refuses, or "
        "benchgraph cannot answer over it, is listed with the first line of the error.",
        "",
        "| pages | query | n | benchgraph p50 ms | Virtuoso p50 ms | ratio | same rows as "
        "Oxigraph |",
        "|---|---|---|---|---|---|---|",
    ]
    for size in measured:
        for name, row in size["queries"]["queries"].items():
            lines.append(_query_row(size["pages"], name, row))
    lines.append("")
    for size in measured:
        q, warmed = size["queries"], size["queries"]["warmed"]
        said = (
            f"warmed {warmed['warmed']:g} of {warmed['of']:g} parameterless named queries in "
            f"{_n(warmed['seconds'], 1)} s"
            if isinstance(warmed, dict)
            else f"did not warm its named queries: {warmed}"
        )
        lines.append(
            f"- {size['pages']} pages: up to {q['requests']} requests per series (each stopped "
            f"after {q['latency_budget_s']:g} s, at least 3); benchgraph serve {said} before "
            f"the measurements; load average at the end {q['load_average']}"
        )
    return lines


def _query_row(pages: int, name: str, row: dict[str, Any]) -> str:
    if "benchgraph" not in row:  # refused on the first request
        return f"| {pages} | {name} | — | — | — | — | {row['verdict']} |"
    bg, vt = row["benchgraph"], row["virtuoso"]
    same = "yes" if row["same_rows"] else _differs(row)
    return (
        f"| {pages} | {name} | {bg['requests']} | {_n(bg['p50_ms'])} | {_n(vt['p50_ms'])} "
        f"| **{_n(row['ratio_p50'])}×** | {same} |"
    )


def _differs(row: dict[str, Any]) -> str:
    """Which server's rows differ from Oxigraph's, with the row counts of the first request."""
    theirs = row["oxigraph_row_counts"]
    said = [
        f"{who} {row[kind]['row_counts'][0]} rows against Oxigraph's {theirs[0]}"
        for kind, who in (("virtuoso", "fails on Virtuoso:"), ("benchgraph", "benchgraph:"))
        if row[kind]["row_counts"] != theirs
    ]
    return "NO (" + "; ".join(said) + ")"
