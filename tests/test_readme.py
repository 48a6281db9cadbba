"""The examples of the README and docs/, run as a newcomer runs them: the outputs they show are
the outputs."""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from support import PATIENCE, REPO, doc, manual, run_cli
from support.live import Live

README = (REPO / "README.md").read_text(encoding="utf-8")
SERVING = doc("serving.md")  # the curator's loop and the write API
SERVED = "http://127.0.0.1:8080/"


CURATORS_LOOP = "<!-- the curator's loop: tests/test_readme.py runs this block in order -->"


# An ingest time (to the second, no fraction: a page's data-updated time has one) is the run's.
INGESTED = re.compile(r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


def blocks(text: str = README) -> list[str]:
    """The shell blocks of ``text`` (by default the README's) but the curator's loop, which
    changes its store."""
    return re.findall(r"```sh\n(.*?)```", text.replace(CURATORS_LOOP + "\n```sh", ""), re.S)


def curators_loop() -> list[str]:
    """The lines of the curator's loop block (in docs/serving.md)."""
    return SERVING.split(CURATORS_LOOP + "\n```sh\n", 1)[1].split("```", 1)[0].splitlines()


def quickstart() -> str:
    section = README.split("## Quickstart", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", section, re.S)[0]


def test_the_quickstart_ingest_prints_what_the_readme_shows(tmp_path: Path) -> None:
    lines = quickstart().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("benchgraph ingest "))
    command = shlex.split(lines[start].split("#", 1)[0])
    shown = []  # the summary lines under the command, one per run: empty store, then again
    for line in lines[start + 1 :]:
        if not line.startswith("#"):
            break
        if re.match(r"# \d+ loaded, ", line):
            shown.append(line[2:])
    assert len(shown) == 2
    store = tmp_path / "store"
    for expected in shown:
        done = run_cli(*command[1:], store=store)
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() == expected


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    """The Quickstart's server: examples/ ingested, served."""
    store = tmp_path_factory.mktemp("readme") / "store"
    assert run_cli("ingest", "examples/", store=store).returncode == 0
    live = Live(store)
    yield live
    live.stop()


# The Write API's examples need a shell and a server with the write API on:
# server/test_write_api.py runs them.
WRITE_API = re.compile(r"\n## Write API\n.*?(?=\n## |\Z)", re.S)
CURLS = [
    line
    for text in manual().values()
    for block in blocks(WRITE_API.sub("", text))
    for line in block.splitlines()
    if line.startswith("curl ") and SERVED in line
]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
@pytest.mark.parametrize("line", CURLS, ids=[c[5:70] for c in CURLS])
def test_every_curl_example_answers_as_the_docs_say(served: Live, line: str) -> None:
    body, status, comment = run_curl(line, served.url)
    said = re.match(r"\s*(\d{3})\b", comment)
    assert status == (said.group(1) if said else "200"), body[:500]
    for quoted in re.findall(r'"([^"]+)"', comment):  # what the comment says the body holds
        assert quoted in body, (quoted, body[:500])
    if not said:
        assert len(body.strip().splitlines()) >= 2 or len(body) > 200, body  # more than a header


def run_curl(line: str, url: str) -> tuple[str, str, str]:
    """Run the docs' curl ``line`` against the server at ``url``: the body, the status and
    the comment that says what comes back."""
    command, _, comment = line.partition("   #")
    words = [w.replace(SERVED, url) for w in shlex.split(command)]
    done = subprocess.run(
        [*words, "--silent", "--show-error", "--write-out", "\n%{http_code}"],
        capture_output=True,
        text=True,
        timeout=PATIENCE,
    )
    assert done.returncode == 0, done.stderr
    body, _, status = done.stdout.rpartition("\n")
    return body, status, comment


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_the_curators_loop_runs_as_the_docs_show(tmp_path: Path) -> None:
    """Serve, ingest into the server, see the site change, withdraw the page: each command's
    output is the one shown under it, and the server is up throughout."""
    store = tmp_path / "store"
    assert run_cli("ingest", "examples/", store=store).returncode == 0
    lines = curators_loop()
    assert lines[0].startswith("benchgraph serve &")
    live = Live(store)
    try:
        for number, line in enumerate(lines[1:], start=1):
            if line.startswith("benchgraph "):
                shown = []
                for after in lines[number + 1 :]:
                    if not after.startswith("# "):
                        break
                    shown.append(after[2:])
                done = run_cli(*shlex.split(line.split("  #", 1)[0])[1:], store=store)
                assert done.returncode == 0, done.stderr
                said = [INGESTED.sub("<ingested>", x) for x in done.stdout.splitlines()]
                assert said == [INGESTED.sub("<ingested>", x) for x in shown], line
            elif line.startswith("curl "):
                body, status, comment = run_curl(line, live.url)
                assert status == "200", body[:500]
                for quoted in re.findall(r'"([^"]+)"', comment):
                    assert quoted in body, (quoted, body[:500])
        assert live.process.poll() is None
        body, _, _ = run_curl(next(x for x in lines if x.startswith("curl ")), live.url)
        assert "NoCaps" not in body  # withdrawn, and the site says so at once
    finally:
        assert live.stop() == 0
