"""The archive benchmark at a small size: it ingests the generated file as a process, counts
what the command loaded, measures the floor on the same quads, and its report section and
verdicts read those numbers."""

from __future__ import annotations

from pathlib import Path

from bench.archive import measure
from bench.archive_report import archive_section, archive_verdicts


def test_the_archive_is_measured_against_its_floor(tmp_path: Path) -> None:
    numbers = measure(30, tmp_path, repeat=1)
    assert numbers["sources"] == numbers["leaderboards"] == 30
    assert numbers["results"] == numbers["file_results"] > 30 * 5
    assert numbers["quads"] > numbers["results"] * 5
    assert numbers["runs"] == 1 and numbers["ingest_s"]["median"] > 0
    assert numbers["floor_s"]["median"] > 0 and numbers["peak_rss_mb"]["max"] > 10
    section = archive_section({
        "machine": {"date": "2026-12-03 00:00 UTC", "cpus": 2},
        "command": "python -m bench.archive",
        "sizes": [{"scale": 1, **numbers}],
    })  # fmt: skip
    assert section[1] == "## A Papers with Code archive: one file of many sources"
    row = next(line for line in section if line.startswith("| 1× |"))
    assert f"| {numbers['results']:,} |" in row


def test_the_verdicts_follow_the_numbers() -> None:
    def size(scale: int, seconds: float, rss: float, ratio: float) -> dict[str, object]:
        return {
            "scale": scale,
            "results": 150_000 * scale,
            "ingest_s": {"min": seconds, "median": seconds, "max": seconds},
            "peak_rss_mb": {"min": rss, "median": rss, "max": rss},
            "ratio_ingest_over_floor": ratio,
        }

    met = archive_verdicts([size(1, 100, 400, 2.5), size(2, 210, 450, 2.6)])
    assert all(line.endswith(": met.") for line in met), met
    missed = archive_verdicts([size(1, 100, 1100, 3.3), size(2, 250, 450, 2.6)])
    assert [line.rsplit(": ", 1)[1] for line in missed] == [
        "missed.", "missed by 1.10×.", "met.", "met.", "missed by 1.14×.",
    ]  # fmt: skip
