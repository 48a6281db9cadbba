"""The manual's links: every relative link in README.md and docs/*.md names a file that exists
and, with a ``#anchor``, a heading of that file, as GitHub renders it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from support import REPO, manual

FENCE = re.compile(r"^```.*?^```", re.M | re.S)
CODE = re.compile(r"(`+)(.+?)\1", re.S)
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^#{1,6}\s+(.+?)\s*#*\s*$", re.M)
SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:")


def prose(text: str) -> str:
    """``text`` without its fenced blocks and code spans, where brackets are no links."""
    return CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text lowercased, links and punctuation dropped
    (letters, digits, ``_`` and ``-`` kept), spaces made hyphens."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(text: str) -> set[str]:
    """Every anchor the headings of ``text`` get, repeats numbered ``-1``, ``-2`` as GitHub does."""
    seen: dict[str, int] = {}
    found = set()
    for heading in HEADING.findall(FENCE.sub("", text)):
        base = slug(heading)
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found


@pytest.mark.parametrize(
    ("heading", "expected"),
    [
        ("The store as it was", "the-store-as-it-was"),
        ("`benchgraph validate`", "benchgraph-validate"),
        ("Linked data, feeds and the site", "linked-data-feeds-and-the-site"),
        ("sota2 pages", "sota2-pages"),
    ],
)
def test_headings_get_the_anchors_github_gives_them(heading: str, expected: str) -> None:
    assert slug(heading) == expected


def broken_links(texts: dict[Path, str]) -> list[str]:
    """Each relative link of ``texts`` (file: its text) whose file or heading is not there, with
    the file that holds it."""
    broken = []
    for path, text in texts.items():
        for target in LINK.findall(prose(text)):
            if SCHEME.match(target):
                continue  # a URL: not checked, no test touches the internet
            name, _, anchor = target.partition("#")
            linked = (path.parent / name).resolve() if name else path
            if name and not linked.exists():
                broken.append(f"{path.name}: ({target}): no file {linked}")
            elif anchor and linked.suffix == ".md":
                there = texts.get(linked) or linked.read_text(encoding="utf-8")
                if anchor not in anchors(there):
                    broken.append(f"{path.name}: ({target}): no heading #{anchor} in {linked.name}")
    return broken


def test_every_relative_link_of_the_manual_resolves() -> None:
    texts = manual()
    assert REPO / "docs" / "cli.md" in texts
    broken = broken_links(texts)
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_a_link_to_a_missing_file_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text(
        "# Other\n\n## Two words\n\n## Two words\n", encoding="utf-8"
    )
    page = tmp_path / "page.md"
    text = (
        "# Page\n\n[a](#page) [b](#nope) [c](other.md#two-words-1) [d](other.md#two-words-2)\n"
        "[e](gone.md) `[f](nowhere.md)` [g](https://x.example/)\n\n```\n[h](nowhere.md)\n```\n"
    )
    assert broken_links({page.resolve(): text}) == [
        "page.md: (#nope): no heading #nope in page.md",
        "page.md: (other.md#two-words-2): no heading #two-words-2 in other.md",
        f"page.md: (gone.md): no file {(tmp_path / 'gone.md').resolve()}",
    ]
