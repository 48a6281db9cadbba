"""The answer cache's bounds: in answers, and in bytes together (an answer in rows counted with
what Python spends on each row and value)."""

from __future__ import annotations

from server.cache import Cache
from server.engine import ROW_BYTES, VALUE_BYTES, VALUES, Answered, Values


def answer(size: int) -> Answered:
    return Answered("solutions", "json", b"x" * size, 1, False)


def test_answers_past_the_bytes_bound_are_evicted_least_recently_used_first() -> None:
    cache = Cache(100, size=1000)
    for name in ("a", "b", "c"):
        cache.put(("g1", name), answer(400))
    assert cache.get(("g1", "a")) is None  # 1,200 bytes: the oldest went
    assert cache.get(("g1", "b")) is not None  # and b is now the most recently used
    cache.put(("g1", "d"), answer(400))
    assert cache.get(("g1", "c")) is None
    assert cache.get(("g1", "b")) is not None and cache.get(("g1", "d")) is not None
    assert cache.kept == 800


def test_an_answer_kept_again_under_its_key_is_counted_once() -> None:
    cache = Cache(100, size=1000)
    for _ in range(10):
        cache.put(("g1", "same"), answer(400))
    assert cache.kept == 400
    assert cache.get(("g1", "same")) is not None


def test_an_answer_larger_than_the_bytes_bound_is_not_kept() -> None:
    cache = Cache(100, size=1000)
    cache.put(("g1", "small"), answer(10))
    cache.put(("g1", "large"), answer(1001))
    assert cache.get(("g1", "large")) is None
    assert cache.get(("g1", "small")) is not None  # and evicted nothing to make room


def test_an_answer_in_rows_counts_its_rows_and_values_not_only_their_text() -> None:
    rows = tuple({"s": f"https://example.org/{n}", "n": str(n)} for n in range(3))
    found = Answered("solutions", VALUES, b"", 3, False, Values(("s", "n"), rows))
    text = sum(len(v) for row in rows for v in row.values())
    assert found.size == text + 3 * ROW_BYTES + 6 * VALUE_BYTES
