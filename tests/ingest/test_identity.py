"""A source's identity names which source it is, never what it says: two sources never share
one, the same source reached another way is recognised, and a result holds one value."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyoxigraph as ox
import pytest
from support import EXAMPLES, REPO, SEEDS, generate_corpus, run_cli

from bench.pwc_archive import write_archive
from benchgraph import graphs, identities, versions
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import Batch, ingest_files, prepare_page
from ingest.reading import read_page
from ingest.walking import Input, expand
from ingest.writer import Write

CARDS = REPO.parent / "shared" / "data" / "hf_model_index"
DATA = REPO / "tests" / "data" / "model-index"
PHIND = [DATA / "Phind-CodeLlama-34B-v1.md", DATA / "Phind-CodeLlama-34B-v2.md"]
PPO = [CARDS / "cs577__0xRiku__ppo-LunarLander-v2.yaml", CARDS / "cs577__mhyatt000__YOLOv5.yaml"]
LAION = EXAMPLES / "sota2-prompt-recovery-on-laion.md"
NEEDS_CARDS = pytest.mark.skipif(
    not CARDS.is_dir(),
    reason="the model cards (../shared/data/hf_model_index) are not beside this checkout",
)
TWO_VALUES = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
SELECT ?result (COUNT(DISTINCT ?value) AS ?values) WHERE { ?result bg:value ?value }
GROUP BY ?result HAVING (COUNT(DISTINCT ?value) > 1)"""


def pages(store: EmbeddedStore) -> set[str]:
    return {graphs.key_of(g) for g in store.named_graphs() if graphs.is_page(g)}


def two_values(store: EmbeddedStore) -> list[str]:
    answer = store.query(TWO_VALUES)
    assert isinstance(answer, ox.QuerySolutions)
    return [str(row["result"]) for row in answer]


def load(store: EmbeddedStore, *paths: Path) -> list[str]:
    """Ingest ``paths`` as the command does: folders walked, each card's repository found."""
    files = [item for item in expand(paths) if isinstance(item, Input)]
    return [o.status for o in ingest_files(store, files, now="2026-12-01T00:00:00Z")]


@NEEDS_CARDS
@pytest.mark.parametrize("together", [True, False], ids=["one batch", "one after the other"])
def test_two_cards_that_call_their_model_ppo_are_two_sources(
    tmp_path: Path, together: bool
) -> None:
    with EmbeddedStore(tmp_path / "store") as store:
        if together:
            assert load(store, *PPO) == ["loaded", "loaded"]
        else:
            assert [load(store, card) for card in PPO] == [["loaded"], ["loaded"]]
        keys = pages(store)
        assert len(keys) == 2 and all(k.startswith("model-index/sha256-") for k in keys), keys
        assert two_values(store) == []


@pytest.mark.parametrize("together", [True, False], ids=["one batch", "one after the other"])
def test_phind_v1_and_v2_are_two_sources_and_keep_both_figures(
    tmp_path: Path, together: bool
) -> None:
    with EmbeddedStore(tmp_path / "store") as store:
        if together:
            assert load(store, *PHIND) == ["loaded", "loaded"]
        else:
            assert [load(store, card) for card in PHIND] == [["loaded"], ["loaded"]]
        answer = store.query(
            "PREFIX bg: <https://w3id.org/benchgraph/ns#> "
            "SELECT ?v WHERE { ?r bg:value ?v } ORDER BY ?v"
        )
        assert isinstance(answer, ox.QuerySolutions)
        assert [row["v"].value for row in answer] == ["67.6", "73.8"]


@NEEDS_CARDS
def test_every_shared_card_is_a_source_of_its_own_in_one_batch_and_one_by_one(
    tmp_path: Path,
) -> None:
    cards = sorted(CARDS.iterdir())
    with EmbeddedStore(tmp_path / "batch") as store:
        statuses = load(store, *cards)
        together = pages(store)
        assert two_values(store) == []
    with EmbeddedStore(tmp_path / "single") as store:
        for card in cards:
            load(store, card)
        assert pages(store) == together
    loaded = statuses.count("loaded")
    assert loaded == len(together) and loaded >= len(cards) - 10, statuses
    assert "unchanged" not in statuses


