"""The OpenAPI document covers every route of the app, and says what every answer holds."""

from __future__ import annotations

import re
from typing import Any

from flask.testing import FlaskClient

# The store owner's loopback path (server/private.py) is no part of the public API: it answers
# only its holder's secret, and is described in that module instead.
PRIVATE = "/_store/"


def _pattern(rule: str) -> re.Pattern[str]:
    """A URL rule as a pattern that the document's paths for it match (``/queries/<name>``
    is documented once per named query; ``/id/<path:path>`` as ``/id/{path}``)."""
    parts = re.split(r"<(?:([a-z]+):)?[^>]+>", rule)
    text = ""
    for i, part in enumerate(parts):
        if i % 2 == 0:
            text += re.escape(part)
        else:
            text += "(?:\\{[^}]+\\}|" + (".+" if part == "path" else "[^/]+") + ")"
    return re.compile(text + "$")


def test_every_route_is_in_the_openapi_document(client: FlaskClient) -> None:
    documented = set(client.get("/openapi.json").get_json()["paths"])
    app = client.application
    missing = [
        rule.rule
        for rule in app.url_map.iter_rules()
        if not rule.rule.startswith(PRIVATE)
        and not any(_pattern(rule.rule).match(path) for path in documented)
    ]
    assert not missing, f"routes missing from server/docs.py: {missing}"


def test_every_answer_in_the_openapi_document_has_a_schema(client: FlaskClient) -> None:
    document: dict[str, Any] = client.get("/openapi.json").get_json()
    bare = []
    for path, operations in document["paths"].items():
        for method, operation in operations.items():
            for code, answer in operation["responses"].items():
                if "$ref" in answer or code == "304":
                    continue
                body = answer.get("content")
                if not body or any(not kind.get("schema") for kind in body.values()):
                    bare.append(f"{method.upper()} {path} {code}")
    assert not bare, bare
