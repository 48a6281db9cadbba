"""Settings, declared once as data: name, default, help.

Each is read from the environment as ``BENCHGRAPH_<NAME>`` unless given explicitly; the same
table feeds ``--help`` and the README's configuration table.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Setting:
    name: str
    default: str
    help: str

    @property
    def env(self) -> str:
        return "BENCHGRAPH_" + self.name.upper()


SETTINGS = (
    Setting("store", "var/store", "Where the embedded store lives (a folder, created if missing)."),
)
_BY_NAME = {s.name: s for s in SETTINGS}


def get(name: str, explicit: str | None = None) -> str:
    """Return a setting: ``explicit`` if given, else its environment variable, else the default."""
    setting = _BY_NAME[name]
    if explicit is not None:
        return explicit
    return os.environ.get(setting.env, setting.default)