def test_the_repository_comes_from_the_cache_the_folder_or_a_manifest(tmp_path: Path) -> None:
    v1, v2 = PHIND
    cached = tmp_path / "hub" / "models--Phind--Phind-CodeLlama-34B-v2" / "snapshots" / "5e1b3"
    cached.mkdir(parents=True)
    shutil.copy(v2, cached / "README.md")
    folder = tmp_path / "cards" / "Phind" / "Phind-CodeLlama-34B-v1"
    folder.mkdir(parents=True)
    shutil.copy(v1, folder / "README.md")
    listed = tmp_path / "listed"
    listed.mkdir()
    shutil.copy(v1, listed / "first.md")
    (listed / "benchgraph-sources.yml").write_text(
        "first.md: {repository: Phind/Phind-CodeLlama-34B-v1, revision: main}\n", "utf-8"
    )
    with EmbeddedStore(tmp_path / "store") as store:
        assert load(store, cached / "README.md", tmp_path / "cards") == ["loaded", "loaded"]
        assert pages(store) == {
            "model-index/Phind/Phind-CodeLlama-34B-v2",
            "model-index/Phind/Phind-CodeLlama-34B-v1",
        }
    # The same card, named in a folder's manifest, is the same source: the same bytes, unchanged.
    done = run_cli("ingest", str(listed), store=tmp_path / "store")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("0 loaded, 1 unchanged"), done.stdout
    (listed / "benchgraph-sources.yml").write_text("first.md: [not, a, repository]\n", "utf-8")
    broken = run_cli("ingest", str(listed), store=tmp_path / "store")
    assert broken.returncode == 2
    assert "benchgraph-sources.yml: first.md: not a repository" in broken.stderr


def test_a_card_known_by_its_content_is_replaced_when_its_repository_comes(
    tmp_path: Path,
) -> None:
    store_dir = tmp_path / "store"
    first = run_cli("ingest", str(PHIND[1]), store=store_dir)
    assert first.returncode == 0, first.stderr
    again = run_cli(
        "ingest", "--repository", "Phind/Phind-CodeLlama-34B-v2", str(PHIND[1]), store=store_dir
    )
    assert again.returncode == 0, again.stderr
    assert "1 loaded" in again.stdout and "1 replaced" in again.stdout, again.stdout
    with EmbeddedStore(store_dir) as store:
        assert pages(store) == {"model-index/Phind/Phind-CodeLlama-34B-v2"}
        hashed = next(v for v in versions.read_all(store) if v.key.startswith("model-index/sha"))
        assert hashed.current is None and hashed.all[0].withdrawn


def test_a_repository_for_a_page_that_is_no_card_is_refused(tmp_path: Path) -> None:
    done = run_cli("ingest", "--repository", "a/b", str(LAION), store=tmp_path / "store")
    assert done.returncode == 1
    assert "a repository is given, but the file is no model card (sota2)" in done.stderr
    bad = run_cli("ingest", "--repository", "no-slash", str(PHIND[0]), store=tmp_path / "s")
    assert bad.returncode == 2 and "is not a Hugging Face repository" in bad.stderr


def laion_copy(folder: Path, link: str, updated: str, value: str) -> Path:
    """The LAION example saved from ``link`` (its Source URL), dated ``updated``, PRISM's
    figure ``value``."""
    text = LAION.read_text(encoding="utf-8")
    text = text.replace(
        "(<https://www.sota2.com/research/sota/prompt-recovery-on-laion>)", f"(<{link}>)"
    )
    text = text.replace("Data updated: 2026-03-06T07:08:17.938Z", f"Data updated: {updated}")
    text = text.replace("| PRISM | 81.7 |", f"| PRISM | {value} |")
    text = text.replace("CLIP Score: 81.7.", f"CLIP Score: {value}.")
    path = folder / f"{updated[:10]}.md"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_sota2_page_by_its_three_links_is_one_source_with_versions(tmp_path: Path) -> None:
    base = "https://www.sota2.com/research/sota/prompt-recovery-on-laion"
    copies = [
        laion_copy(tmp_path, base, "2026-03-06T07:08:17.938Z", "81.7"),
        laion_copy(tmp_path, base + ".md", "2026-04-06T07:08:17.938Z", "81.8"),
        laion_copy(tmp_path, base + ".md?metric=CLIP%20Score", "2026-05-06T07:08:17.938Z", "81.9"),
    ]
    assert {read_page(p.read_bytes(), str(p)).key for p in copies} == {
        "sota2/prompt-recovery-on-laion/clip-score"
    }
    with EmbeddedStore(tmp_path / "store") as store:
        for path in copies:
            assert load(store, path) == ["loaded"]
        (laion,) = versions.read_all(store)
        assert [v.status for v in laion.all] == ["history", "history", "current"]
        assert two_values(store) == []
        answer = store.query(
            "PREFIX bg: <https://w3id.org/benchgraph/ns#> SELECT ?v WHERE "
            "{ <https://w3id.org/benchgraph/id/result/69aa7c5b6dbb7075b953baa1> bg:value ?v }"
        )
        assert isinstance(answer, ox.QuerySolutions)
        assert [row["v"].value for row in answer] == ["81.9"]


