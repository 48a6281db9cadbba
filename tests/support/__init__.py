"""Helpers the tests share: paths, stores built from pages and copied, the CLI as a process, a
plain index over a store's quads."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyoxigraph as ox
import pytest

from benchgraph import vocab as V
from benchgraph.store import holder
from benchgraph.store.embedded import EmbeddedStore
from ingest.loader import ingest_file

REPO = Path(__file__).resolve().parents[2]
# Beside the checkout, not in it: the founding pages (seeds/) and third-party samples (data/)
# whose figures the tests check. A test that needs them is skipped without them (needs_shared).
SHARED = REPO.parent / "shared"
SEEDS = SHARED / "seeds"
EXAMPLES = REPO / "examples"
# The manual: README.md is its entry point, docs/ holds one file per subject.
DOCS = REPO / "docs"
# How long a test waits for an event (a process ending, a server answering, a line in a log)
# before it concludes the event will never come. Not a speed limit: on a machine under load
# everything is slower, so it is generous; BENCHGRAPH_TEST_PATIENCE (seconds) changes it.
PATIENCE = float(os.environ.get("BENCHGRAPH_TEST_PATIENCE", "900"))
# A fixed ingest time makes every answer (and so every golden file) repeatable.
INGESTED_AT = "2026-11-29T12:00:00+00:00"
# A sota2 page's section for one result, scanned independently of the parser under test.
SOTA2_SECTION = re.compile(
    r"^### (?P<method>.+)\n\n"
    r"(?P<metric>.+): (?P<value>-?[\d.]+)\. Result ID: (?P<id>[0-9a-f]{24})\.\n\n"
    r"\[Reporting paper\]\(<[^>]*/paper/(?P<rep>[0-9a-f]{24})\.md>\)\n\n"
    r"(?:\[Method origin paper\]\(<[^>]*/paper/(?P<origin>[0-9a-f]{24})\.md>\)\n\n)?"
    r"(?:\[Implementation\]\(<(?P<impl>[^>]+)>\)\n\n)?"
    r"Recorded evaluation configuration: (?P<config>Not recorded|\{.*?\})\. This record",
    re.MULTILINE,
)


def needs_shared(*paths: Path) -> None:
    """Skip the calling test unless each of ``paths`` (in ``../shared``, beside the checkout)
    is there; the reason names those that are not."""
    missing = [os.path.relpath(path, REPO) for path in paths if not path.exists()]
    if missing:
        pytest.skip(
            f"needs {', '.join(missing)}: ../shared (the founding pages and third-party "
            "samples) is not beside this checkout"
        )


def build_store(folder: Path, pages: Path) -> Path:
    """Ingest every page of ``pages`` into a new store at ``folder``; return ``folder``."""
    with EmbeddedStore(folder) as store:
        for path in sorted(p for p in pages.iterdir() if p.is_file()):
            outcome = ingest_file(store, path, now=INGESTED_AT)
            assert outcome.status == "loaded", outcome.message
    return folder


def ingested(store: Path, *paths: Path) -> Index:
    """Ingest ``paths`` into ``store`` with the CLI, as a user does (exit 0 expected), and
    return the store's quads, indexed."""
    done = run_cli("ingest", *map(str, paths), store=store)
    assert done.returncode == 0, done.stderr
    return Index(set(ox.Store.read_only(str(store))))


