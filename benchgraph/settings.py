"""Settings, declared once as data: name, default, help, and the kind of value.

Each is read from the environment as ``BENCHGRAPH_<NAME>`` unless given explicitly; the same
table feeds validation, ``--help`` and the configuration table of docs/configuration.md.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

Kind = Literal["text", "integer", "number", "iri", "origins", "bytes", "path"]
# The engines `benchgraph validate --engine` chooses between (see benchgraph.validation).
Engine = Literal["auto", "pyshacl"]
ENGINES: tuple[Engine, ...] = ("auto", "pyshacl")
# An absolute http(s) IRI: a scheme, an authority, and no character an IRI may not hold.
_HTTP_IRI = re.compile(r"https?://[^\s/?#<>\"{}|\\^`]+[^\s<>\"{}|\\^`]*", re.IGNORECASE)
# A web origin as browsers send it in Origin: scheme, host and optional port, nothing after.
_ORIGIN = re.compile(r"https?://[^\s/?#<>\"{}|\\^`@]+", re.IGNORECASE)
# A size: a number of bytes, or a number and a binary unit (1.5GiB, 300 MiB).
_SIZE = re.compile(r"(\d+(?:\.\d+)?) *([a-z]*)", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


class SettingError(ValueError):
    """A setting whose value is not valid; the message names the setting and its source."""


def parse_size(text: str) -> int:
    """Return the number of bytes ``text`` says: a whole number of bytes (``1073741824``), or a
    number and one of the units B, KiB, MiB, GiB, TiB (``300MiB``, ``1.5 GiB``; any case).

    Raises ValueError for anything else, decimal units (``GB``) included: they are ambiguous.
    """
    found = _SIZE.fullmatch(text.strip())
    unit = found[2].lower() if found else None
    if found is None or unit not in _UNITS or (_UNITS[unit] == 1 and "." in found[1]):
        raise ValueError(f"not a size: {text!r}")
    return int(float(found[1]) * _UNITS[unit])


def format_size(size: int) -> str:
    """``size`` bytes in the largest binary unit it reaches (``300 MiB``, ``1.5 GiB``)."""
    for unit in ("TiB", "GiB", "MiB", "KiB"):
        scale = _UNITS[unit.lower()]
        if size >= scale:
            return f"{size / scale:.4g} {unit}"
    return f"{size} B"


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    help: str
    kind: Kind = "text"
    minimum: float | None = None
    # The command that takes it as a flag ("" every command that opens the store); "remote":
    # read by remote stores from the environment only, no flag.
    command: str = ""
    choices: tuple[str, ...] = ()  # the only values it takes (none: any of its kind)

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
                else parse_size(text)
                if self.kind == "bytes"
                else text
            )
        except ValueError:
            if self.kind == "bytes":
                raise SettingError(
                    f"setting {self.name}{where}: {text!r} is not a size: write a whole number "
                    "of bytes (1073741824) or a number with B, KiB, MiB, GiB or TiB (1GiB, "
                    "1.5GiB, 300MiB)"
                ) from None
            article = "an" if self.kind == "integer" else "a"
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is not {article} {self.kind}"
            ) from None
        if self.choices and text not in self.choices:
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is not one of {', '.join(self.choices)}"
            )
        if self.kind == "iri" and text and not _HTTP_IRI.fullmatch(text):
            raise SettingError(
                f"setting {self.name}{where}: {text!r} is not an absolute http(s) IRI"
            )
        if self.kind == "origins" and text.strip() != "*":
            for origin in text.split():
                if not _ORIGIN.fullmatch(origin) or origin.endswith(":"):
                    raise SettingError(
                        f"setting {self.name}{where}: {origin!r} is not an origin (write "
                        "scheme://host or scheme://host:port, no path, no trailing slash); give "
                        "* alone for any origin, or nothing for none"
                    )
        if self.minimum is not None and isinstance(value, int | float) and value < self.minimum:
            shown = format_size(int(self.minimum)) if self.kind == "bytes" else f"{self.minimum:g}"
            raise SettingError(f"setting {self.name}{where}: {text!r} is below the minimum {shown}")
        return value


SETTINGS = (
    Setting(
        "store",
        "var/store",
        "The store: a folder for the embedded store (ingest and copy --to create it if missing; "
        "the other commands refuse a folder that holds none), or the query endpoint URL of a "
        "SPARQL 1.1 server (http://… or https://…; see Remote stores).",
    ),
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
        "query_memory",
        "4GiB",
        "Memory one query worker may use while it runs a query, a named query or a dump (its "
        "own resident memory; shared libraries not counted), in bytes or with KiB, MiB or GiB: "
        "512MiB, 4GiB. A query that needs more is stopped and answered 503. The largest jobs "
        "measured at 10,000 pages, the parameterless named queries, peak at about 700 MiB; "
        "with the default, two workers at the limit, the spare and the server stay under 9 "
        "GiB of a 24 GiB machine and leave the rest to the page cache.",
        "bytes",
        64 << 20,
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
        "Query worker processes, each reading a snapshot of the store: how many queries run at "
        "once.",
        "integer",
        1,
        "serve",
    ),
    Setting("threads", "8", "HTTP threads of the server.", "integer", 1, "serve"),
    Setting(
        "connection_limit",
        "1000",
        "Most connections the server keeps open at once; past it, new ones wait to be "
        "accepted. The limit on open files is raised to fit them where the system allows.",
        "integer",
        1,
        "serve",
    ),
    Setting(
        "client_connections",
        "100",
        "Most connections open at once from one client address; one more is answered 429 "
        "and closed (0: no cap). Behind a proxy every client has the proxy's address: set 0 "
        "and bound clients in the proxy.",
        "integer",
        0,
        "serve",
    ),
    Setting(
        "client_timeout",
        "30",
        "Seconds a connection may stay idle, and a request (its headers and body) may take to "
        "arrive; past them the connection is closed, a request cut short answered 408.",
        "integer",
        1,
        "serve",
    ),
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
        "and answered 504. A dump whose worker makes no progress (no CPU time, no bytes "
        "written) for `--query-timeout` seconds is stopped sooner and answered 503. A dump is "
        "written once per store state and then served from disk.",
        "number",
        1,
        "serve",
    ),
    Setting(
        "cors_origins",
        "*",
        "Web origins whose pages may read the answers (CORS): * any origin (the data is public "
        "and read-only, so YASGUI and the like work); empty: no CORS headers at all; else a "
        "space-separated list of exact origins (https://example.org), each answered with its "
        "own Access-Control-Allow-Origin and Vary: Origin.",
        "origins",
        command="serve",
    ),
    Setting(
        "editor_assets",
        "",
        "The folder of the SPARQL editor's files (YASGUI's build, which `make install` puts in "
        "node_modules/@zazuko/yasgui/build); empty: that folder of the checkout when present, "
        "else the query page is its plain form.",
        "path",
        command="serve",
    ),
    Setting(
        "write_token_file",
        "",
        "A file holding the token of the write API (POST /pages, DELETE /pages/…; see Write "
        "API), read at start: only its owner may read it (chmod 600), else the server does not "
        "start. Empty: no write API, those routes are 404. Embedded stores only.",
        "path",
        command="serve",
    ),
    Setting(
        "update_url",
        "",
        "A remote store's SPARQL Update endpoint; empty: …/update beside a …/query endpoint "
        "(Oxigraph, Fuseki), else the query endpoint itself.",
        "iri",
        command="remote",
    ),
    Setting(
        "gsp_url",
        "",
        "A remote store's Graph Store Protocol endpoint, to read graphs; empty: …/store beside a "
        "…/query endpoint (Oxigraph), else graphs are read with CONSTRUCT.",
        "iri",
        command="remote",
    ),
    Setting(
        "store_user",
        "",
        "User name for a remote store (HTTP Basic or Digest, as the server asks).",
        command="remote",
    ),
    Setting(
        "store_password",
        "",
        "Password for a remote store; only from the environment or the netrc file, never a "
        "flag, never printed.",
        command="remote",
    ),
    Setting(
        "store_netrc",
        "",
        "A netrc file holding the remote store's user and password (the entry of its host), "
        "read when BENCHGRAPH_STORE_USER is empty.",
        "path",
        command="remote",
    ),
    Setting(
        "store_auth",
        "auto",
        "How credentials are sent: auto (as the server's 401 challenge asks: Basic or Digest), "
        "basic (with every request, unasked) or digest (Digest only).",
        command="remote",
        choices=("auto", "basic", "digest"),
    ),
    Setting(
        "store_timeout",
        "30",
        "Seconds each request to a remote store may take (at least 1).",
        "number",
        1,
        "remote",
    ),
    Setting(
        "store_retries",
        "3",
        "Retries, with backoff from 0.5 s doubling, of a request to a remote store that could "
        "not connect or got 429, 502, 503 or 504.",
        "integer",
        0,
        "remote",
    ),
    Setting(
        "store_request_bytes",
        "8388608",
        "Largest update sent to a remote store in one request; a larger page is staged in "
        "requests of this size and then moved into place at once.",
        "integer",
        4096,
        "remote",
    ),
    Setting(
        "store_request_statements",
        "0",
        "Most statements sent to a remote store in one update request (0: no bound but the "
        "size); a larger page is staged like one past the size. Virtuoso needs 1000.",
        "integer",
        0,
        "remote",
    ),
)
_BY_NAME = {s.name: s for s in SETTINGS}
# The settings of the server: the store's and those `benchgraph serve` takes as flags (host,
# port and threads are read by the command, the others by the app).
SERVE = tuple(s.name for s in SETTINGS if s.name == "store" or s.command == "serve")


def get(name: str, explicit: str | None = None) -> str:
    """Return a setting: ``explicit`` if given, else its environment variable, else the default."""
    setting = _BY_NAME[name]
    if explicit is not None:
        return explicit
    return os.environ.get(setting.env, setting.default)


def named_by(name: str, explicit: str | None = None) -> str:
    """Where the setting ``name`` comes from, as :func:`get` reads it: its option (``--store``),
    its environment variable (``$BENCHGRAPH_STORE``) or its default."""
    setting = _BY_NAME[name]
    if explicit is not None:
        return f"--{name.replace('_', '-')}"
    if setting.env in os.environ:
        return f"${setting.env}"
    return "the default"


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
    """The rows of the configuration table (docs/configuration.md), one per setting."""
    rows = []
    for s in SETTINGS:
        default = f"`{s.default}`" if s.default else "(empty)"
        flag = "" if s.command == "remote" else f"`{s.flag}`"
        rows.append(f"| {flag} | `{s.env}` | {default} | {s.help} |")
    return rows
