"""The store as it was: leaderboards, a paper's results and the benchmarks as of a date, and
``changes``, what changed between two dates.

An as-of answer is checked against the answer of a store that was given only the versions
current at that date, so that it says what the store said then, not what the code thinks."""

from __future__ import annotations

import json
import shutil
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from support import EXAMPLES, run_cli
from support.live import Live
from test_history import (
    ADDED,
    LAION,
    PAPER,
    PEZ,
    PRISM,
    STEPS,
    configuration_changed,
    dated,
    ingest,
    result_added,
    result_removed,
    value_changed,
    write,
)

from benchgraph import answering, iris, queries
from benchgraph.store.embedded import EmbeddedStore

ART500K = EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md"  # updated 2026-02-26
BENCHMARK = "Prompt Recovery on LAION"
# When each version of the LAION page was updated: the example (March), then one a month.
MONTHS = (3, 4, 5, 6, 7)
# Moments that fall before, between and after the versions (and the other page's one).
MOMENTS = ("2026-01-31", "2026-02-27", "2026-03-06T07:08:17.938Z", "2026-04-15", "2026-05-06",
           "2026-06-30T23:59:59Z", "2026-08-01")  # fmt: skip


@pytest.fixture(scope="module")
def five(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """The example page and four later versions, a month apart: a value changed, a result
    added, a result removed, a configuration changed, each against the version before."""
    tmp_path = tmp_path_factory.mktemp("versions")
    text = LAION.read_text(encoding="utf-8")
    texts = [text]
    for change in (value_changed, result_added, result_removed, configuration_changed):
        texts.append(change(texts[-1]))
    paths = [LAION]
    for number, (body, month) in enumerate(zip(texts[1:], MONTHS[1:], strict=True), start=2):
        paths.append(write(tmp_path, f"v{number}.md", dated(body, month)))
    return paths


def answer(store_dir: Path, name: str, **values: str) -> list[dict[str, str]]:
    """The rows of the named query ``name`` on the store, each cell as its text."""
    with EmbeddedStore(store_dir, read_only=True) as store:
        found = answering.answer(store, queries.find(name), values)
        variables = [v.value for v in found.variables]  # type: ignore[union-attr]
        return [
            {n: row[n].value for n in variables if row[n] is not None}
            for row in found  # type: ignore[union-attr]
        ]


def current_at(day: str, five: list[Path]) -> list[Path]:
    """The files a store given only the versions current at ``day`` holds."""
    when = day[:10]
    laion = [p for p, m in zip(five, MONTHS, strict=True) if f"2026-{m:02d}-06" <= when]
    if day == "2026-03-06T07:08:17.938Z":
        laion = [LAION]  # the first version's own instant
    return ([ART500K] if when >= "2026-02-26" else []) + laion[-1:]


@pytest.fixture(scope="module")
def kept(tmp_path_factory: pytest.TempPathFactory, five: list[Path]) -> Path:
    """A store given the other page, then the five versions of the LAION page in order (the
    tests only read it: one that writes works on a copy)."""
    store_dir = tmp_path_factory.mktemp("kept") / "store"
    for path in (ART500K, *five):
        ingest(store_dir, path)
    return store_dir


@pytest.mark.parametrize("day", MOMENTS)
def test_as_of_a_date_answers_what_a_store_of_the_versions_then_answers(
    kept: Path, five: list[Path], tmp_path: Path, day: str
) -> None:
    then = tmp_path / "then"
    files = current_at(day, five)
    if files:
        ingest(then, *files)
    else:
        EmbeddedStore(then).close()
    for name, values in (
        ("leaderboard", {"benchmark": BENCHMARK}),
        ("results-reported-by-paper", {"paper": PAPER}),
        ("benchmarks", {}),
    ):
        try:
            expected = answer(then, name, **values)
        except queries.UnknownName:  # a store that never held the benchmark or the paper
            expected = []
        assert answer(kept, name, asOf=day, **values) == expected, (name, day)


def test_as_of_before_the_first_version_there_is_no_leaderboard(kept: Path) -> None:
    assert answer(kept, "leaderboard", benchmark=BENCHMARK, asOf="2026-03-05") == []
    assert answer(kept, "leaderboard", benchmark=BENCHMARK, asOf="2026-03-06")  # through its end


def test_without_as_of_the_answers_are_the_current_ones(
    kept: Path, five: list[Path], tmp_path: Path
) -> None:
    now = tmp_path / "now"
    ingest(now, ART500K, five[-1])
    for name, values in (("leaderboard", {"benchmark": BENCHMARK}), ("benchmarks", {})):
        assert answer(kept, name, **values) == answer(now, name, **values)


def changes(store_dir: Path, **values: str) -> list[tuple[str, str, str, str]]:
    rows = answer(store_dir, "changes", **values)
    return [
        (
            r["change"],
            r["result"].rsplit("/", 1)[1],
            r.get("oldValue", ""),
            r.get("newValue", ""),
        )
        for r in rows
    ]


def test_changes_between_two_dates_are_each_result_added_removed_or_changed(kept: Path) -> None:
    between = {
        ("2026-03-31", "2026-04-30"): [("changed", PRISM, "81.7", "81.9")],
        ("2026-04-30", "2026-05-31"): [("added", ADDED, "", "70.1")],
        ("2026-05-31", "2026-06-30"): [("removed", STEPS, "72.2", "")],
        ("2026-06-30", "2026-07-31"): [("changed", PEZ, "75.6", "75.6")],  # its configuration
        ("2026-04-30", "2026-04-30"): [],
    }
    for (since, until), expected in between.items():
        assert changes(kept, since=since, until=until) == expected, (since, until)
    # From before the first version to now: every result of the last one is added, and so are
    # the other page's (updated in February); on the LAION benchmark only its own.
    since_january = changes(kept, since="2026-01-31")
    laion_now = changes(kept, since="2026-01-31", benchmark=BENCHMARK)
    assert {c for c, *_ in since_january} == {"added"}
    assert len(laion_now) == 6 and len(since_january) > len(laion_now)
    assert changes(kept, since="2026-08-01") == []


def test_a_change_row_names_both_versions_and_when_it_changed(kept: Path, five: list[Path]) -> None:
    from test_history import sha16

    (row,) = answer(kept, "changes", since="2026-03-31", until="2026-04-30")
    key = "sota2/prompt-recovery-on-laion/clip-score"
    assert row["oldVersion"] == iris.version(key, sha16(five[0]))
    assert row["newVersion"] == iris.version(key, sha16(five[1]))
    assert row["oldModified"].startswith("2026-03-06T07:08:17.9")
    assert row["changedAt"] == row["newModified"] and row["newModified"].startswith("2026-04-06")
    assert row["methodLabel"] == "PRISM" and row["benchmarkLabel"] == BENCHMARK


def test_a_result_removed_from_a_page_that_goes_on_names_the_version_that_removed_it(
    kept: Path, five: list[Path]
) -> None:
    """It changed when the page's next version left it out, not when the version before
    stated it; and a result added to a page names the version that lacked it."""
    from test_history import sha16

    key = "sota2/prompt-recovery-on-laion/clip-score"
    (removed,) = answer(kept, "changes", since="2026-05-31", until="2026-06-30")
    assert removed["change"] == "removed" and "newValue" not in removed
    assert removed["newVersion"] == iris.version(key, sha16(five[3]))
    assert removed["changedAt"] == removed["newModified"]
    assert removed["changedAt"].startswith("2026-06-06")
    (added,) = answer(kept, "changes", since="2026-04-30", until="2026-05-31")
    assert added["change"] == "added" and "oldValue" not in added
    assert added["oldVersion"] == iris.version(key, sha16(five[1]))
    assert added["changedAt"].startswith("2026-05-06")
    # With two pages changed, each row still comes once (not once per version of the other).
    rows = [(r["result"], r["change"]) for r in answer(kept, "changes", since="2026-01-31")]
    assert len(rows) == len(set(rows)) == 12


def test_an_older_version_arriving_late_answers_as_of_its_own_date(
    tmp_path: Path, five: list[Path]
) -> None:
    store_dir = tmp_path / "late"
    ingest(store_dir, five[0])
    ingest(store_dir, five[2])
    assert "kept as history" in ingest(store_dir, five[1])
    values = {v["methodLabel"]: v["value"] for v in answer(store_dir, "leaderboard",
              benchmark=BENCHMARK, asOf="2026-04-15")}  # fmt: skip
    assert values["PRISM"] == "81.9" and "NEWM" not in values
    assert changes(store_dir, since="2026-04-15") == [("added", ADDED, "", "70.1")]
    assert changes(store_dir, since="2026-03-31", until="2026-04-30") == [
        ("changed", PRISM, "81.7", "81.9")
    ]


def test_a_withdrawn_page_is_there_as_of_before_its_withdrawal_and_gone_after(
    kept: Path, five: list[Path], tmp_path: Path
) -> None:
    kept = Path(shutil.copytree(kept, tmp_path / "store"))
    done = run_cli("remove", str(five[-1]), store=kept)
    assert done.returncode == 0, done.stderr
    assert answer(kept, "leaderboard", benchmark=BENCHMARK, asOf="2026-08-01")
    assert answer(kept, "leaderboard", benchmark=BENCHMARK, asOf="2099-01-01") == []
    gone = answer(kept, "changes", since="2026-08-01")
    assert {r["change"] for r in gone} == {"removed"} and len(gone) == 6
    assert all("newVersion" not in r and r["changedAt"] > "2026-11" for r in gone)


def fetch(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=120) as reply:
            return reply.status, json.loads(reply.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def test_as_of_and_changes_through_the_server(kept: Path) -> None:
    expected = {
        "leaderboard": answer(kept, "leaderboard", benchmark=BENCHMARK, asOf="2026-04-15"),
        "changes": answer(kept, "changes", since="2026-03-31", until="2026-04-30"),
    }
    live = Live(kept)
    try:
        for name, values in (
            ("leaderboard", {"benchmark": BENCHMARK, "asOf": "2026-04-15"}),
            ("changes", {"since": "2026-03-31", "until": "2026-04-30"}),
        ):
            status, document = fetch(f"{live.url}queries/{name}?{urlencode(values)}")
            assert status == 200, document
            rows = [{k: v["value"] for k, v in b.items()} for b in document["results"]["bindings"]]
            assert rows == expected[name], name
        status, document = fetch(f"{live.url}queries/leaderboard?benchmark=x&asOf=June")
        assert status == 400 and document["parameter"] == "asOf", document
        assert "is not a valid moment" in document["error"] and document["ok"] is False
        status, document = fetch(f"{live.url}queries/changes")
        assert status == 400 and document["parameter"] == "since", document
        # A command on the served store goes through the server, and answers alike.
        done = run_cli("query", "leaderboard", "--param", f"benchmark={BENCHMARK}", "--param",
                       "asOf=2026-04-15", "--format", "json", store=kept)  # fmt: skip
        assert done.returncode == 0, done.stderr
        bindings = json.loads(done.stdout)["results"]["bindings"]
        assert [{k: v["value"] for k, v in b.items()} for b in bindings] == expected["leaderboard"]
    finally:
        assert live.stop() == 0


def test_a_version_restored_then_withdrawn_is_gone_after_its_withdrawal(
    tmp_path: Path, five: list[Path]
) -> None:
    store_dir = tmp_path / "restored"
    ingest(store_dir, five[0])
    ingest(store_dir, five[1])
    assert "current again" in ingest(store_dir, five[0])
    done = run_cli("remove", str(five[0]), store=store_dir)
    assert done.returncode == 0, done.stderr
    assert answer(store_dir, "leaderboard", benchmark=BENCHMARK, asOf="2099-01-01") == []
    assert changes(store_dir, since="2099-01-01") == []
    assert {c for c, *_ in changes(store_dir, since="2026-04-30")} == {"removed"}
