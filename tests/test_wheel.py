"""The package as a user installs it: the sdist and the wheel built by the PyPA build frontend
(the wheel from the sdist, as a release builds it), the wheel installed into a fresh venv with
no checkout on its import path, and the main job run from there: the examples ingested, a named
query answered, the store validated, and a server started that answers a query over HTTP.

The venv's packages come from the package index (CI's machine reaches it; pip's cache makes it
quick after the first run)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tarfile
import urllib.parse
import urllib.request
import zipfile
from pathlib import Path

import pytest
from support import EXAMPLES, PATIENCE, REPO

PAPER = "68fa791f1e209131cea7c381"  # the paper the README's quickstart asks about
RESOURCES = ("queries", "ontology", "shapes")


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sdist and the wheel, built from the checkout."""
    out = tmp_path_factory.mktemp("dist")
    built = subprocess.run(
        [sys.executable, "-m", "build", "--outdir", str(out), str(REPO)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    return out


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with the wheel installed (its bin folder); pip's own outputs are kept."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    (wheel,) = dist.glob("*.whl")
    constraints = REPO / ".ci" / "constraints.txt"
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet"]
    done = subprocess.run(
        [*pip, "-c", str(constraints), str(wheel)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return venv / "bin"


def test_the_sdist_and_the_wheel_carry_the_queries_ontology_shapes_and_license(
    dist: Path,
) -> None:
    (wheel,) = dist.glob("*.whl")
    (sdist,) = dist.glob("*.tar.gz")
    in_wheel = set(zipfile.ZipFile(wheel).namelist())
    with tarfile.open(sdist) as archive:
        in_sdist = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    for folder in RESOURCES:
        for path in (REPO / folder).rglob("*"):
            if path.is_file() and path.suffix in (".rq", ".ttl"):
                relative = path.relative_to(REPO).as_posix()
                assert f"benchgraph/_resources/{relative}" in in_wheel, relative
                assert relative in in_sdist, relative
    assert any(name.endswith("licenses/LICENSE") for name in in_wheel), sorted(in_wheel)[:5]
    assert "LICENSE" in in_sdist


def run(installed: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed ``benchgraph`` run in ``cwd`` (outside the checkout)."""
    return subprocess.run(
        [str(installed / "benchgraph"), *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        env={"PATH": "/usr/bin:/bin", "HOME": str(cwd)},
        timeout=PATIENCE,
        check=False,
    )


def test_the_installed_wheel_ingests_answers_validates_and_serves(
    installed: Path, tmp_path: Path
) -> None:
    where = subprocess.run(
        [str(installed / "python"), "-c", "import benchgraph; print(benchgraph.__file__)"],
        capture_output=True, text=True, cwd=tmp_path, check=True,
    ).stdout  # fmt: skip
    assert str(REPO) not in where and "site-packages" in where, where
    store = str(tmp_path / "store")
    loaded = run(installed, tmp_path, "ingest", "--store", store, str(EXAMPLES))
    assert loaded.returncode == 0, loaded.stderr
    assert re.search(r"\b[1-9]\d* loaded\b", loaded.stdout + loaded.stderr), loaded.stdout
    asked = run(installed, tmp_path, "query", "--store", store, "--format", "json",
                "--param", f"paper={PAPER}", "methods-introduced-by-paper")  # fmt: skip
    assert asked.returncode == 0, asked.stderr
    assert json.loads(asked.stdout)["results"]["bindings"], asked.stdout
    validated = run(installed, tmp_path, "validate", "--store", store, "--summary")
    assert validated.returncode == 0, validated.stdout + validated.stderr
    assert validated.stdout.rstrip().endswith("; conforms"), validated.stdout
    log = tmp_path / "serve.log"
    with log.open("w") as errors, subprocess.Popen(
        [str(installed / "benchgraph"), "serve", "--store", store, "--port", "0"],
        stdout=subprocess.PIPE, stderr=errors, text=True, cwd=tmp_path,
        env={"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    ) as server:  # fmt: skip
        try:
            assert server.stdout is not None
            line = server.stdout.readline()
            found = re.search(r"serving at (\S+)", line)
            assert found, line + log.read_text()
            query = urllib.parse.urlencode({"paper": PAPER})
            url = f"{found.group(1)}queries/methods-introduced-by-paper?{query}"
            accept = {"Accept": "application/sparql-results+json"}
            request = urllib.request.Request(url, headers=accept)
            with urllib.request.urlopen(request, timeout=PATIENCE) as answer:  # loopback only
                served = json.loads(answer.read())
            # A wheel carries no SPARQL editor: the query page is its form, and says so.
            page = urllib.request.Request(f"{found.group(1)}query", headers={"Accept": "text/html"})
            with urllib.request.urlopen(page, timeout=PATIENCE) as answer:  # loopback only
                query_page = answer.read().decode("utf-8")
        finally:
            server.terminate()
            server.wait(PATIENCE)
    assert served["results"]["bindings"] == json.loads(asked.stdout)["results"]["bindings"]
    assert "make install" in query_page and "<textarea" in query_page
    assert "/editor/assets/" not in query_page
    assert server.returncode == 0, log.read_text()
