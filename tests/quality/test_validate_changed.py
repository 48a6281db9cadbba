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
from support import EXAMPLES, REPO, build_store, copy_store, run_cli

from benchgraph import (
    answering,
    graphs,
    queries,
    resources,
    store_validation,
    summaries,
    validated,
    validation,
)
from benchgraph import vocab as V
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
        _, report = store_validation.validate_store(store, save=False, everything=False)
        assert report.rechecked.kept == 3 and not report.pages
        monkeypatch.setattr(resources, "shapes_dir", lambda: shapes)
        _, report = store_validation.validate_store(store, save=False, everything=False)
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


# The cross-page checks after a change: run again only for what the changed pages state (and
# what shares a key with it), the other nodes keeping their saved findings. Two pages of one
# benchmark (NoCaps CIDEr and Latency), the Radar sample and a model card citing a paper; each
# check gets a finding from a new version of a page, and each time the findings are those of a
# run over everything.

NOCAPS = REPO / "tests" / "data" / "sota2"
CIDER = "nocaps-cider.md"
LATENCY = "nocaps-latency-page-1.md"
ATTENTION_CARD = """---
model-index:
- name: {name}
  results:
  - task:
      type: text-generation
    dataset:
      type: openai_humaneval
      name: HumanEval
    metrics:
    - name: pass@1
      type: pass@1
      value: {value}%
    source:
      name: {title}
      url: https://arxiv.org/abs/{arxiv}
---
"""
CARD = "card.md"
RADAR = "radar-composet-sample.txt"
PAGES = {
    CIDER: (NOCAPS / CIDER).read_text(encoding="utf-8"),
    LATENCY: (NOCAPS / LATENCY).read_text(encoding="utf-8"),
    CARD: ATTENTION_CARD.format(
        name="Card-7B", value="61.0", title="Attention Is All You Need", arxiv="1706.03762"
    ),
    RADAR: (EXAMPLES / RADAR).read_text(encoding="utf-8"),
}
# Each check: the page changed, what its new version says (old text, new text), and the focus
# nodes the check then finds something on (one on a page left unchanged, when there is one).
CHANGES = {
    "check-metric-units": (
        CIDER,
        [("Lower is better; unit: SECONDS.", "Lower is better; unit: PERCENT.")],
        {"benchmark/image-captioning/nocaps/val/metric/latency"},
    ),
    "check-method-origin-papers": (
        CIDER,
        [
            (
                "CIDEr: 118.0. Result ID: 6c00000000000000000000b2.\n\n[Reporting paper]"
                "(<https://www.sota2.com/research/paper/6b22bb1d1e2f3a4b5c6d7e8f.md>)\n\n"
                "[Method origin paper](<https://www.sota2.com/research/paper/"
                "6b22bb1d1e2f3a4b5c6d7e8f.md>)",
                "CIDEr: 118.0. Result ID: 6c00000000000000000000b2.\n\n[Reporting paper]"
                "(<https://www.sota2.com/research/paper/6b22bb1d1e2f3a4b5c6d7e8f.md>)\n\n"
                "[Method origin paper](<https://www.sota2.com/research/paper/"
                "6b33cc2e2f3a4b5c6d7e8f90.md>)",
            )
        ],
        {"method/blip-3-base"},
    ),
    "check-result-sources": (
        CIDER,
        [
            ("| TinyCap | 88 |", "| TinyCap | 0.042 |"),
            (
                "CIDEr: 88. Result ID: 6c00000000000000000000b5.",
                "CIDEr: 0.042. Result ID: 6c00000000000000000000a1.",
            ),
        ],
        {"result/6c00000000000000000000a1"},
    ),
    "check-possible-duplicate-methods": (
        CIDER,
        [("Prefix \\*Tuned\\* GPT", "Zero-Cap")],
        {"method/zerocap", "method/zero-cap"},
    ),
    "check-possible-duplicate-papers": (
        RADAR,  # the Radar page cites the card's paper under a title of its own
        [("CompoSET paper v1 ·", "Attention is all you need ·")],
        {"paper/arxiv-1706.03762", "paper/attention-is-all-you-need"},
    ),
}


@pytest.fixture(scope="module")
def two_benchmark_pages(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store of the NoCaps pages, the Radar sample and a model card, validated once, every
    page."""
    folder = tmp_path_factory.mktemp("cross")
    pages = folder / "pages"
    pages.mkdir()
    for name, text in PAGES.items():
        (pages / name).write_text(text, encoding="utf-8")
    store = build_store(folder / "store", pages)
    assert run_cli("validate", "--all", store=store).returncode == 0
    return store


def write_page(folder: Path, name: str, text: str) -> Path:
    """``text`` as the page ``name`` (the file a version of the page is read from)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text, encoding="utf-8")
    return path


def across(findings: list[validation.Finding]) -> list[dict[str, str | None]]:
    return [f.as_dict() for f in findings if f.page == validation.ACROSS_PAGES]


