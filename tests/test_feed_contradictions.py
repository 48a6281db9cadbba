"""The changes feed says when a new source contradicts a standing figure: pages of
tests/data/claims loaded one after another into a running server (``benchgraph ingest`` through
the server that holds the store, as a user loads them), the feed read over HTTP."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from support import run_cli
from support.live import Live, fetch
from test_feed import feed

from benchgraph import vocab as V

DATA = Path(__file__).parent / "data" / "claims"
SOTA2 = DATA / "sota2-squad11-em.md"  # BERT-Base 80.8, from its own paper
PWC = DATA / "pwc-squad11-em.json"  # BERT-Base 81.2, from the DistilBERT paper
CARD = DATA / "card-bert-base-squad.md"  # BERT-Base 0.809, a model card
CLAIM_PAGE = "page/claim/"


def ingest(store: Path, *paths: Path) -> None:
    """Load ``paths`` with the CLI, in a second of their own: the store records load times to
    the second, and pages loaded in the same second are taken as loaded together (neither
    stands before the other)."""
    time.sleep(1.1)
    done = run_cli("ingest", *map(str, paths), store=store)
    assert done.returncode == 0, done.stderr


def contradictions(live: Live) -> list[Any]:
    """The feed's contradiction entries, once the feed is checked valid Atom."""
    _, parsed, _ = feed(live)
    return [e for e in parsed.entries if [t.term for t in e.tags] == ["contradiction"]]


def agreeing_card(folder: Path) -> Path:
    """A model card that gives BERT-Base's exact match as 0.808: 80.8, as its own paper does."""
    text = CARD.read_text(encoding="utf-8")
    assert text.count("value: 0.809") == 1
    page = folder / "card-agreeing.md"
    page.write_text(text.replace("value: 0.809", "value: 0.808"), encoding="utf-8")
    return page


def served(folder: Path, first: Path) -> Live:
    """A server over a store that holds ``first`` only."""
    store = folder / "store"
    ingest(store, first)
    return Live(store)


def test_a_new_source_that_contradicts_the_headline_is_an_entry(tmp_path: Path) -> None:
    live = served(tmp_path, SOTA2)
    try:
        assert contradictions(live) == []  # one page: nothing to contradict
        ingest(live.store, PWC)
        (entry,) = contradictions(live)
        assert entry.title == (
            "BERT-Base on Question Answering on SQuAD1.1: 81.2 contradicts 80.8 (EM)"
        )
        content = entry.content[0].value
        assert "New: 81.2 (another paper, from Papers with Code evaluation tables: " in content
        assert (
            "Standing: 80.8 (origin paper, from Question Answering on SQuAD1.1), the headline."
            in content
        )
        assert entry.link.startswith(live.url + CLAIM_PAGE)
        claim = V.ID + entry.link.removeprefix(live.url + "page/")
        assert f"Claim: {claim}" in content
        # the claim's page answers, with both figures
        page = fetch(entry.link, Accept="text/html")
        assert page.status == 200 and "81.2" in page.text and "80.8" in page.text
        # dated as the change that brought it, and among the entries newest first
        (added,) = [e for e in feed(live)[1].entries if e.link.endswith("bert-base/em")]
        assert entry.updated == added.updated
        # a page that agrees with the headline adds none
        ingest(live.store, agreeing_card(tmp_path))
        assert [e.id for e in contradictions(live)] == [entry.id]
    finally:
        assert live.stop() == 0


def test_a_new_headline_that_contradicts_the_one_before_is_an_entry(tmp_path: Path) -> None:
    live = served(tmp_path, PWC)
    try:
        assert contradictions(live) == []
        ingest(live.store, SOTA2)
        (entry,) = contradictions(live)  # the Baselines and DistilBERT contradict nothing
        assert entry.title == (
            "BERT-Base on Question Answering on SQuAD1.1: 80.8 contradicts 81.2 (EM)"
        )
        content = entry.content[0].value
        assert "New: 80.8 (origin paper, " in content
        assert "It is now the claim's headline." in content
        assert "Standing: 81.2 (another paper, " in content and "the headline before it" in content
        # the model card's 0.809 is read as 80.9: it does not agree with 80.8 either
        ingest(live.store, CARD)
        titles = sorted(e.title for e in contradictions(live))
        assert titles == [
            "BERT-Base on Question Answering on SQuAD1.1: 0.809 contradicts 80.8 (EM)",
            "BERT-Base on Question Answering on SQuAD1.1: 80.8 contradicts 81.2 (EM)",
        ]
    finally:
        assert live.stop() == 0
