"""``benchgraph alias``: alias records as reviewed data, run as a user runs the command, on
real store folders holding the SQuAD tables of ../shared (whose method names hold near misses:
BERTBase (single model) and BERT-Base (single model))."""

from __future__ import annotations

from pathlib import Path

import pyoxigraph as ox
import pytest
from support import SHARED, copy_store, needs_shared, run_cli

from benchgraph import graphs
from benchgraph import vocab as V
from benchgraph.aliases import record_iri

SQUAD = SHARED / "data" / "pwc" / "sota-extractor" / "squad.json"
METHOD = V.ID + "method/"
BERTBASE = METHOD + "bertbase-single-model"  # "BERTBase (single model)"
BERT_BASE = METHOD + "bert-base-single-model"  # "BERT-Base (single model)"
SLQA, SLQA_ENSEMBLE = METHOD + "slqa", METHOD + "slqa-ensemble"
ALIASES = ox.NamedNode(graphs.ALIASES)
# How a query reads an accepted alias (the text other queries use).
CANONICAL = """PREFIX bg: <https://w3id.org/benchgraph/ns#>
SELECT ?method ?canonicalMethod WHERE {
  VALUES ?method { <%s> }
  OPTIONAL { GRAPH <https://w3id.org/benchgraph/id/aliases> {
      ?alias bg:aliasSubject ?method ; bg:aliasTarget ?canonicalMethod ; bg:aliasStatus bg:Accepted } }
}"""  # noqa: E501


@pytest.fixture(scope="module")
def squad_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    needs_shared(SQUAD)
    store = tmp_path_factory.mktemp("squad") / "store"
    done = run_cli("ingest", str(SQUAD), store=store)
    assert done.returncode == 0, done.stderr
    return store


@pytest.fixture
def store(squad_store: Path, tmp_path: Path) -> Path:
    """A store of its own for each test."""
    return copy_store(squad_store, tmp_path / "store")


def alias(store: Path, *args: str) -> tuple[int, str, str]:
    done = run_cli("alias", *args, store=store)
    return done.returncode, done.stdout, done.stderr


def records(store: Path) -> set[ox.Triple]:
    """The alias graph's triples."""
    held = ox.Store.read_only(str(store))
    return {q.triple for q in held.quads_for_pattern(None, None, None, ALIASES)}


def value(store: Path, subject: str, target: str, predicate: str) -> str | None:
    node = ox.NamedNode(record_iri(subject, target))
    found = [
        t.object for t in records(store) if (t.subject, t.predicate.value) == (node, predicate)
    ]
    assert len(found) <= 1
    return str(getattr(found[0], "value", "")) if found else None


def canonical(store: Path, method: str) -> str | None:
    answer = ox.Store.read_only(str(store)).query(CANONICAL % method)
    assert isinstance(answer, ox.QuerySolutions)
    rows = [row["canonicalMethod"] for row in answer]
    assert len(rows) == 1
    return None if rows[0] is None else rows[0].value


def test_propose_records_who_when_evidence_and_confidence_and_never_twice(store: Path) -> None:
    code, out, err = alias(
        store, "propose", "BERTBase (single model)", "BERT-Base (single model)",
        "--evidence", "one model card", "--confidence", "0.8", "--by", "ana",
    )  # fmt: skip
    assert code == 0, err
    iri = record_iri(BERTBASE, BERT_BASE)
    assert out.startswith(iri.rsplit("/", 1)[1] + " proposed: ")
    assert value(store, BERTBASE, BERT_BASE, V.type_) == V.Alias
    assert value(store, BERTBASE, BERT_BASE, V.aliasStatus) == V.Proposed
    assert value(store, BERTBASE, BERT_BASE, V.evidence) == "one model card"
    assert value(store, BERTBASE, BERT_BASE, V.confidence) == "0.8"
    assert value(store, BERTBASE, BERT_BASE, V.creator) == "ana"
    assert value(store, BERTBASE, BERT_BASE, V.created)
    assert value(store, BERTBASE, BERT_BASE, V.reviewedBy) is None
    before = records(store)
    code, out, _ = alias(store, "propose", BERTBASE, BERT_BASE, "--by", "bo")  # by IRI, again
    assert code == 0 and "(unchanged)" in out
    assert records(store) == before
    assert canonical(store, BERTBASE) is None  # proposed: not followed


