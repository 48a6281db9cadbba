"""The SPARQL editor's files: YASGUI's build (``/editor/assets/…``) and the predeclared prefixes
as its prefix completion reads them (``/editor/prefixes.json``).

YASGUI (``@zazuko/yasgui``, pinned in package.json) is installed by ``make install`` into the
checkout's ``node_modules/``; the ``editor_assets`` setting names its build folder, resolved
once when the app is made. A wheel carries no such folder: the query page is then its plain
form, which says how to install the editor, and the asset routes answer 404.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path

from flask import Blueprint, Flask, Response, current_app, send_from_directory, url_for

from benchgraph.prefixes import PREDECLARED
from benchgraph.queries import NamedQuery
from benchgraph.settings import SettingError
from server.errors import ApiError

blueprint = Blueprint("editor", __name__)

# Where `make install` puts YASGUI's build, beside the server package in a checkout.
CHECKOUT_BUILD = Path(__file__).resolve().parents[1] / "node_modules/@zazuko/yasgui/build"
SCRIPT = "yasgui.min.js"
STYLE = "yasgui.min.css"
_YEAR = 365 * 24 * 3600
_NOT_INSTALLED = "the SPARQL editor is not installed here: `make install` installs it"


def resolve(setting: str) -> Path | None:
    """The folder of YASGUI's build: ``setting`` if given (SettingError when it does not hold
    the build), else the checkout's ``node_modules`` copy when present, else None."""
    if not setting:
        return CHECKOUT_BUILD if (CHECKOUT_BUILD / SCRIPT).is_file() else None
    folder = Path(setting).resolve()
    if not (folder / SCRIPT).is_file():
        raise SettingError(
            f"setting editor_assets: {setting!r} holds no {SCRIPT}: name YASGUI's build folder "
            "(node_modules/@zazuko/yasgui/build after `make install`), or leave it empty"
        )
    return folder


def register(app: Flask, setting: str) -> None:
    """Register the editor's routes on ``app``, its assets read from the folder ``setting``
    names (:func:`resolve`). Raises SettingError for a folder without the build."""
    folder = resolve(setting)
    version = ""
    if folder is not None:
        described = folder.parent / "package.json"
        if described.is_file():
            version = str(json.loads(described.read_text("utf-8")).get("version", ""))
    app.extensions["editor"] = (folder, version)
    app.register_blueprint(blueprint)


def page(endpoint: str, catalogue: Mapping[str, NamedQuery]) -> dict[str, object] | None:
    """What the query page needs to mount the editor, or None when it is not installed: the
    URLs of its script and style sheet (naming YASGUI's version, so that a new one is fetched
    anew) and its settings: the ``endpoint`` it queries, where it reads the prefixes it
    completes, the predeclared prefixes (its parser knows them, as the server's does) and the
    named queries of ``catalogue`` as examples (name: text)."""
    folder, version = current_app.extensions["editor"]
    if folder is None:
        return None
    return {
        "script": url_for("editor.asset", name=SCRIPT, v=version or None),
        "style": url_for("editor.asset", name=STYLE, v=version or None),
        "settings": {
            "endpoint": endpoint,
            "prefixes": url_for("editor.prefixes"),
            "predeclared": PREDECLARED,
            "examples": {name: named.text for name, named in catalogue.items()},
        },
    }


@blueprint.get("/editor/assets/<path:name>")
def asset(name: str) -> Response:
    """A file of YASGUI's build, cached for a year; 404 when the editor is not installed or
    the build has no such file."""
    folder, _ = current_app.extensions["editor"]
    if folder is None:
        raise ApiError(404, _NOT_INSTALLED)
    if ".." in Path(name).parts or not (folder / name).is_file():
        raise ApiError(404, f"the SPARQL editor has no file {name!r}")
    return send_from_directory(folder, name, max_age=_YEAR)


@blueprint.get("/editor/prefixes.json")
def prefixes() -> Response:
    """The predeclared prefixes (prefix: namespace), which the editor completes after
    ``PREFIX``; a query may use them without declaring them."""
    response = Response(json.dumps(PREDECLARED), content_type="application/json")
    response.headers["Cache-Control"] = "public, max-age=3600"
    return response
