"""ETags and Last-Modified on the site's pages: a page carries both, made from the store
generation; a request whose ``If-None-Match`` or ``If-Modified-Since`` still holds is answered 304
with no body; once the store changes, the old tag no longer holds."""

from __future__ import annotations

from pathlib import Path

import pytest
import test_asof
from flask.testing import FlaskClient
from test_feed import get, served_copy, value_changed_again
from test_history import dated, ingest
from werkzeug.http import http_date

from server.generation import Generation

GENAI = "/page/benchmark/prompt-to-prompt-semantic-composition/genai-bench"
PAGES = ("/site", GENAI, "/page/benchmark/composet/composet", "/search?q=bench", "/query")
LAION = "page/benchmark/prompt-recovery/laion"
five, kept = test_asof.five, test_asof.kept


def generation(client: FlaskClient) -> Generation:
    held: Generation = client.application.extensions["benchgraph"].pool.generation
    return held


@pytest.mark.parametrize("page", PAGES)
def test_a_page_carries_an_etag_and_last_modified_of_the_store_generation(
    seeds_site: FlaskClient, page: str
) -> None:
    reply = seeds_site.get(page)
    assert reply.status_code == 200
    now = generation(seeds_site)
    tag, weak = reply.get_etag()
    assert tag and tag.startswith(now.tag + "-") and not weak, reply.headers
    assert reply.headers["Last-Modified"] == http_date(now.modified)
    assert reply.headers["Cache-Control"] == "no-cache"


def test_pages_at_different_addresses_have_different_tags(seeds_site: FlaskClient) -> None:
    tags = {seeds_site.get(page).get_etag()[0] for page in PAGES}
    assert len(tags) == len(PAGES)


@pytest.mark.parametrize("page", PAGES)
def test_a_tag_that_still_holds_is_answered_304_with_no_body(
    seeds_site: FlaskClient, page: str
) -> None:
    first = seeds_site.get(page, headers={"Accept-Encoding": "gzip"})
    tag = first.headers["ETag"]  # weak once compressed, and still matching
    again = seeds_site.get(page, headers={"If-None-Match": tag})
    assert again.status_code == 304 and again.data == b""
    assert again.get_etag()[0] == first.get_etag()[0]


def test_a_date_that_still_holds_is_answered_304(seeds_site: FlaskClient) -> None:
    first = seeds_site.get(GENAI)
    since = seeds_site.get(GENAI, headers={"If-Modified-Since": first.headers["Last-Modified"]})
    assert since.status_code == 304 and since.data == b""
    older = http_date(generation(seeds_site).modified.timestamp() - 60)
    assert seeds_site.get(GENAI, headers={"If-Modified-Since": older}).status_code == 200


def test_a_page_not_found_has_no_tag(seeds_site: FlaskClient) -> None:
    reply = seeds_site.get("/page/benchmark/no-such/benchmark")
    assert reply.status_code == 404 and "ETag" not in reply.headers


def test_once_the_store_changes_the_old_tag_no_longer_holds(
    kept: Path, five: list[Path], tmp_path: Path
) -> None:
    live = served_copy(kept, tmp_path)
    try:
        first = get(live.url + LAION)
        tag = first.headers["ETag"]
        assert get(live.url + LAION, **{"If-None-Match": tag}).status == 304
        page = tmp_path / "v6.md"
        text = dated(value_changed_again(five[-1].read_text(encoding="utf-8")), 8)
        page.write_text(text, encoding="utf-8")
        ingest(live.store, page)  # through the server, which holds the store
        after = get(live.url + LAION, **{"If-None-Match": tag})
    finally:
        assert live.stop() == 0
    assert after.status == 200 and after.headers["ETag"] != tag
    assert b"82.4" in after.body
