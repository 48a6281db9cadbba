"""The write API's alias routes: curators propose, accept, reject and list alias records over
HTTP (see :mod:`benchgraph.aliases`), with the write token, as ``benchgraph alias`` does.

On only with the write API (``write_token_file``); every request must carry the token
(:func:`server.pages.authorised`: 401 without it, nothing read or written). Bodies are JSON
objects; answers are JSON, failures in the error shape. A write runs as the server's one
write, reading the records, deciding and writing in one step, and is answered once queries see
it.

- ``GET /aliases[?status=S]``: the records (of status ``S``: proposed, accepted, rejected).
- ``POST /aliases``: ``{"subject", "target", "by", "evidence"?, "confidence"?}``, subject
  and target IRIs or names: 201 ``"proposed"``, 200 ``"unchanged"`` (the pair has a record,
  which a proposal never overwrites); 422 a name that names nothing or two of another kind.
- ``POST /aliases/<id>/accept`` and ``/reject``: ``{"by"}``: 200 ``"accepted"`` or
  ``"rejected"`` (``"unchanged"`` when it was so); 404 no such record; 409 accepting it would
  make a chain or give its subject a second target.

400 a body that is not a JSON object or lacks a field, 415 a body that is not JSON.
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from flask import Blueprint, Flask, Response, jsonify, request

from benchgraph import aliases, validation
from benchgraph.aliases import AliasError, Outcome
from benchgraph.store.embedded import EmbeddedStore
from server.errors import ApiError
from server.holding import HeldStore
from server.pages import authorised

blueprint = Blueprint("aliases", __name__)
# What each reason an operation is refused for is answered with (a record not found: 404).
_STATUS = {"unknown": 422, "refused": 409, "invalid": 400}


def register(app: Flask) -> None:
    """Add the alias routes to ``app`` (which has the write API: :func:`server.pages.register`)."""
    app.register_blueprint(blueprint)


def _body() -> dict[str, Any]:
    """The request's JSON object; ApiError 415 for a body that is not JSON, 400 for one that
    is not an object."""
    if not request.is_json:
        raise ApiError(415, "the body must be a JSON object (Content-Type: application/json)")
    found = request.get_json(silent=True)
    if not isinstance(found, dict):
        raise ApiError(400, "the body must be a JSON object")
    return found


def _text(body: dict[str, Any], name: str, required: bool = True) -> str:
    value = body.get(name)
    if value is None and not required:
        return ""
    if not isinstance(value, str) or not value.strip():
        raise ApiError(400, f"the field {name!r} must be a non-empty string", field=name)
    return value.strip()


def _confidence(body: dict[str, Any]) -> Decimal | None:
    value = body.get("confidence")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ApiError(400, "the field 'confidence' must be a number from 0 to 1")
    try:
        return aliases.checked_confidence(str(value))
    except AliasError as error:
        raise ApiError(400, str(error), field="confidence") from None


def _written(
    held: HeldStore, operation: Callable[[EmbeddedStore], Outcome], missing: int = 422
) -> Outcome:
    """Run ``operation`` as ``held``'s one write; publish what it wrote. ApiError for what it
    refuses (``missing``: the status of a record or name not found)."""
    try:
        outcome = held.write(operation)
    except AliasError as error:
        status = missing if error.reason == "unknown" else _STATUS.get(error.reason, 409)
        raise ApiError(status, str(error), reason=error.reason) from None
    if outcome.status != "unchanged":
        held.publish()  # answered once queries see it
    return outcome


def _answer(outcome: Outcome, status: int = 200) -> tuple[Response, int]:
    return jsonify(ok=True, outcome=outcome.status, alias=outcome.alias.as_dict()), status


@blueprint.get("/aliases")
def listing() -> Response:
    """The records, of the status asked for."""
    status = request.args.get("status") or None
    if status is not None and status not in aliases.STATUSES:
        raise ApiError(400, f"status must be one of {', '.join(aliases.STATUSES)}")
    held = authorised()
    found = aliases.listed(held.store, status)
    return jsonify(ok=True, aliases=[alias.as_dict() for alias in found])


@blueprint.post("/aliases")
def propose() -> tuple[Response, int]:
    """Propose that the body's subject is another name of its target."""
    held = authorised()
    body = _body()
    subject, target, by = _text(body, "subject"), _text(body, "target"), _text(body, "by")
    evidence, confidence = _text(body, "evidence", required=False), _confidence(body)
    outcome = _written(
        held,
        lambda store: aliases.propose(
            store,
            subject,
            target,
            by=by,
            when=validation.now(),
            evidence=evidence,
            confidence=confidence,
        ),
    )
    return _answer(outcome, 201 if outcome.status == "proposed" else 200)


def _review(record: str, status: str) -> tuple[Response, int]:
    held = authorised()
    by = _text(_body(), "by")
    outcome = _written(
        held,
        lambda store: aliases.review(store, [record], status, by=by, when=validation.now()),
        missing=404,
    )
    return _answer(outcome)


@blueprint.post("/aliases/<record>/accept")
def accept(record: str) -> tuple[Response, int]:
    """Accept the record ``record`` (its 16 hex digits)."""
    return _review(record, "accepted")


@blueprint.post("/aliases/<record>/reject")
def reject(record: str) -> tuple[Response, int]:
    """Reject the record ``record`` (its 16 hex digits)."""
    return _review(record, "rejected")


def operations(errors: Callable[..., dict[str, Any]]) -> dict[str, Any]:
    """The OpenAPI operations of the alias routes (``errors(*codes)``: the references to the
    error responses of those codes), described when the write API is on."""
    secured: list[dict[str, list[str]]] = [{"writeToken": []}]
    record = {"description": "The record as it now is (outcome, and the record in alias)"}
    body = {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
        "description": "subject, target (IRIs or names), by, and optional evidence, confidence",
    }
    reviewer = {
        "required": True,
        "content": {"application/json": {"schema": {"type": "object"}}},
        "description": "by: who reviews it",
    }
    path = {"name": "record", "in": "path", "required": True, "schema": {"type": "string"},
            "description": "The record's ID: 16 hex digits"}  # fmt: skip
    choices = {"type": "string", "enum": list(aliases.STATUSES)}
    status = {"name": "status", "in": "query", "required": False, "schema": choices,
              "description": "Only the records of this status"}  # fmt: skip

    def review(verb: str) -> dict[str, Any]:
        return {
            "operationId": f"{verb}Alias",
            "tags": ["write API"],
            "summary": f"{verb.capitalize()} an alias record, as benchgraph alias {verb} does",
            "security": secured,
            "parameters": [path],
            "requestBody": reviewer,
            "responses": {"200": record, **errors("400", "401", "404", "409", "415")},
        }

    return {
        "/aliases": {
            "get": {
                "operationId": "listAliases",
                "tags": ["write API"],
                "summary": "The alias records",
                "security": secured,
                "parameters": [status],
                "responses": {"200": {"description": "The records"}, **errors("400", "401")},
            },
            "post": {
                "operationId": "proposeAlias",
                "tags": ["write API"],
                "summary": "Propose that subject is another name of target",
                "security": secured,
                "requestBody": body,
                "responses": {
                    "201": record,
                    "200": {"description": "The pair has a record already: nothing changed"},
                    **errors("400", "401", "409", "415", "422"),
                },
            },
        },
        "/aliases/{record}/accept": {"post": review("accept")},
        "/aliases/{record}/reject": {"post": review("reject")},
    }
