"""The application factory: the one place a benchgraph web app is made.

``create_app(config)`` resolves the settings (built-in defaults, then ``BENCHGRAPH_*``
environment variables, then ``config``), loads the named-query catalogue (a malformed header
stops it here, naming the file and line) and registers one blueprint per surface: the SPARQL
protocol (``/sparql``), the named queries (``/queries``), the API description (``/`` and
``/openapi.json``), the linked data (``/id/...``, ``/void``), the dumps (``/dump.*``), the site
(``/site``, the indexes ``/site/<kind>``, ``/page/...``), with its charts over time, the badges
and embeds (``/badge/...``, ``/embed/...``), the changes feed (``/changes.atom``), the SPARQL
editor's files (``/editor/...``) and, with a write token file, the write API (``/pages``).
Nothing is read at import time.
"""

from __future__ import annotations

import atexit
from collections.abc import Mapping

from flask import Flask

from benchgraph import queries, settings
from benchgraph.outcomes import Gate
from benchgraph.settings import SettingError
from server import (
    aliases,
    badges,
    board_order,
    compression,
    cors,
    docs,
    dumps,
    editor,
    errors,
    feed,
    indexes,
    linked,
    named,
    pages,
    private,
    progress,
    revalidation,
    site,
    sparql,
    vocabulary,
)
from server.backend import Backend


def create_app(config: Mapping[str, object] | None = None, gate: Gate | None = None) -> Flask:
    """Return a configured benchgraph app.

    ``config`` maps setting names (see ``benchgraph.settings``) to values; ``gate`` is what
    the write API runs a page posted through (:class:`ingest.gate.IngestGate`, which
    ``benchgraph serve`` gives), needed only with ``write_token_file``. Raises SettingError
    for a bad setting (a write token file that is not private, say) and QueryError for a named
    query whose header is malformed. The app's query workers start on first use;
    ``app.extensions["benchgraph"].pool.close()`` stops them.
    """
    # The settings a served app uses (host, port and threads are read by `benchgraph serve`).
    values = settings.resolve(settings.SERVE, config)
    token_file = str(values["write_token_file"])
    token = pages.read_token(token_file, str(values["store"])) if token_file else None
    catalogue = queries.catalogue()
    app = Flask(__name__)
    app.config["MAX_CONTENT_LENGTH"] = int(values["max_request_bytes"])
    app.config["MAX_FORM_MEMORY_SIZE"] = int(values["max_request_bytes"])
    app.config["BENCHGRAPH"] = values
    app.json.sort_keys = False  # type: ignore[attr-defined]
    app.json.ensure_ascii = False  # type: ignore[attr-defined]
    backend = Backend(values, catalogue)
    app.extensions["benchgraph"] = backend
    atexit.register(backend.pool.close)
    errors.register(app)
    app.register_blueprint(sparql.blueprint)
    app.register_blueprint(named.blueprint)
    app.register_blueprint(docs.blueprint)
    app.register_blueprint(linked.blueprint)
    app.register_blueprint(dumps.blueprint)
    app.register_blueprint(site.blueprint)
    app.register_blueprint(board_order.blueprint)
    app.register_blueprint(indexes.blueprint)
    app.register_blueprint(feed.blueprint)
    app.register_blueprint(vocabulary.blueprint)
    app.register_blueprint(private.blueprint)
    app.register_blueprint(progress.blueprint)
    app.register_blueprint(badges.blueprint)
    editor.register(app, str(values["editor_assets"]))
    if token is not None:
        if gate is None:
            raise SettingError(
                "setting write_token_file: the write API needs the ingest's gate, which "
                "`benchgraph serve` gives the app (create_app(config, gate=IngestGate()))"
            )
        pages.register(app, token, gate)
        aliases.register(app)
    cors.register(app, str(values["cors_origins"]))
    compression.register(app)
    revalidation.register(app)  # after compression, which weakens the tag it sets
    return app
