"""JSON and YAML documents read with their numbers as published, and their errors placed.

:func:`decoded` reads a file's bytes as UTF-8 text, or says at which byte they are not.
Result files are JSON (Papers with Code) or YAML (model cards, score files). Both readers keep
every number as the text the file wrote (``90.640`` stays ``"90.640"``, not the float 90.64),
and a file that does not parse raises PageError naming the line and column. :func:`path` writes
the place of a value inside a document the way the messages name it (``[3].datasets[0].sota``),
and :func:`shown` says what a value is when it is not what the file should hold there.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Mapping
from decimal import Decimal
from typing import Any

import yaml

from ingest.records import PageError


class Number(str):
    """A number as a YAML file wrote it (a ``str`` of its text)."""


# libyaml's loader where PyYAML was built with it (about 17 times faster), else PyYAML's own.
_SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


class _Loader(_SafeLoader):  # type: ignore[misc, valid-type]
    """YAML's safe loader, with ints and floats kept as their text."""


def _number(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Number:
    return Number(loader.construct_scalar(node))


_Loader.add_constructor("tag:yaml.org,2002:int", _number)
_Loader.add_constructor("tag:yaml.org,2002:float", _number)


def decoded(data: bytes, origin: str, hint: str) -> str:
    """``data`` as UTF-8 text (a byte-order mark dropped). Raises PageError naming the first
    byte that is not UTF-8, with ``hint`` (what the file should be)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise PageError(origin, f"byte {error.start}", "not UTF-8 text", hint) from None


def load_json(text: str, origin: str) -> Any:
    """The JSON value of ``text``, numbers as Decimal (``str()`` gives them back as written).

    Raises PageError with the line and column of a syntax error.
    """
    try:
        return json.loads(text, parse_float=Decimal, parse_int=Decimal)
    except json.JSONDecodeError as error:
        where = f"line {error.lineno}, column {error.colno}"
        raise PageError(origin, where, f"not valid JSON: {error.msg}") from None


def load_yaml(text: str, origin: str) -> Any:
    """The YAML value of ``text``, numbers as :class:`Number`. Raises PageError with the line
    and column of a syntax error."""
    try:
        return yaml.load(text, Loader=_Loader)  # a SafeLoader subclass: no object tags
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}" if mark else ""
        raise PageError(origin, where, f"not valid YAML: {error.problem or error}") from None
    except yaml.YAMLError as error:
        raise PageError(origin, "", f"not valid YAML: {error}") from None


def path(*steps: str | int) -> str:
    """The place of a value: ``path("model-index", 0, "results")`` → ``model-index[0].results``."""
    text = ""
    for step in steps:
        text += f"[{step}]" if isinstance(step, int) else (f".{step}" if text else step)
    return text


def shown(value: object) -> str:
    """What ``value``, read from a JSON or YAML document, is, for a message that says it is
    not what belongs there: ``null``, ``true``, ``the number 12.5``, ``the text 'n/a'`` (cut
    past 60 characters), ``the date 2021-03-01``, ``a list``, ``an empty list``, ``a mapping``
    (a JSON object or a YAML mapping), else ``a`` and its type's name."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Number | Decimal | int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value if len(value) <= 60 else value[:57] + '...'!r}"
    if isinstance(value, datetime.date):
        return f"the date {value.isoformat()}"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a {type(value).__name__}"
