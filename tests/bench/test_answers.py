"""bench.answers, the row-by-row comparison of two versions' answers: run as a user runs it, on
the example pages, it must find two dumps of one store the same and a changed row different."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from support import EXAMPLES, REPO


def answers(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "bench.answers", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )


def test_the_same_store_answers_the_same_and_a_changed_row_is_found(tmp_path: Path) -> None:
    store, asked = tmp_path / "store", tmp_path / "params.json"
    assert answers("build", "--pages", EXAMPLES, "--store", store).returncode == 0
    assert answers("params", "--store", store, "--out", asked).returncode == 0
    questions = json.loads(asked.read_text(encoding="utf-8"))
    assert questions["leaderboard"] and questions["methods-reported-by-paper"]
    first, second = tmp_path / "first.json", tmp_path / "second.json"
    for out in (first, second):
        done = answers("dump", "--store", store, "--params", asked, "--out", out)
        assert done.returncode == 0, done.stderr
    same = answers("compare", first, second)
    assert same.returncode == 0 and "every answer is the same" in same.stdout

    dumped = json.loads(second.read_text(encoding="utf-8"))
    answer = next(a for a in dumped["leaderboard"] if a["rows"])
    answer["rows"][0][answer["vars"].index("value")] = "0.0001"  # one figure changed
    second.write_text(json.dumps(dumped), encoding="utf-8")
    differs = answers("compare", first, second)
    assert differs.returncode == 1
    assert "leaderboard: DIFFERS" in differs.stdout and "first different row" in differs.stdout
    assert "every answer is the same" not in differs.stdout
