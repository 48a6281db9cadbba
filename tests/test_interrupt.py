"""Ctrl-C: a command interrupted says so in one line and exits 130 (128 + SIGINT), as docs/cli.md
says, and the store it held opens and takes the same command again."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from support import PATIENCE, REPO, await_holding, doc, generate_corpus, run_cli

from benchgraph.cli.console import EXIT_INTERRUPTED
from benchgraph.store import holder
from benchgraph.store.embedded import EmbeddedStore

PAGES = 300


def _sigint_by_default() -> None:
    """In the child, before Python starts: SIGINT as a terminal delivers it (a parent that
    ignores it, as a test runner's worker may, would make Python ignore it too)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_during_an_ingest_is_one_line_and_exit_130(tmp_path: Path) -> None:
    generate_corpus(tmp_path / "corpus", seed=1, pages=PAGES)
    pages, store = tmp_path / "corpus" / "pages", tmp_path / "store"
    ingest = subprocess.Popen(
        [sys.executable, "-m", "benchgraph.cli", "ingest", "--quiet", str(pages)],
        cwd=REPO,
        env={**os.environ, "BENCHGRAPH_STORE": str(store)},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=_sigint_by_default,
    )
    try:
        await_holding(ingest, store)  # the ingest has started (or ended, which fails below)
        assert ingest.poll() is None, "the ingest ended before it could be interrupted"
        ingest.send_signal(signal.SIGINT)
        stdout, stderr = ingest.communicate(timeout=PATIENCE)
    finally:
        if ingest.poll() is None:
            ingest.kill()
            ingest.wait(PATIENCE)
    assert (ingest.returncode, stderr) == (EXIT_INTERRUPTED, "benchgraph: interrupted\n"), stderr
    assert stdout == ""
    assert holder.read(store) is None  # the store was let go
    if (store / EmbeddedStore.LOAD_FILE).exists():  # a first ingest of 300 pages: all or none
        refused = run_cli("query", "benchmarks", store=store)
        assert refused.returncode == 2 and "stopped half-way" in refused.stderr, refused.stderr
    again = run_cli("ingest", "--quiet", str(pages), store=store)
    assert again.returncode == 0, again.stderr
    loaded, unchanged = (int(n) for n in re.findall(r"(\d+) (?:loaded|unchanged)", again.stdout))
    assert (loaded + unchanged, "0 refused, 0 unreadable" in again.stdout) == (PAGES, True)


def test_the_exit_code_is_documented() -> None:
    assert f"| {EXIT_INTERRUPTED} | interrupted (Ctrl-C" in doc("cli.md")