def test_accept_makes_the_alias_followed_and_says_who_and_when(store: Path) -> None:
    assert alias(store, "propose", BERTBASE, BERT_BASE)[0] == 0
    code, out, err = alias(store, "accept", "BERTBase (single model)", BERT_BASE, "--by", "cy")
    assert code == 0, err
    assert " accepted: " in out
    assert value(store, BERTBASE, BERT_BASE, V.aliasStatus) == V.Accepted
    assert value(store, BERTBASE, BERT_BASE, V.reviewedBy) == "cy"
    assert value(store, BERTBASE, BERT_BASE, V.reviewedAt)
    assert canonical(store, BERTBASE) == BERT_BASE
    assert canonical(store, BERT_BASE) is None


def test_reject_keeps_the_record_and_stops_it_being_followed(store: Path) -> None:
    assert alias(store, "propose", BERTBASE, BERT_BASE)[0] == 0
    record = record_iri(BERTBASE, BERT_BASE).rsplit("/", 1)[1]
    assert alias(store, "accept", record)[0] == 0
    code, out, err = alias(store, "reject", record, "--by", "dee")
    assert code == 0, err
    assert out.startswith(f"{record} rejected: ")
    assert value(store, BERTBASE, BERT_BASE, V.aliasStatus) == V.Rejected
    assert value(store, BERTBASE, BERT_BASE, V.reviewedBy) == "dee"
    assert canonical(store, BERTBASE) is None
    code, out, _ = alias(store, "list", "--status", "rejected")
    assert code == 0 and record in out and "(1 records)" in out


def test_accepting_a_chain_or_a_second_target_is_refused_and_changes_nothing(
    store: Path,
) -> None:
    for subject, target in ((BERTBASE, BERT_BASE), (BERT_BASE, SLQA), (SLQA, BERTBASE)):
        assert alias(store, "propose", subject, target)[0] == 0
    assert alias(store, "propose", BERTBASE, SLQA_ENSEMBLE)[0] == 0
    assert alias(store, "accept", BERTBASE, BERT_BASE)[0] == 0
    before = records(store)
    code, _, err = alias(store, "accept", BERT_BASE, SLQA)  # its subject is an accepted name
    assert code == 1
    assert "not accepted" in err and "is the accepted name of" in err
    code, _, err = alias(store, "accept", SLQA, BERTBASE)  # its target is another name
    assert code == 1
    assert f"accept <{SLQA}> as another name of <{BERT_BASE}> instead" in err
    code, _, err = alias(store, "accept", BERTBASE, SLQA_ENSEMBLE)  # a second target
    assert code == 1 and "is already accepted as another name of" in err
    assert records(store) == before
    code, _, err = alias(store, "propose", BERTBASE, "SQuAD1.1 dev")  # another kind
    assert code == 1


def test_an_unknown_name_or_iri_is_said_to_be_unknown_and_writes_nothing(store: Path) -> None:
    code, _, err = alias(store, "propose", "No Such Model", "BERT-Base (single model)")
    assert code == 1
    assert "unknown: no method, paper or benchmark is named 'No Such Model'" in err
    code, _, err = alias(store, "propose", BERTBASE, METHOD + "nothing-of-that-name")
    assert code == 1 and "has the IRI" in err
    code, _, err = alias(store, "accept", "0123456789abcdef")
    assert code == 1 and "no alias record '0123456789abcdef'" in err
    assert records(store) == set()


def test_a_bad_file_imports_nothing_and_is_named_with_its_place(
    store: Path, tmp_path: Path
) -> None:
    assert alias(store, "propose", BERTBASE, BERT_BASE, "--by", "ana")[0] == 0
    before = records(store)
    good = f"{SLQA_ENSEMBLE},{SLQA},accepted,,ana,2026-12-01T10:00:00Z"
    bad = tmp_path / "curated.csv"
    bad.write_text(
        "subject,target,status,confidence,creator,created\n"
        f"{good}\n"
        f"{BERT_BASE},{SLQA},accepted,1.7,ana,2026-12-01T10:00:00Z\n"
    )
    code, _, err = alias(store, "import", str(bad))
    assert code == 1
    assert f"{bad}: row 3: a confidence is a decimal from 0 to 1, not '1.7'" in err
    undated = tmp_path / "undated.csv"
    undated.write_text(
        f"subject,target,status,confidence,creator,created\n{good}\n"
        f"{BERT_BASE},{SLQA},accepted,,ana,yesterday\n"
    )
    code, _, err = alias(store, "import", str(undated))
    assert code == 1 and f"{undated}: row 3:" in err and "creation time" in err
    broken = tmp_path / "curated.ttl"
    broken.write_text(f"@prefix bg: <{V.BG}> .\n<https://example.org/x> a bg:Alias ;\n")
    code, _, err = alias(store, "import", str(broken))
    assert code == 2 and f"{broken}: not Turtle:" in err and "line 3" in err
    code, _, err = alias(store, "import", str(tmp_path / "missing.csv"))
    assert code == 2 and "missing.csv: cannot be read" in err
    assert records(store) == before


