"""``bench.formats`` on two small files: its part of the report's JSON and its section of the
Markdown are written, agree with each other and with the ingest, and leave the rest of the
report as it was."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from support import REPO, run_cli

from bench import formats

MODEL_INDEX = REPO / "tests/data/model-index/README.md"
SOTA2 = REPO / "tests/data/sota2/nocaps-cider.md"
SECTION = "## Formats: ingest rate per source format"


def test_formats_writes_its_part_and_section_and_keeps_the_rest(tmp_path: Path) -> None:
    out = tmp_path / "BENCHMARKS.md"
    shutil.copy(REPO / "BENCHMARKS.json", out.with_suffix(".json"))
    before = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    before.pop("formats", None)
    out.write_text("# Old\n\n## Discussion\n\nKept as written.\n", encoding="utf-8")
    args = ["--input", str(MODEL_INDEX), "--input", f"sota2={SOTA2}", "--repeat", "1"]
    assert formats.main([*args, "--out", str(out), "--work", str(tmp_path / "work")]) == 0

    data = json.loads(out.with_suffix(".json").read_text(encoding="utf-8"))
    part = data.pop("formats")
    assert {k: v for k, v in data.items() if k != "verdicts"} == {
        k: v for k, v in before.items() if k != "verdicts"
    }
    assert [r["format"] for r in part["rows"]] == ["model-index", "sota2"]
    for row, path in zip(part["rows"], (MODEL_INDEX, SOTA2), strict=True):
        assert row["files"] == row["loaded"] == 1 and row["runs"] == 1
        assert row["results"] == row["parsed_results"] > 0
        once = run_cli("ingest", str(path), store=tmp_path / "check")
        assert f"; {row['results']} results in the loaded pages" in once.stdout
        shutil.rmtree(tmp_path / "check")
        assert row["quads"] > row["results"]
        assert row["ratio_ingest_over_floor"] == (
            row["ingest_s"]["median"] / row["floor_s"]["median"]
        )

    text = out.read_text(encoding="utf-8")
    assert text.count(SECTION) == 1
    assert text.index(SECTION) < text.index("## Targets") < text.index("## Discussion")
    assert text.endswith("## Discussion\n\nKept as written.\n")
    table = text[text.index(SECTION) :].split("\n\n")[3].splitlines()
    assert table[0].startswith("| format | files | results | runs | ingest s | results/s |")
    for line, row in zip(table[2:], part["rows"], strict=True):
        cells = [c.strip() for c in line.strip("|").split("|")]
        assert cells[0] == row["format"] and cells[2] == str(row["results"])
        assert cells[8] == f"**{row['ratio_ingest_over_floor']:,.1f}×**"
    assert part["command"] in text
