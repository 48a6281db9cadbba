"""Two pages whose results carry dates of their own, for the charts over time: the ART500K seed
(higher is better) and the LAION example with its metric made lower-is-better; and what the
store says of their dated results. (The seed pages date every result of a page alike, by the
page, or not at all.)"""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pyoxigraph as ox

from benchgraph import vocab as V
from support import EXAMPLES, SEEDS, build_store

ART = "benchmark/multimodal-generation/art500k/test"
LAION = "benchmark/prompt-recovery/laion"
# Result dates given to the pages' rows (a row left "Not recorded" is dated by its page).
ART_DATES = {"Emu3 | 62.11": "2023-09-27", "Chameleon | 61.19": "2024-05-16",
             "Janus | 59.32": "2024-10-17", "GRAPHGPT-O | 77.62": "2024-10-01"}  # fmt: skip
LAION_DATES = {"PH2P | 82.6": "2023-01-05", "EDITOR | 82.6": "2023-06-01",
               "PRISM | 81.7": "2023-03-01", "VGD | 76.9": "2024-02-01",
               "PEZ | 75.6": "2023-11-01", "STEPS | 72.2": "2024-08-01"}  # fmt: skip
# The results of a benchmark's primary metric in the cohort "configuration not recorded", with
# their dates and values, as the store holds them.
DATED = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
SELECT ?b ?r ?on ?v ?text WHERE {
  ?page bg:primaryMetric ?m . ?r bg:benchmark ?b ; bg:metric ?m ; bg:value ?v ;
     bg:publishedValue ?text .
  OPTIONAL { ?r bg:reportedOn ?on }
  FILTER NOT EXISTS { ?r bg:configuration ?c }
}"""


def _dated(text: str, dates: dict[str, str]) -> str:
    for row, when in dates.items():
        text = text.replace(f"| {row} | Not recorded |", f"| {row} | {when} |")
    return text


def build_dated_store(folder: Path) -> Path:
    """A store at ``folder`` of the two pages with their rows dated (folder/pages holds them)."""
    pages = folder / "pages"
    pages.mkdir(parents=True)
    art = (SEEDS / "004_6734d08896cb7612.txt").read_text(encoding="utf-8")
    (pages / "art500k.md").write_text(_dated(art, ART_DATES), encoding="utf-8")
    laion = (EXAMPLES / "sota2-prompt-recovery-on-laion.md").read_text(encoding="utf-8")
    laion = laion.replace("| Direction | Higher is better |", "| Direction | Lower is better |")
    laion = laion.replace("CLIP%20Score>): Higher is better", "CLIP%20Score>): Lower is better")
    (pages / "laion.md").write_text(_dated(laion, LAION_DATES), encoding="utf-8")
    return build_store(folder / "store", pages)


def stored_points(store: Path, benchmark: str) -> list[tuple[str, date | None, float, str]]:
    """(result, date or None, value, published text) of the cohort, read from the store."""
    found = ox.Store.read_only(str(store)).query(
        DATED,
        substitutions={ox.Variable("b"): ox.NamedNode(V.ID + benchmark)},
    )
    return [
        (r["r"].value, date.fromisoformat(r["on"].value) if r["on"] else None,
         float(r["v"].value), r["text"].value)
        for r in found  # type: ignore[union-attr]
    ]  # fmt: skip


def running_best(points: list[tuple[str, date | None, float, str]], lower: bool) -> list[str]:
    """The results that beat every result dated before them (one per date at most)."""
    best: float | None = None
    found = []
    for result, _, value, _ in sorted(
        (p for p in points if p[1] is not None), key=lambda p: (p[1], p[2] if lower else -p[2])
    ):
        if best is None or (value < best if lower else value > best):
            best = value
            found.append(result)
    return found