def leaderboard(store: Path, benchmark: str, metric: str) -> list[dict[str, Any]]:
    """The rows of the ``leaderboard`` named query for ``benchmark`` and ``metric`` on
    ``store``, asked with the CLI as SPARQL JSON (exit 0 expected)."""
    done = run_cli(
        "query", "leaderboard", "--format", "json",
        "--param", f"benchmark={benchmark}", "--param", f"metric={metric}",
        store=store,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    rows: list[dict[str, Any]] = json.loads(done.stdout)["results"]["bindings"]
    return rows


def copy_store(source: Path, target: Path) -> Path:
    """A copy of the store at ``source`` at ``target`` (its data, not its lock); return
    ``target``."""
    shutil.copytree(source, target, ignore=shutil.ignore_patterns(*holder.NOT_DATA))
    return target


def run_cli(
    *args: str, store: Path | None = None, cwd: Path = REPO, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """Run the ``benchgraph`` command in its own process, as a user would (in ``cwd``;
    ``stdin``: the text it reads on its standard input)."""
    env = dict(os.environ)
    if store is not None:
        env["BENCHGRAPH_STORE"] = str(store)
    return subprocess.run(
        [sys.executable, "-m", "benchgraph.cli", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=PATIENCE,
    )


def doc(name: str) -> str:
    """The text of ``docs/<name>``."""
    return (DOCS / name).read_text(encoding="utf-8")


def manual() -> dict[Path, str]:
    """README.md and every ``docs/*.md``, by path, for checks that do not care which file says
    it."""
    files = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
    return {path: path.read_text(encoding="utf-8") for path in files}


class Index:
    """The union of a store's graphs as subject -> predicate -> objects, for plain lookups."""

    def __init__(self, quads: set[ox.Quad]) -> None:
        self.by_subject: dict[str, dict[str, set[ox.NamedNode | ox.Literal]]] = defaultdict(
            lambda: defaultdict(set)
        )
        for q in quads:
            self.by_subject[q.subject.value][q.predicate.value].add(q.object)  # type: ignore[arg-type]

    def objects(self, subject: str, predicate: str) -> set[ox.NamedNode | ox.Literal]:
        return self.by_subject.get(subject, {}).get(predicate, set())

    def one(self, subject: str, predicate: str) -> ox.NamedNode | ox.Literal | None:
        found = self.objects(subject, predicate)
        assert len(found) <= 1, f"{subject} has several {predicate}: {found}"
        return next(iter(found), None)

    def value(self, subject: str, predicate: str) -> str | None:
        term = self.one(subject, predicate)
        return None if term is None else term.value

    def subjects_of_type(self, cls: str) -> set[str]:
        rdf_type = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
        return {s for s, props in self.by_subject.items() if ox.NamedNode(cls) in props[rdf_type]}


# A query taking a method (no named query does): the methods with the same origin paper.
METHOD_QUERY = f"""#+ summary: Methods introduced beside a method
#+ param: method (method, required) The method: its name or its IRI.
SELECT ?other WHERE {{ ?method <{V.introducedIn}> ?paper . ?other <{V.introducedIn}> ?paper }}
"""


def labels(index: Index, cls: str, *predicates: str) -> set[str]:
    """The values of ``predicates`` (default: the label) on the things of type ``cls``."""
    return {
        str(term.value)
        for thing in index.subjects_of_type(cls)
        for predicate in predicates or (V.label,)
        for term in index.objects(thing, predicate)
    }


def benchmark_named(index: Index, label: str) -> str:
    """The IRI of the one benchmark labelled ``label``."""
    (iri,) = (b for b in index.subjects_of_type(V.Benchmark) if index.value(b, V.label) == label)
    return iri


def metrics_of(index: Index, benchmark: str) -> dict[str, str]:
    """The benchmark's metrics: IRI by label."""
    return {
        str(index.value(str(m.value), V.label)): str(m.value)
        for m in index.objects(benchmark, V.hasMetric)
    }


def generate_corpus(out: Path, seed: int, pages: int) -> dict[str, int]:
    """Run the corpus generator as a user does (``python -m bench.generate``) into ``out``;
    return its manifest."""
    options = ["--pages", str(pages), "--seed", str(seed), "--out", str(out)]
    done = subprocess.run(
        [sys.executable, "-m", "bench.generate", *options],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    manifest: dict[str, int] = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    return manifest


def await_holding(process: subprocess.Popen[str], store: Path) -> None:
    """Wait until ``process`` says in the store folder ``store`` that it holds the store (its
    holder record names it), or ends; fail after PATIENCE seconds."""
    deadline = time.monotonic() + PATIENCE
    while process.poll() is None and getattr(holder.read(store), "pid", None) != process.pid:
        assert time.monotonic() < deadline, f"process {process.pid} never said it holds {store}"
        time.sleep(0.01)  # how often to look, not how long to wait


def site_client(store: Path, factory: pytest.TempPathFactory) -> Iterator[Any]:
    """A Flask test client of an app over a copy of ``store`` (the app holds the copy for
    writing in this process, where the tests read ``store`` itself); its workers stopped at
    the end."""
    from server.app import create_app

    copy = copy_store(store, factory.mktemp("site") / "store")
    app = create_app({"store": str(copy), "workers": 1})
    app.config["TESTING"] = True
    yield app.test_client()
    app.extensions["benchgraph"].pool.close()
