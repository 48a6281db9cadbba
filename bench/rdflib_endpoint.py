"""A SPARQL endpoint over an rdflib in-memory dataset: the peer benchgraph is measured against.

    python -m bench.rdflib_endpoint --data store.nq --port 8091

loads the N-Quads file (a ``benchgraph export``) into an ``rdflib.Dataset`` (every named graph
kept, and the dump's default graph, the merged view, as its default graph, as the other servers
have it) and answers the SPARQL 1.1 Protocol's
query operation on ``/query`` (``GET ?query=`` or a form ``POST``) with SPARQL JSON results,
served by waitress like benchgraph. It prints ``serving at URL`` once the data is loaded. This
is what rdflib-endpoint does, without its dependencies: rdflib parses, plans and evaluates each
query itself, nothing is cached. rdflib cannot stop a running query; the benchmark stops the
whole process when one runs too long.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Any
from urllib.parse import parse_qs

import rdflib
import waitress

JSON_RESULTS = "application/sparql-results+json"

Start = Callable[[str, list[tuple[str, str]]], Any]


def load(path: str) -> rdflib.Dataset:
    """The dataset of an N-Quads file, its default graph the file's default graph."""
    dataset = rdflib.Dataset()
    dataset.parse(path, format="nquads")
    return dataset


def app(dataset: rdflib.Dataset) -> Callable[[dict[str, Any], Start], Iterable[bytes]]:
    """The WSGI application answering queries over ``dataset``."""

    def answer(environ: dict[str, Any], start: Start) -> Iterable[bytes]:
        if environ.get("PATH_INFO") != "/query":
            start("404 Not Found", [("Content-Type", "text/plain")])
            return [b"the endpoint is /query\n"]
        fields = parse_qs(environ.get("QUERY_STRING", ""))
        if environ.get("REQUEST_METHOD") == "POST":
            size = int(environ.get("CONTENT_LENGTH") or 0)
            fields.update(parse_qs(environ["wsgi.input"].read(size).decode("utf-8")))
        text = (fields.get("query") or [""])[0]
        try:
            body = dataset.query(text).serialize(format="json")
        except Exception as error:  # rdflib raises many types for a query it cannot answer
            start("400 Bad Request", [("Content-Type", "text/plain; charset=utf-8")])
            return [f"{type(error).__name__}: {error}\n".encode()]
        assert body is not None
        start("200 OK", [("Content-Type", JSON_RESULTS), ("Content-Length", str(len(body)))])
        return [body]

    return answer


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.rdflib_endpoint", description=__doc__)
    parser.add_argument("--data", required=True, help="an N-Quads file")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--threads", type=int, default=4)
    args = parser.parse_args(argv)
    start = time.perf_counter()
    dataset = load(args.data)
    seconds = time.perf_counter() - start
    server: Any = waitress.create_server(
        app(dataset), host=args.host, port=args.port, threads=args.threads
    )
    print(f"serving at http://{args.host}:{args.port}/ (loaded in {seconds:.1f} s)", flush=True)
    server.run()  # until SIGTERM, which ends the process
    return 0


if __name__ == "__main__":
    sys.exit(main())
