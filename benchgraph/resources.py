"""Where the Turtle and SPARQL files live. The only module that knows.

By default: in an installed wheel, the package's own ``_resources/`` folder, where the build puts
the top-level ``ontology/``, ``shapes/`` and ``queries/`` folders (pyproject.toml's package-dir);
in a checkout (an editable install), those folders themselves, beside the packages.
``BENCHGRAPH_RESOURCES`` or :func:`set_root` point elsewhere (tests do).
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path

_PACKAGED = Path(__file__).resolve().parent / "_resources"
_CHECKOUT = Path(__file__).resolve().parent.parent
_root: Path | None = None


def root() -> Path:
    """Return the folder that holds ``ontology/``, ``shapes/`` and ``queries/``."""
    if _root is not None:
        return _root
    env = os.environ.get("BENCHGRAPH_RESOURCES")
    if env:
        return Path(env)
    return _PACKAGED if _packaged() else _CHECKOUT


@lru_cache(maxsize=1)
def _packaged() -> bool:
    """Whether the package carries its own resources (a wheel): looked at once, as the way
    benchgraph is installed does not change while it runs."""
    return (_PACKAGED / "queries").is_dir()


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