def test_export_then_import_gives_the_same_records(
    store: Path, squad_store: Path, tmp_path: Path
) -> None:
    assert alias(store, "propose", BERTBASE, BERT_BASE, "--confidence", "0.9")[0] == 0
    assert alias(store, "propose", SLQA_ENSEMBLE, SLQA, "--evidence", 'a "quoted", note')[0] == 0
    assert alias(store, "accept", SLQA_ENSEMBLE, SLQA, "--by", "ana")[0] == 0
    assert alias(store, "reject", BERTBASE, BERT_BASE, "--by", "bo")[0] == 0
    exported = records(store)
    assert len({t.subject for t in exported}) == 2
    for fmt, name in (("turtle", "aliases.ttl"), ("csv", "aliases.csv")):
        path = tmp_path / name
        code, out, err = alias(store, "export", "--format", fmt, str(path))
        assert code == 0 and out.startswith("2 records written"), err
        fresh = copy_store(squad_store, tmp_path / f"fresh-{fmt}")
        code, out, err = alias(fresh, "import", str(path))
        assert code == 0, err
        assert out.startswith("2 records added, 0 replaced")
        assert records(fresh) == exported
        code, out, err = alias(fresh, "import", str(path))  # again: the same records
        assert code == 0 and out.startswith("0 records added, 2 replaced"), err
        assert records(fresh) == exported


def test_findings_become_proposed_records_once(store: Path) -> None:
    code, out, err = alias(store, "propose-from-findings")
    assert code == 0, err
    made = records(store)
    proposed = {t.subject for t in made if t.object == ox.NamedNode(V.Proposed)}
    assert record_iri(BERTBASE, BERT_BASE) in {p.value for p in proposed}
    assert len(proposed) == out.count(" proposed: ") >= 1
    evidence = {t.object.value for t in made if t.predicate.value == V.evidence}
    assert all(e.startswith("check-possible-duplicate-") for e in evidence)
    assert alias(store, "accept", BERTBASE, BERT_BASE, "--by", "ana")[0] == 0
    reviewed = records(store)
    code, out, _ = alias(store, "propose-from-findings")
    assert code == 0
    assert out.splitlines()[-1] == f"0 proposed, {len(proposed)} left as they were"
    assert records(store) == reviewed  # the reviewed record is not overwritten


def test_the_alias_graph_survives_reingest_and_stays_out_of_the_merged_view(
    store: Path, tmp_path: Path
) -> None:
    assert alias(store, "propose", BERTBASE, BERT_BASE)[0] == 0
    assert alias(store, "accept", BERTBASE, BERT_BASE)[0] == 0
    before = records(store)
    assert run_cli("remove", str(SQUAD), store=store).returncode == 0
    assert run_cli("ingest", str(SQUAD), store=store).returncode == 0
    assert records(store) == before
    held = ox.Store.read_only(str(store))
    alias_type = ox.NamedNode(V.Alias)
    assert not list(held.quads_for_pattern(None, None, alias_type, ox.DefaultGraph()))
    assert ALIASES in set(held.named_graphs())
    dump = tmp_path / "dump.nq"
    assert run_cli("export", "--format", "nquads", "--out", str(dump), store=store).returncode == 0
    dumped = set(ox.parse(path=str(dump), format=ox.RdfFormat.N_QUADS))
    assert {ox.Quad(t.subject, t.predicate, t.object, ALIASES) for t in before} <= dumped
    done = run_cli("validate", store=store)
    assert done.returncode == 0, done.stdout + done.stderr
