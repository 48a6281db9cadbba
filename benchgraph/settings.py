"""Settings, declared once as data: name, default, help, and the kind of value.

Each is read from the environment as ``BENCHGRAPH_<NAME>`` unless given explicitly; the same
table feeds validation, ``--help`` and the README's configuration table.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "integer", "number", "iri"]
# An absolute http(s) IRI: a scheme, an authority, and no character an IRI may not hold.
_HTTP_IRI = re.compile(r"https?://[^\s/?#<>\"{}|\\^`]+[^\s<>\"{}|\\^`]*", re.IGNORECASE)


class SettingError(ValueError):
    """A setting whose value is not valid; the message names the setting and its source."""


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    help: str
    kind: Kind = "text"
    minimum: float | None = None
    command: str = ""  # the command that uses it ("" for every command that opens the store)

    @property
    def env(self) -> str:
        return "BENCHGRAPH_" + self.name.upper()

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    def parse(self, text: str, source: str = "") -> str | int | float:
        """Return ``text`` as this setting's kind; raise SettingError naming it and ``source``."""
        where = f" (from {source})" if source else ""
        try:
            value: str | int | float = (
                int(text)
                if self.kind == "integer"
                else float(text)
                if self.kind == "number"
                else text
            )
        except ValueError:
            article = "an" if self.kind == "integer" else "a"
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is not {article} {self.kind}"
            ) from None
        if self.kind == "iri" and text and not _HTTP_IRI.fullmatch(text):
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is not an absolute http(s) IRI"
            )
        if self.minimum is not None and isinstance(value, int | float) and value < self.minimum:
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is below the minimum {self.minimum:g}"
            )
        return value


SETTINGS = (
    Setting("store", "var/store", "Where the embedded store lives (a folder, created if missing)."),
    Setting("host", "127.0.0.1", "Address the server listens on.", command="serve"),
    Setting(
        "port",
        "8080",
        "TCP port the server listens on (0: any free port; the URL printed says which).",
        "integer",
        0,
        "serve",
    ),
    Setting(
        "base_iri",
        "",
        "Public URL of the service, e.g. https://example.org/benchgraph/ behind a proxy; empty: "
        "the URL each request arrived at. Names the endpoint in the Service Description and the "
        "OpenAPI document, and is the base IRI of queries.",
        command="serve",
    ),
    Setting(
        "query_timeout",
        "5",
        "Seconds a query may run; a longer one is stopped and answered 504.",
        "number",
        0.1,
        "serve",
    ),
    Setting(
        "max_rows",
        "10000",
        "Most rows (or triples) one answer holds; a longer answer is cut there and says so in "
        "the Benchgraph-Truncated header.",
        "integer",
        1,
        "serve",
    ),
    Setting(
        "max_request_bytes",
        "1048576",
        "Largest request body or query text accepted; a larger one is answered 413.",
        "integer",
        1024,
        "serve",
    ),
    Setting(
        "workers",
        "2",
        "Query worker processes, each with the store open read-only: how many queries run at once.",
        "integer",
        1,
        "serve",
    ),
    Setting("threads", "8", "HTTP threads of the server.", "integer", 1, "serve"),
    Setting(
        "id_base",
        "https://w3id.org/benchgraph/id/",
        "Base of the resource IRIs the server answers for: GET /id/PATH describes the resource "
        "whose IRI is this base followed by PATH, whatever host the server runs on.",
        command="serve",
    ),
    Setting(
        "license",
        "",
        "IRI of the data's licence, stated in the VoID description as dcterms:license; "
        "empty: none stated.",
        "iri",
        command="serve",
    ),
    Setting(
        "dump_timeout",
        "600",
        "Seconds writing one dump (/dump.trig and the like) may take; a longer one is stopped "
        "and answered 504. A dump is written once per store state and then served from disk.",
        "number",
        1,
        "serve",
    ),
)
_BY_NAME = {s.name: s for s in SETTINGS}


def get(name: str, explicit: str | None = None) -> str:
    """Return a setting: ``explicit`` if given, else its environment variable, else the default."""
    setting = _BY_NAME[name]
    if explicit is not None:
        return explicit
    return os.environ.get(setting.env, setting.default)


def resolve(
    names: tuple[str, ...], explicit: Mapping[str, object] | None = None
) -> dict[str, str | int | float]:
    """Return the settings ``names`` as typed values: the built-in default, overridden by the
    environment variable, overridden by ``explicit`` (by setting name; None values are ignored).

    Raises SettingError for an unknown name in ``explicit`` or a value that is not valid.
    """
    explicit = {k: v for k, v in (explicit or {}).items() if v is not None}
    unknown = sorted(set(explicit) - set(names))
    if unknown:
        raise SettingError(f"unknown setting {unknown[0]!r} (settings: {', '.join(names)})")
    values: dict[str, str | int | float] = {}
    for name in names:
        setting = _BY_NAME[name]
        if name in explicit:
            values[name] = setting.parse(str(explicit[name]))
        elif setting.env in os.environ:
            values[name] = setting.parse(os.environ[setting.env], setting.env)
        else:
            values[name] = setting.parse(setting.default)
    return values


def markdown_rows() -> list[str]:
    """The README's configuration table rows, one per setting."""
    rows = []
    for s in SETTINGS:
        default = f"`{s.default}`" if s.default else "(empty)"
        rows.append(f"| `{s.flag}` | `{s.env}` | {default} | {s.help} |")
    return rows
