"""A result value as the files write it: one number, kept as published, with what it carries
beside it (a ±, an interval, a percent sign), or refused with a message that says why."""

from __future__ import annotations

import pytest

from ingest.cells import Bounds, Cell, CellError, read_cell
from ingest.records import Spread

READ = [
    ("90.640", Cell("90.640", "90.640")),
    ("2.31%", Cell("2.31", "2.31%", percent=True)),
    ("1e-3", Cell("0.001", "1e-3")),
    ("220k", Cell("220000", "220k", scaled=True)),
    ("0.8428 ± 0.0014",
     Cell("0.8428", "0.8428 ± 0.0014", spread=Spread("0.0014", "not stated", "0.8428 ± 0.0014"))),
    # A value and its interval, of no stated meaning: kept beside the value.
    ("0.14 [0.14, 0.15]", Cell("0.14", "0.14 [0.14, 0.15]", bounds=Bounds("0.14", "0.15"))),
    ("-1.5 [-2.0; -1.0]", Cell("-1.5", "-1.5 [-2.0; -1.0]", bounds=Bounds("-2.0", "-1.0"))),
    ("71.2 (70.1-72.3)", Cell("71.2", "71.2 (70.1-72.3)", bounds=Bounds("70.1", "72.3"))),
    ("71.2 (70.1 – 72.3)", Cell("71.2", "71.2 (70.1 – 72.3)", bounds=Bounds("70.1", "72.3"))),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "cell"), READ, ids=[raw for raw, _ in READ])
def test_a_cell_is_read_as_one_value(raw: str, cell: Cell) -> None:
    assert read_cell(raw) == cell


def test_an_interval_is_kept_in_the_published_cell_and_is_no_spread() -> None:
    cell = read_cell("0.14 [0.14, 0.15]")
    assert not cell.as_published  # so the parsers keep the cell (bg:publishedCell)
    assert cell.spread is None  # no ± and no confidence interval: nothing to rank by


REFUSED = [
    ("0,912", "'0,912' looks like a decimal comma: write 0.912"),
    ("-0,5", "'-0,5' looks like a decimal comma: write -0.5"),
    ("12,5 %", "'12,5 %' looks like a decimal comma: write 12.5%"),
    ("1,250", "'1,250' has a comma that may be a decimal comma or a thousands separator: write "
              "1.250 or 1250"),
    ("1,234,567", "'1,234,567' has thousands separators: write 1234567"),
    ("TBD", "no value ('TBD')"),
    ("", "no value (empty)"),
    ("0.2 [0.3, 0.4]", "'0.2 [0.3, 0.4]': the value is not inside its interval"),
    ("0.5 [0.6, 0.4]", "'0.5 [0.6, 0.4]': the value is not inside its interval"),
    # Parentheses that do not hold a range around the value may hold other values.
    ("71.2 (60.1-70.3)", "'71.2 (60.1-70.3)': several values in one cell"),
    ("71.2 (70.1, 72.3)", "'71.2 (70.1, 72.3)': several values in one cell"),
    ("(32.76 32.07 26.26 22.74)", "'(32.76 32.07 26.26 22.74)': several values in one cell"),
    ("81 / 82", "'81 / 82': several values in one cell"),
]  # fmt: skip


@pytest.mark.parametrize(("raw", "message"), REFUSED, ids=[raw or "empty" for raw, _ in REFUSED])
def test_a_cell_of_no_single_number_is_refused_saying_why(raw: str, message: str) -> None:
    with pytest.raises(CellError) as refused:
        read_cell(raw)
    assert str(refused.value) == message
