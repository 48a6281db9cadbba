"""Settings whose value is a size (``query_memory``): read in bytes or binary units, refused
in plain words."""

from __future__ import annotations

import pytest

from benchgraph import settings

MEMORY = next(s for s in settings.SETTINGS if s.name == "query_memory")


@pytest.mark.parametrize(
    ("text", "size"),
    [
        ("1073741824", 1 << 30),
        ("300MiB", 300 << 20),
        ("300 MiB", 300 << 20),
        ("4gib", 4 << 30),
        (" 1.5GiB ", 3 << 29),
        ("65536KiB", 64 << 20),
        ("1TiB", 1 << 40),
        ("70000000B", 70_000_000),
    ],
)
def test_a_size_is_bytes_or_a_number_with_a_binary_unit(text: str, size: int) -> None:
    assert MEMORY.parse(text) == size


@pytest.mark.parametrize("text", ["3GB", "3G", "4 gigs", "-1GiB", "1e9", "1.5", "GiB", ""])
def test_anything_else_is_refused_saying_what_to_write(text: str) -> None:
    with pytest.raises(settings.SettingError) as refused:
        MEMORY.parse(text, "BENCHGRAPH_QUERY_MEMORY")
    message = str(refused.value)
    assert message.startswith("setting query_memory (from BENCHGRAPH_QUERY_MEMORY): ")
    assert "is not a size" in message and "GiB" in message and "1073741824" in message


def test_a_size_below_the_minimum_is_refused_in_mib() -> None:
    with pytest.raises(settings.SettingError, match="'1MiB' is below the minimum 64 MiB"):
        MEMORY.parse("1MiB")


def test_the_default_and_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    assert settings.resolve(("query_memory",)) == {"query_memory": 4 << 30}
    monkeypatch.setenv("BENCHGRAPH_QUERY_MEMORY", "512MiB")
    assert settings.resolve(("query_memory",)) == {"query_memory": 512 << 20}
    assert settings.resolve(("query_memory",), {"query_memory": "1GiB"}) == {
        "query_memory": 1 << 30
    }
    monkeypatch.setenv("BENCHGRAPH_QUERY_MEMORY", "lots")
    with pytest.raises(settings.SettingError, match="BENCHGRAPH_QUERY_MEMORY"):
        settings.resolve(("query_memory",))


@pytest.mark.parametrize(
    ("size", "shown"),
    [(300 << 20, "300 MiB"), (4 << 30, "4 GiB"), (3 << 29, "1.5 GiB"), (512, "512 B")],
)
def test_sizes_are_shown_in_the_largest_unit_they_reach(size: int, shown: str) -> None:
    assert settings.format_size(size) == shown
