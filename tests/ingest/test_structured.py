"""What the parsers' messages call a value that is not what belongs in its place."""

from __future__ import annotations

import pytest

from ingest.cells import CellError, read_cell
from ingest.structured import load_json, load_yaml, shown


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("null", "null"),
        ("true", "true"),
        ("90.640", "the number 90.640"),
        ('"n/a"', "the text 'n/a'"),
        ('"' + "x" * 70 + '"', f"the text '{'x' * 57}...'"),
        ("[]", "an empty list"),
        ("[1]", "a list"),
        ('{"a": 1}', "a mapping"),
    ],
)
def test_a_json_value_is_shown_as_the_file_wrote_it(text: str, expected: str) -> None:
    assert shown(load_json(text, "t.json")) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("~", "null"),
        ("false", "false"),
        ("12.50", "the number 12.50"),
        ("'12.50'", "the text '12.50'"),
        ("2021-03-01", "the date 2021-03-01"),
        ("[a, b]", "a list"),
        ("{a: 1}", "a mapping"),
    ],
)
def test_a_yaml_value_is_shown_in_the_same_words(text: str, expected: str) -> None:
    assert shown(load_yaml(text, "t.yaml")) == expected


def test_a_cell_that_is_no_scalar_is_refused_in_those_words() -> None:
    with pytest.raises(CellError) as caught:
        read_cell(load_yaml("{value: 1}", "t.yaml"))
    assert str(caught.value) == "a mapping is not a number"
