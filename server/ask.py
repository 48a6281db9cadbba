"""Ask a running benchgraph server one named query over HTTP and print the answer.

    python -m server.ask URL NAME [PARAM=VALUE ...]

Waits up to a minute for the server to come up, then prints the request and the rows as a
table. Exits 0 on an answer, 1 on an error answer or no server. ``make run`` uses it.
"""

from __future__ import annotations

import csv
import io
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence

WAIT_SECONDS = 60.0


def ask(url: str, name: str, params: dict[str, str]) -> tuple[str, list[list[str]]]:
    """GET the named query as CSV; return the URL asked and the rows (header first).

    Raises urllib.error.HTTPError for an error answer, URLError when no server answers in time.
    """
    target = f"{url.rstrip('/')}/queries/{name}?{urllib.parse.urlencode(params)}"
    request = urllib.request.Request(target, headers={"Accept": "text/csv"})
    deadline = time.monotonic() + WAIT_SECONDS
    while True:
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read().decode("utf-8")
            return target, list(csv.reader(io.StringIO(text)))
        except urllib.error.HTTPError:
            raise
        except urllib.error.URLError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) < 2:
        sys.stderr.write(__doc__ or "")
        return 1
    url, name, *pairs = args
    params = dict(pair.partition("=")[::2] for pair in pairs)
    try:
        target, rows = ask(url, name, params)
    except urllib.error.HTTPError as error:
        sys.stderr.write(f"{error.code}: {error.read().decode('utf-8', 'replace')}\n")
        return 1
    except urllib.error.URLError as error:
        sys.stderr.write(f"no answer from {url}: {error.reason}\n")
        return 1
    print(f"GET {target}")
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))] if rows else []
    for number, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)))
        if number == 0:
            print("  ".join("-" * width for width in widths))
    print(f"({len(rows) - 1} row{'s' if len(rows) != 2 else ''})\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
