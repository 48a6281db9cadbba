"""``python -m benchgraph.cli``: the ``benchgraph`` command."""

from benchgraph.cli import main

raise SystemExit(main())
