"""Where the Turtle and SPARQL files live. The only module that knows.

By default the folders beside the packages (``ontology/``, ``shapes/``, ``queries/``);
``BENCHGRAPH_RESOURCES`` or :func:`set_root` point elsewhere (tests do).
"""

from __future__ import annotations

import os
from pathlib import Path

_DEFAULT_ROOT = Path(__file__).resolve().parent.parent
_root: Path | None = None


def root() -> Path:
    """Return the folder that holds ``ontology/``, ``shapes/`` and ``queries/``."""
    if _root is not None:
        return _root
    env = os.environ.get("BENCHGRAPH_RESOURCES")
    return Path(env) if env else _DEFAULT_ROOT


def set_root(path: Path | None) -> None:
    """Use ``path`` as the resource folder from now on (None: back to the default)."""
    global _root
    _root = path


def ontology_dir() -> Path:
    return root() / "ontology"


def shapes_dir() -> Path:
    return root() / "shapes"


def queries_dir() -> Path:
    return root() / "queries"
