"""The package as installed: every file the server reads at run time is package data, and what
the examples of the README and docs/ write stays out of version control."""

from __future__ import annotations

import subprocess
import tomllib

from support import REPO, manual

CONFIG = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]


def test_every_template_folder_is_a_listed_package_with_its_html_as_data() -> None:
    # setuptools warns ("Package 'server.templates' is absent from the `packages` configuration")
    # and a wheel leaves the files out when a data folder is neither a package nor package data.
    folders = {p.parent for p in (REPO / "server").rglob("*.html")}
    assert folders
    data = CONFIG["package-data"]
    for folder in folders:
        package = ".".join(folder.relative_to(REPO).parts)
        assert "*.html" in data.get(package, []), package
        assert package in CONFIG["packages"], package


def test_every_python_package_is_in_the_wheel() -> None:
    # `packages` names packages, not trees: a subpackage left out (benchgraph.cli, the command
    # line) installs from a checkout but is missing from the wheel.
    included = CONFIG["packages"]
    packages = {
        ".".join(init.parent.relative_to(REPO).parts)
        for top in ("benchgraph", "ingest", "server")
        for init in (REPO / top).rglob("__init__.py")
    }
    assert "benchgraph.cli" in packages
    for package in packages:
        assert package in included, package


def test_every_resource_folder_ships_as_package_data() -> None:
    # queries/, ontology/ and shapes/ stay at the top level and ship as benchgraph/_resources/:
    # a subfolder left out of `packages` (queries/site/) is missing from the wheel.
    for top in ("queries", "ontology", "shapes"):
        for folder in [REPO / top, *(p for p in (REPO / top).rglob("*") if p.is_dir())]:
            package = ".".join(("benchgraph", "_resources", *folder.relative_to(REPO).parts))
            assert package in CONFIG["packages"], package
            suffixes = {p.suffix for p in folder.iterdir() if p.is_file()}
            assert {f"*{s}" for s in suffixes} <= set(CONFIG["package-data"][package]), package


def test_the_remote_store_example_writes_its_data_where_git_ignores_it() -> None:
    locations = [
        line.split("--location", 1)[1].split()[0]
        for text in manual().values()
        for line in text.splitlines()
        if "oxigraph serve" in line and "--location" in line
    ]
    assert locations
    for location in locations:
        ignored = subprocess.run(
            ["git", "check-ignore", "-q", location + "/x"], cwd=REPO, check=False
        )
        assert ignored.returncode == 0, f"{location} is not ignored by .gitignore"
