"""Query workers import benchgraph and the server from the install, never from the folder the
server was started in: served from a folder holding a broken ``benchgraph`` and ``server``
package (a checkout, say), every query is still answered."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from support import PATIENCE

BROKEN = "raise ImportError('imported from the folder served from, not the install')\n"


def test_workers_ignore_packages_in_the_folder_served_from(
    tmp_path: Path, scratch_store: Path, http: Any
) -> None:
    cwd = tmp_path / "cwd"
    for name in ("benchgraph", "server"):
        (cwd / name).mkdir(parents=True)
        (cwd / name / "__init__.py").write_text(BROKEN, encoding="utf-8")
    # The installed command, as a user runs it (its own folder first on its import path).
    command = Path(sys.executable).parent / "benchgraph"
    options = ["--store", str(scratch_store), "--port", "0", "--workers", "1"]
    process = subprocess.Popen(
        [str(command), "serve", *options],
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        found = re.search(r"serving at (\S+)", process.stdout.readline())
        assert found, process.stderr.read() if process.stderr else ""
        query = "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }"
        reply = http.fetch(http.url(found.group(1) + "sparql", query=query), timeout=PATIENCE)
        assert reply.status == 200, reply.text
        assert int(reply.json()["results"]["bindings"][0]["n"]["value"]) > 0
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=PATIENCE)
