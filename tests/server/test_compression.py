"""gzip on a real server: text answers compressed for the clients that accept it, the same
bytes once decompressed, a weak ETag that still revalidates, and no compression where it
would not do (a client that does not ask, a small answer, a streamed dump)."""

from __future__ import annotations

import gzip

from support.live import Live, fetch


def test_a_page_is_sent_compressed_to_a_client_that_accepts_gzip(server: Live) -> None:
    url = server.url + "site"
    plain = fetch(url, Accept="text/html")
    packed = fetch(url, Accept="text/html", Accept_Encoding="gzip")
    assert plain.status == packed.status == 200
    assert "content-encoding" not in plain.headers
    assert packed.headers["content-encoding"] == "gzip"
    assert "Accept-Encoding" in packed.headers["vary"]
    assert gzip.decompress(packed.body) == plain.body
    assert len(packed.body) < len(plain.body) / 2


def test_a_compressed_answer_s_weak_etag_revalidates(server: Live) -> None:
    url = server.url + "queries/benchmarks"
    first = fetch(url, Accept="application/sparql-results+json", Accept_Encoding="gzip")
    assert first.headers["content-encoding"] == "gzip"
    tag = first.headers["etag"]
    assert tag.startswith('W/"'), tag
    again = fetch(
        url,
        Accept="application/sparql-results+json",
        Accept_Encoding="gzip",
        If_None_Match=tag,
    )
    assert again.status == 304
    # the uncompressed answer's strong tag names the same answer
    plain = fetch(url, Accept="application/sparql-results+json")
    assert plain.headers["etag"] == tag.removeprefix("W/")


def test_small_answers_and_streamed_dumps_are_sent_as_they_are(server: Live) -> None:
    small = fetch(server.url + "queries/nothing-such", Accept_Encoding="gzip")
    assert small.status == 404 and len(small.body) < 1024
    assert "content-encoding" not in small.headers
    dump = fetch(server.url + "dump.nt", Accept_Encoding="gzip")
    assert dump.status == 200 and "content-encoding" not in dump.headers
    assert dump.body.startswith(b"<")
