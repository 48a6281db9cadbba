"""Every named query's answers on a corpus, written down so that two versions can be compared
row by row: the check that a rewrite of the queries (or of the store under them) changed no
answer.

    python -m bench.answers build --pages DIR --store STORE      # ingest, at a fixed time
    python -m bench.answers params --store STORE --out params.json
    python -m bench.answers dump --store STORE --params params.json --out answers.json
    python -m bench.answers compare before.json after.json       # exit 1 on a difference

``build`` and ``dump`` use only what every version of benchgraph has (``ingest_files``,
``EmbeddedStore``, ``queries.catalogue`` and ``NamedQuery.bind``) and import nothing else of
this folder, so the file runs under another checkout's interpreter, with that version's package,
queries and store layout (``cd OTHER && .venv/bin/python THIS/bench/answers.py dump …``: run as
a file, not with ``-m``, so that this checkout's packages do not shadow that one's). ``params``
chooses the parameter values once, from the data: papers that reported or introduced something,
and benchmarks (by IRI, which every version takes) with each of their
metrics (and none: the primary metric) and two of their methods, so both versions are asked the
same questions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

BG = "https://w3id.org/benchgraph/ns#"
NOW = "2026-11-29T12:00:00Z"  # one ingest time for every store compared
FIXED = {"asOf": "2026-12-01"}  # parameters whose default depends on the day


def build(pages: Path, store_path: Path) -> int:
    """Ingest every page of ``pages`` into a new store at ``store_path``, at :data:`NOW`."""
    from benchgraph.store.embedded import EmbeddedStore
    from ingest.loader import ingest_files

    files = sorted(p for p in pages.iterdir() if p.is_file())
    with EmbeddedStore(store_path) as store:
        loaded = sum(o.status == "loaded" for o in ingest_files(store, files, now=NOW))
    print(f"{loaded} of {len(files)} pages loaded into {store_path}")
    return 0


def _column(store: Any, query: str) -> list[str]:
    return [str(row[0].value) for row in store.query(query)]


def params(store_path: Path, out: Path, count: int) -> int:
    """Choose the parameter values every parameterised query is asked with."""
    from benchgraph import queries
    from benchgraph.store.embedded import EmbeddedStore

    with EmbeddedStore(store_path) as store:
        origins = _column(
            store, f"SELECT DISTINCT ?p WHERE {{ ?m <{BG}introducedIn> ?p }} ORDER BY ?p"
        )
        reporters = _column(
            store, f"SELECT DISTINCT ?p WHERE {{ ?r <{BG}reportedIn> ?p }} ORDER BY ?p"
        )
        benchmarks = _column(store, f"SELECT ?b WHERE {{ ?b a <{BG}Benchmark> }} ORDER BY ?b")
        step = max(1, len(benchmarks) // count)
        chosen = benchmarks[::step][:count]
        metrics = {
            b: _column(store, f"SELECT ?m WHERE {{ <{b}> <{BG}hasMetric> ?m }} ORDER BY ?m")
            for b in chosen
        }
        methods = {
            b: _column(
                store,
                f"SELECT DISTINCT ?e WHERE {{ ?r <{BG}benchmark> <{b}> ; <{BG}method> ?e }} "
                "ORDER BY ?e LIMIT 2",
            )
            for b in chosen
        }
    papers = sorted(set(origins[: count // 2]) | set(reporters[: count // 2]))
    values: dict[str, list[dict[str, str]]] = {}
    for named in queries.catalogue().values():
        required = {p.name: p.type for p in named.params if p.required}
        if not required:
            values[named.name] = [{k: v for k, v in FIXED.items() if _has(named, k)}]
        elif set(required.values()) == {"paper"}:
            (name,) = required
            values[named.name] = [{name: p} for p in papers]
        elif required == {"benchmark": "benchmark"}:
            values[named.name] = [
                {"benchmark": b, **({"metric": m} if m else {})}
                for b in chosen
                for m in [None, *metrics[b]]
            ]
        elif required == {"benchmark": "benchmark", "a": "method", "b": "method"}:
            values[named.name] = [
                {"benchmark": b, "a": methods[b][0], "b": methods[b][-1]} for b in chosen
            ]
        else:
            sys.stderr.write(f"{named.name}: no values chosen for {sorted(required)}\n")
    out.write_text(json.dumps(values, indent=1) + "\n", encoding="utf-8")
    asked = sum(len(v) for v in values.values())
    print(f"{asked} questions for {len(values)} named queries written to {out}")
    return 0


def _has(named: Any, name: str) -> bool:
    return any(p.name == name for p in named.params)


def _text(term: Any) -> str | None:
    if term is None:
        return None
    kind = type(term).__name__
    return "_:" if kind == "BlankNode" else str(term)


def dump(store_path: Path, params_path: Path, out: Path) -> int:
    """Ask every named query every question of ``params_path``; write the rows, in order."""
    from benchgraph import queries
    from benchgraph.store.embedded import EmbeddedStore

    asked = json.loads(params_path.read_text(encoding="utf-8"))
    answers: dict[str, list[dict[str, Any]]] = {}
    with EmbeddedStore(store_path) as store:
        for named in queries.catalogue().values():
            for values in asked.get(named.name, []):
                answer = store.query(named.text, named.bind(values))
                names = [v.value for v in answer.variables]
                rows = [[_text(row[n]) for n in names] for row in answer]
                answers.setdefault(named.name, []).append(
                    {"values": values, "vars": names, "rows": rows}
                )
    out.write_text(json.dumps(answers, ensure_ascii=False) + "\n", encoding="utf-8")
    rows = sum(len(a["rows"]) for found in answers.values() for a in found)
    print(f"{rows} rows of {sum(map(len, answers.values()))} answers written to {out}")
    return 0


def compare(before_path: Path, after_path: Path) -> int:
    """Print, per named query, whether every answer is the same row for row; 1 if any is not."""
    before = json.loads(before_path.read_text(encoding="utf-8"))
    after = json.loads(after_path.read_text(encoding="utf-8"))
    differing = 0
    for name in sorted(set(before) | set(after)):
        old, new = before.get(name, []), after.get(name, [])
        same = [a == b for a, b in zip(old, new, strict=False)]
        rows = sum(len(a["rows"]) for a in new)
        if len(old) == len(new) and all(same):
            print(f"{name}: {len(new)} answers, {rows} rows: the same")
            continue
        differing += 1
        print(f"{name}: DIFFERS ({sum(same)} of {max(len(old), len(new))} answers the same)")
        for a, b in zip(old, new, strict=False):
            if a != b:
                print(f"  asked {a['values']}: {len(a['rows'])} rows before, ", end="")
                print(f"{len(b['rows'])} after")
                if a["vars"] != b["vars"]:
                    print(f"  columns {a['vars']} before, {b['vars']} after")
                for x, y in zip(a["rows"], b["rows"], strict=False):
                    if x != y:
                        print(f"  first different row:\n    {x}\n    {y}")
                        break
                break
    print("every answer is the same" if not differing else f"{differing} queries differ")
    return 1 if differing else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.answers", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    b = commands.add_parser("build", help="ingest a folder of pages at a fixed time")
    b.add_argument("--pages", type=Path, required=True)
    b.add_argument("--store", type=Path, required=True)
    p = commands.add_parser("params", help="choose the questions, from the data")
    p.add_argument("--store", type=Path, required=True)
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--count", type=int, default=40, help="papers and benchmarks asked about")
    d = commands.add_parser("dump", help="ask every named query every question")
    d.add_argument("--store", type=Path, required=True)
    d.add_argument("--params", type=Path, required=True)
    d.add_argument("--out", type=Path, required=True)
    c = commands.add_parser("compare", help="compare two dumps row by row")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "build":
        return build(args.pages, args.store)
    if args.command == "params":
        return params(args.store, args.out, args.count)
    if args.command == "dump":
        return dump(args.store, args.params, args.out)
    return compare(args.before, args.after)


if __name__ == "__main__":
    raise SystemExit(main())
