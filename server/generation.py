"""Which state of the store a server answers from: its generation, which keys the answer cache
and makes the ETags and Last-Modified of every answer."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from benchgraph.store import holder


@dataclass(frozen=True)
class Generation:
    """A state of the store: ``tag``, a fingerprint of its files, and when it was written."""

    tag: str
    modified: datetime


def fingerprint(location: Path) -> Generation:
    """The generation of the store folder ``location``: a digest of its data files' names,
    sizes and times (its text logs, lock, holder record and snapshots left out), and the time
    of the newest."""
    digest = hashlib.sha256()
    newest = 0.0
    for path in sorted(location.iterdir()):
        if not holder.is_data(path.name) or path.name.startswith("LOG") or not path.is_file():
            continue
        stat = path.stat()
        digest.update(f"{path.name}\0{stat.st_size}\0{stat.st_mtime_ns}\n".encode())
        newest = max(newest, stat.st_mtime)
    modified = datetime.fromtimestamp(int(newest), UTC)
    return Generation(digest.hexdigest()[:20], modified)
