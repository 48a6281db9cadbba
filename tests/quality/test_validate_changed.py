"""``benchgraph validate`` re-checks only the pages whose version changed since the last saved
validation (``--all``: every page), and answers as a run over everything does."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest
from support import EXAMPLES, build_store, copy_store, run_cli

from benchgraph import answering, graphs, queries, resources, validated, validation
from benchgraph.store.embedded import EmbeddedStore

LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
ART = EXAMPLES / "sota2-multimodal-generation-on-art500k-test.md"
LAION_GRAPH = graphs.page("sota2/prompt-recovery-on-laion/clip-score")
PRISM = "69aa7c5b6dbb7075b953baa1"


def validate(store: Path, *args: str) -> tuple[int, dict[str, Any]]:
    done = run_cli("validate", "--format", "json", *args, store=store)
    assert done.returncode in (0, 1), done.stderr
    return done.returncode, json.loads(done.stdout)


def verdict(document: dict[str, Any]) -> dict[str, Any]:
    """What a full run and a run over what changed must agree on."""
    keys = ("conforms", "violations", "warnings", "infos", "view")
    return {k: document[k] for k in keys}


def stored_findings(store: Path) -> Counter[tuple[str | None, ...]]:
    """Every finding of the store's stored reports (audit-findings, every page of it)."""
    named = queries.find("audit-findings")
    found: Counter[tuple[str | None, ...]] = Counter()
    with EmbeddedStore(store, read_only=True) as opened:
        rows = list(answering.answer(opened, named, {"limit": "10000"}))
    for row in rows:
        keys = ("source", "severity", "focus", "path", "kind", "message")
        found[tuple(None if row[k] is None else row[k].value for k in keys)] += 1
    return found


@pytest.fixture
def checked(tmp_path: Path) -> Path:
    """The example pages, ingested and validated once, every page, the validation saved."""
    store = build_store(tmp_path / "store", EXAMPLES)
    assert run_cli("validate", "--all", store=store).returncode == 0
    return store


def new_version(tmp_path: Path) -> Path:
    """A newer version of the LAION page: a month later, one value changed."""
    text = LAION.read_text(encoding="utf-8")
    text = text.replace("Data updated: 2026-03-", "Data updated: 2026-04-")
    text = text.replace("| PRISM | 81.7 |", "| PRISM | 81.9 |")
    text = text.replace(
        f"CLIP Score: 81.7. Result ID: {PRISM}", f"CLIP Score: 81.9. Result ID: {PRISM}"
    )
    path = tmp_path / "new" / LAION.name
    path.parent.mkdir()
    path.write_text(text, encoding="utf-8")
    return path


def test_nothing_changed_checks_no_page_and_answers_as_every_page(checked: Path) -> None:
    code, changed = validate(checked)
    every_code, every = validate(checked, "--all", "--no-save")
    assert changed["pages"] == 0 and changed["unchanged"] == 3 and every["pages"] == 3
    assert (code, verdict(changed)) == (every_code, verdict(every))
    _, summary = validate(checked, "--summary")
    _, every_summary = validate(checked, "--summary", "--all", "--no-save")
    assert summary["shapes"] == every_summary["shapes"] and summary["shapes"]


def test_after_changes_only_they_are_checked_and_the_answer_is_every_pages(
    checked: Path, tmp_path: Path
) -> None:
    assert run_cli("ingest", str(new_version(tmp_path)), store=checked).returncode == 0
    assert run_cli("remove", str(ART), store=checked).returncode == 0
    every_store = copy_store(checked, tmp_path / "every")
    code, changed = validate(checked)
    every_code, every = validate(every_store, "--all")
    assert changed["pages"] == 1 and changed["unchanged"] == 1  # LAION; the radar page
    assert (code, verdict(changed)) == (every_code, verdict(every))
    assert stored_findings(checked) == stored_findings(every_store)
    with EmbeddedStore(checked, read_only=True) as opened:
        assert (
            graphs.report(graphs.page("sota2/multimodal-generation-on-art500k-test/clip-i2-score"))
            not in opened.named_graphs()
        )
    _, again = validate(checked, "--summary")  # nothing changed since: from what was saved
    _, every_again = validate(every_store, "--summary", "--all", "--no-save")
    assert again["pages"] == 0 and again["shapes"] == every_again["shapes"]


def test_a_restored_version_is_checked_again(checked: Path, tmp_path: Path) -> None:
    assert run_cli("ingest", str(new_version(tmp_path)), store=checked).returncode == 0
    validate(checked)
    assert run_cli("ingest", str(LAION), store=checked).returncode == 0  # the older again
    code, changed = validate(checked)
    assert changed["pages"] == 1 and code == 0 and changed["view"]["exact"]


def test_the_view_is_checked_over_what_a_changed_page_touches(
    checked: Path, tmp_path: Path
) -> None:
    """A triple of the new version missing from the merged view is found by a run that
    checks only that page, as by a run over everything."""
    assert run_cli("ingest", str(new_version(tmp_path)), store=checked).returncode == 0
    raw = ox.Store(str(checked))
    value = next(
        raw.quads_for_pattern(
            ox.NamedNode(f"{graphs.ID}result/{PRISM}"), None, None, ox.NamedNode(LAION_GRAPH)
        )
    )
    raw.remove(ox.Quad(value.subject, value.predicate, value.object, ox.DefaultGraph()))
    raw.flush()
    del raw
    every_store = copy_store(checked, tmp_path / "every")
    code, changed = validate(checked, "--no-save")
    every_code, every = validate(every_store, "--all", "--no-save")
    assert code == every_code == 1 and changed["pages"] == 1
    assert changed["view"] == every["view"] == {"exact": False, "missing": 1, "extra": 0}


def test_other_shapes_check_every_page(
    checked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shapes = tmp_path / "shapes"
    shutil.copytree(resources.shapes_dir(), shapes)
    with (shapes / "benchgraph.ttl").open("a", encoding="utf-8") as file:
        file.write("\n# a comment: other bytes, the same shapes\n")
    with EmbeddedStore(checked) as store:
        _, report = validation.validate_store(store, save=False, everything=False)
        assert report.rechecked.kept == 3 and not report.pages
        monkeypatch.setattr(resources, "shapes_dir", lambda: shapes)
        _, report = validation.validate_store(store, save=False, everything=False)
        assert len(report.pages) == 3 and report.rechecked.state is None


def test_the_saved_state_says_what_was_checked(checked: Path) -> None:
    with EmbeddedStore(checked, read_only=True) as store:
        state = validated.saved(store)
        held = validated.versions(store)
    assert state is not None and state.shapes == validated.shapes_digest()
    assert {g: s for g, s in state.versions.items() if graphs.is_page(g)} == {
        g: s for g, s in held.items() if graphs.is_page(g)
    }
    assert state.view and state.catalogue and len(held) == 3
