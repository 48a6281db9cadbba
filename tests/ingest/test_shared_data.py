"""Every third-party sample in ../shared/data either reads as a source document of its format or
is refused with a precise message: the file, the place in it and what is wrong."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import REPO

from ingest.reading import NotAPage, read_pages
from ingest.records import PageError

DATA = REPO.parent / "shared" / "data"
# The folder's own notes on the formats, and PWC's table of task synonyms: no results in them.
NOT_RESULT_FILES = {"README.md", "SCHEMA.md", "synonyms.csv"}
FILES = sorted(p for p in DATA.rglob("*") if p.is_file()) if DATA.is_dir() else []


@pytest.mark.skipif(not FILES, reason="the samples (../shared/data) are not beside this checkout")
@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(DATA)))
def test_each_sample_loads_or_is_refused_precisely(path: Path) -> None:
    origin = str(path.relative_to(DATA))
    try:
        pages = read_pages(path.read_bytes(), origin)
    except NotAPage as refused:
        assert path.name in NOT_RESULT_FILES, f"{origin}: no format claims it: {refused}"
        return
    except PageError as refused:
        assert (refused.origin, bool(refused.location), bool(refused.problem)) == (
            origin, True, True,
        ), str(refused)  # fmt: skip
        return
    assert path.name not in NOT_RESULT_FILES
    assert len({page.key for page in pages}) == len(pages), f"{origin}: two sources, one identity"
    assert any(page.results or page.papers or page.methods for page in pages), (
        f"{origin}: read, but holds nothing"
    )
    for page in pages:  # a leaderboard of rows none of which could be read says why
        assert page.results or page.papers or page.methods or page.warnings, page.key
        assert all(w.origin == origin and w.location for w in page.warnings)
