"""Which source a file is, from where it stands: a model card's Hugging Face repository.

A model card's ``model-index`` block does not say which repository it belongs to, and many
cards give their models the same name (thousands call theirs "PPO"), so a card is told from
another by its repository, found in this order:

1. given at ingest: ``benchgraph ingest --repository ORG/NAME[@REVISION] CARD``;
2. a manifest, :data:`MANIFEST`, in the card's folder or a folder above it, mapping paths
   (relative to the manifest's folder) to ``ORG/NAME`` or ``{repository: ORG/NAME, revision:
   REV}``;
3. the Hugging Face cache layout ``models--ORG--NAME/snapshots/REVISION/README.md`` (what
   ``huggingface_hub`` downloads);
4. the folder convention: a folder given to ingest holding ``ORG/NAME/README.md`` (the path
   from that folder is exactly those three parts).

Otherwise the card's repository is unknown, and its content hash is its identity: it is its
own source, never another card's newer version (:mod:`ingest.model_index`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

MANIFEST = "benchgraph-sources.yml"
# A Hub repository: an owner and a name, each of letters, digits, '-', '_' and '.'.
_PART = r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}"
_REPOSITORY = re.compile(rf"({_PART})/({_PART})")
_REVISION = re.compile(r"[A-Za-z0-9._/-]{1,200}")
_CACHE = re.compile(rf"models--({_PART})--({_PART})")
_CARD = "readme.md"


class LocatingError(ValueError):
    """A repository, a revision or a manifest that cannot be read; ``str()`` names the file or
    the option and what is wrong."""


@dataclass(frozen=True)
class Repository:
    """A model card's Hugging Face repository (``ORG/NAME``), and its revision when known."""

    name: str
    revision: str | None = None


def repository(text: str, where: str = "--repository") -> Repository:
    """``ORG/NAME`` or ``ORG/NAME@REVISION`` as a Repository. Raises LocatingError naming
    ``where`` for text of another form."""
    name, _, revision = text.strip().partition("@")
    if not _REPOSITORY.fullmatch(name):
        raise LocatingError(
            f"{where}: {text!r} is not a Hugging Face repository (ORG/NAME, as in "
            "huggingface.co/ORG/NAME, optionally @REVISION)"
        )
    if revision and not _REVISION.fullmatch(revision):
        raise LocatingError(f"{where}: {revision!r} is not a revision (a commit or branch name)")
    return Repository(name, revision or None)


class Locator:
    """Finds the repository of each card, reading each folder's manifest once."""

    def __init__(self) -> None:
        self._manifests: dict[Path, Mapping[Path, Repository]] = {}

    def locate(self, path: Path, root: Path | None = None) -> Repository | None:
        """The repository the file at ``path`` is a card of, by a manifest, the cache layout
        or (``root`` the folder given to ingest, in which it was found) the folder convention
        (see the module); None when none says. Raises LocatingError for a manifest that
        cannot be read."""
        resolved = path.resolve()
        for folder in resolved.parents:
            entries = self._manifest(folder)
            if resolved in entries:
                return entries[resolved]
        if resolved.name.lower() != _CARD:
            return None
        return _cached(resolved) or (_conventional(resolved, root) if root else None)

    def _manifest(self, folder: Path) -> Mapping[Path, Repository]:
        if folder not in self._manifests:
            file = folder / MANIFEST
            self._manifests[folder] = read_manifest(file) if file.is_file() else {}
        return self._manifests[folder]


def read_manifest(file: Path) -> dict[Path, Repository]:
    """The entries of the manifest ``file``: each path it names (resolved from its folder) and
    its repository. Raises LocatingError, naming the file and the entry, for a manifest that
    is not YAML, not a mapping, or has an entry of another form."""
    try:
        document = yaml.safe_load(file.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as error:
        raise LocatingError(f"{file}: cannot read: {error}") from None
    except yaml.YAMLError as error:
        raise LocatingError(f"{file}: not valid YAML: {error}") from None
    if document is None:
        return {}
    if not isinstance(document, dict):
        raise LocatingError(f"{file}: not a mapping of card paths to repositories ({_HOW})")
    entries: dict[Path, Repository] = {}
    for given, value in document.items():
        where = f"{file}: {given}"
        if isinstance(value, str):
            found = repository(value, where)
        elif isinstance(value, dict) and isinstance(value.get("repository"), str):
            found = repository(value["repository"], where)
            revision = value.get("revision")
            if revision is not None:
                found = repository(f"{found.name}@{revision}", where)
        else:
            raise LocatingError(f"{where}: not a repository ({_HOW})")
        entries[(file.parent / str(given)).resolve()] = found
    return entries


_HOW = "each line reads `path/to/card.md: ORG/NAME` or `path: {repository: ORG/NAME, revision: R}`"


def _cached(card: Path) -> Repository | None:
    """``…/models--ORG--NAME/snapshots/REVISION/README.md``: ORG/NAME at REVISION."""
    parts = card.parts
    if len(parts) < 4 or parts[-3] != "snapshots":
        return None
    found = _CACHE.fullmatch(parts[-4])
    if found is None:
        return None
    return Repository(f"{found[1]}/{found[2]}", parts[-2])


def _conventional(card: Path, root: Path) -> Repository | None:
    """``ROOT/ORG/NAME/README.md``: ORG/NAME."""
    try:
        parts = card.relative_to(root.resolve()).parts
    except ValueError:
        return None
    if len(parts) != 3:
        return None
    name = f"{parts[0]}/{parts[1]}"
    return Repository(name) if _REPOSITORY.fullmatch(name) else None