def test_a_result_two_sources_give_two_values_is_refused_naming_both(tmp_path: Path) -> None:
    other = LAION.read_text(encoding="utf-8").replace(
        "Prompt Recovery on LAION", "Prompt Recovery on LAION-5B"
    )
    other = other.replace("| LAION |", "| LAION-5B |").replace(
        "CLIP Score: 81.7.", "CLIP Score: 80.1."
    )
    other = other.replace("| PRISM | 81.7 |", "| PRISM | 80.1 |")
    second = tmp_path / "other.md"
    second.write_text(other, encoding="utf-8")
    for together in (True, False):
        with EmbeddedStore(tmp_path / f"store-{together}") as store:
            statuses = (
                load(store, LAION, second) if together else load(store, LAION) + load(store, second)
            )
            outcomes = list(ingest_files(store, [second]))
            assert statuses[0] == "loaded"
            assert outcomes[0].status == "refused", outcomes[0]
            assert "result 69aa7c5b6dbb7075b953baa1 is 80.1 here, but 81.7 in the source " in (
                outcomes[0].message
            )
            assert "sota2/prompt-recovery-on-laion/clip-score" in outcomes[0].message
            assert two_values(store) == []


def test_the_upgrade_keeps_the_newest_of_a_page_stored_under_two_links(tmp_path: Path) -> None:
    folder = tmp_path / "store"
    newer = laion_copy(tmp_path, LAION_LINK + ".md", "2026-04-06T07:08:17.938Z", "81.9")
    with EmbeddedStore(folder) as store:
        assert load(store, LAION) == ["loaded"]
        # The newer copy as an earlier rule named it: by its Source URL's last part.
        page = read_page(newer.read_bytes(), str(newer))
        legacy = page.__class__(
            **{**page.__dict__, "key": "sota2/prompt-recovery-on-laion.md/clip-score"}
        )
        # (a batch that began on an empty store asks the store nothing, as then)
        write = prepare_page(store, legacy, Batch(fresh=True))
        assert isinstance(write, Write), write
        store.write(write.change)
        assert two_values(store) != []  # what the earlier rule let happen
    layout = folder / EmbeddedStore.LAYOUT_FILE
    layout.write_text(EmbeddedStore.VIEW_LAYOUT, "utf-8")
    told: list[str] = []
    with EmbeddedStore(folder, notify=told.append) as store:  # opened with no upgrade
        assert two_values(store) != []
    assert json.loads(layout.read_text("utf-8"))["layout"] == 2
    upgrade = lambda store, notify, _: identities.upgrade(store, notify)  # noqa: E731
    with EmbeddedStore(folder, notify=told.append, upgrade=upgrade) as store:
        assert two_values(store) == []
        assert pages(store) == {"sota2/prompt-recovery-on-laion.md/clip-score"}
    assert json.loads(layout.read_text("utf-8"))["layout"] == EmbeddedStore.LAYOUT_NUMBER
    assert told and "sota2/prompt-recovery-on-laion/clip-score" in told[0], told
    with EmbeddedStore(folder, notify=told.append, upgrade=identities.upgrade):  # once
        assert len(told) == 1


LAION_LINK = "https://www.sota2.com/research/sota/prompt-recovery-on-laion"


@pytest.mark.skipif(
    not SEEDS.is_dir(), reason="the seeds (../shared/seeds) are not beside this checkout"
)
def test_no_result_holds_two_values_over_the_seeds_the_samples_and_a_corpus(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    generate_corpus(corpus, seed=3, pages=40)
    archive = tmp_path / "archive" / "evaluation-tables.json"
    archive.parent.mkdir()
    write_archive(archive, leaderboards=200, seed=3)
    shared = REPO.parent / "shared" / "data"
    with EmbeddedStore(tmp_path / "store") as store:
        batches = [
            [SEEDS],
            [EXAMPLES],
            [shared] if shared.is_dir() else [],
            [corpus],
            [archive.parent],
        ]
        for paths in batches:
            files = [
                Input(p, named=False)
                for path in paths
                for p in (sorted(f for f in path.rglob("*") if f.is_file()))
            ]
            list(ingest_files(store, files))
        assert len(pages(store)) > 260
        assert two_values(store) == []