def same_as_everything(store: Path, check: str) -> set[str]:
    """Validate what changed (saving it), then every page without saving; the cross-page
    findings, verdict and counts must be the same. The focus nodes ``check`` finds."""
    with EmbeddedStore(store) as opened:
        conforms, changed = store_validation.validate_store(opened, everything=False)
        _, every = store_validation.validate_store(opened, save=False, everything=True)
    assert changed.rechecked.nodes is not None and changed.rechecked.nodes > 0
    assert every.rechecked.nodes is None
    assert across(changed.cross_page) == across(every.cross_page)
    assert conforms == every.conforms
    assert [changed.count(s) for s in validation.SEVERITIES] == [
        every.count(s) for s in validation.SEVERITIES
    ]
    _, listed = validate(store, "--all", "--no-save")  # as the command says it
    assert across(changed.cross_page) == [
        f for f in listed["findings"] if f["page"] == validation.ACROSS_PAGES
    ]
    return {
        f.focus.removeprefix(graphs.ID)
        for f in changed.cross_page
        if f.shape == validation.BGSH + check
    }


@pytest.mark.parametrize("check", sorted(CHANGES))
def test_the_cross_page_checks_run_again_for_what_changed(
    check: str, two_benchmark_pages: Path, tmp_path: Path
) -> None:
    store = copy_store(two_benchmark_pages, tmp_path / "store")
    name, edits, focus = CHANGES[check]
    text = PAGES[name]
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    changed = write_page(tmp_path / "new", name, text)
    before = write_page(tmp_path / "old", name, PAGES[name])
    with EmbeddedStore(store, read_only=True) as opened:
        saved = validated.saved(opened)
    assert saved is not None and not saved.cross_page  # none found at first

    def ingest(path: Path) -> None:
        done = run_cli("ingest", str(path), store=store)
        assert done.returncode == 0, done.stdout + done.stderr

    ingest(changed)  # a new version: the finding appears
    assert same_as_everything(store, check) == focus
    ingest(before)  # the earlier version again (the partner renamed back): it goes
    assert same_as_everything(store, check) == set()
    ingest(changed)  # and comes back
    assert same_as_everything(store, check) == focus
    removed = run_cli("remove", str(changed), store=store)  # withdrawn: it goes
    assert removed.returncode == 0, removed.stdout + removed.stderr
    assert same_as_everything(store, check) == set()
    ingest(changed)  # restored
    assert same_as_everything(store, check) == focus


def test_saved_cross_page_findings_of_other_queries_are_not_kept(
    checked: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The saved cross-page findings stand for the nodes not run again only if the same
    queries found them: once a check query changes, the checks run over everything."""
    assert run_cli("ingest", str(new_version(tmp_path)), store=checked).returncode == 0
    folder = tmp_path / "queries"
    shutil.copytree(resources.queries_dir(), folder)
    with (folder / "check-metric-units.rq").open("a", encoding="utf-8") as file:
        file.write("# a comment: other bytes\n")
    with EmbeddedStore(checked) as store:
        _, report = store_validation.validate_store(store, save=False, everything=False)
        assert report.rechecked.nodes  # what the new version states, old and new
        monkeypatch.setattr(resources, "queries_dir", lambda: folder)
        _, report = store_validation.validate_store(store, save=False, everything=False)
        assert len(report.pages) == 1 and report.rechecked.nodes is None


def test_after_a_change_only_the_changed_pages_summaries_are_compared_again(
    checked: Path, tmp_path: Path
) -> None:
    """The audit summaries of the pages that did not change were right at the saved run, as the
    catalogue was: a run over what changed compares the changed pages' again (and finds one
    wrong), and leaves the others to ``--all``, which compares every one."""
    assert run_cli("ingest", str(new_version(tmp_path)), store=checked).returncode == 0
    with EmbeddedStore(checked, read_only=True) as opened:
        current = summaries.current(opened)
    raw = ox.Store(str(checked))
    damaged = []
    for version, graph in current.items():  # the LAION page (changed), the radar page (not)
        if graph == LAION_GRAPH or "radar" in graph:
            found = list(
                raw.quads_for_pattern(
                    ox.NamedNode(version),
                    ox.NamedNode(V.summaryResults),
                    None,
                    ox.NamedNode(graphs.VERSIONS),
                )
            )
            assert len(found) == 1
            raw.remove(found[0])
            damaged.append(graphs.key_of(graph))
    raw.flush()
    del raw
    assert len(damaged) == 2
    every_store = copy_store(checked, tmp_path / "every")
    changed = run_cli("validate", "--no-save", store=checked)
    every = run_cli("validate", "--all", "--no-save", store=every_store)
    assert changed.returncode == every.returncode == 1
    assert "the audit summaries of 1 current versions differ" in changed.stderr
    assert "sota2/prompt-recovery-on-laion/clip-score" in changed.stderr
    assert "the audit summaries of 2 current versions differ" in every.stderr
