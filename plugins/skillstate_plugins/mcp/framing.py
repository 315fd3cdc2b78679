"""Answers for JSON-RPC messages the SDK cannot take: every request with an id gets one.

The SDK parses each incoming message with its message adapter; a message that fails
(a lone surrogate escape such as ``"\\ud800"``, bytes that are not UTF-8, ``params``
that is an array, a batch array, a truncated line) is dropped over stdio, so a client
waits for its own timeout, and answered over HTTP with ``id: null`` and a raw
validation dump. :func:`reject` reads such a message leniently instead and builds the
JSON-RPC errors it deserves:

- a request (an object with a ``method`` and an ``id``) → one error with that id:
  ``-32700`` for bytes that are not UTF-8, ``-32602`` for ``params`` that is not an
  object or holds text that is not valid Unicode, ``-32600`` otherwise;
- a batch (a JSON array) → one ``-32600`` error per request in it that has an id
  (MCP 2025-06-18 removed JSON-RPC batching), or one ``id: null`` error for an array
  that holds none;
- a request holding a number over 4,300 digits (which the SDK's parser, like Python's
  ``int``, refuses to read) → one error with its id naming where the number is:
  ``-32602`` in ``params``, ``-32600`` elsewhere (``id: null`` when it is the id);
- text that is not JSON at all → one ``-32700`` error with ``id: null`` (its id cannot
  be known, as JSON-RPC 2.0 prescribes);
- a notification (no id) or a response → nothing.

The SDK also reads a request whose ``id`` is neither a string nor an integer (``1.5``,
``true``, ``null``, an object, ``NaN``, even ``1e2``) as a *notification*, which
nothing answers. :func:`read` is the one way both transports read a message: an id
that is an integral number (``1e2``, ``1.0``, within ±2⁵³, where a JavaScript client's
numbers are exact) is the integer it equals (``1e2`` is ``100`` to such a client, so
the answer carries ``100``); any other id gets a ``-32600`` error with ``id: null``
(JSON-RPC 2.0 §5: the id could not be read; MCP asks for a string or an integer).

Each message is bounded (:func:`skillstate.plugin.excerpt`) and pure ASCII-safe JSON.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

from mcp_types import JSONRPCMessage, JSONRPCNotification, jsonrpc_message_adapter

from skillstate.plugin import excerpt

__all__ = [
    "INVALID_PARAMS",
    "INVALID_REQUEST",
    "PARSE_ERROR",
    "encode",
    "error_message",
    "read",
    "reject",
]

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
INVALID_PARAMS = -32602

_MAX_DEPTH = 64  # how deep a lone surrogate is searched for (deeper: reported without a path)


def error_message(request_id: Any, code: int, message: str) -> dict[str, Any]:
    """A JSON-RPC 2.0 error response (``id`` ``None`` for "unknown")."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": message}}


def _has_surrogate(text: str) -> bool:
    return any("\ud800" <= ch <= "\udfff" for ch in text)


def _first_path(
    value: Any,
    hit: Callable[[Any], bool],
    path: str = "",
    depth: int = 0,
    bad_key: Callable[[str], bool] | None = None,
) -> str | None:
    """Where in ``value`` the first value ``hit`` takes is (``params.arguments.id``), or
    the first key ``bad_key`` takes (``params.<key>``), if any."""
    if hit(value):
        return path
    if depth > _MAX_DEPTH:
        return None
    if isinstance(value, dict):
        for key, item in value.items():
            if bad_key is not None and bad_key(key):
                return f"{path}.<key>"
            found = _first_path(item, hit, f"{path}.{excerpt(key, 40)}", depth + 1, bad_key)
            if found is not None:
                return found
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found = _first_path(item, hit, f"{path}[{index}]", depth + 1, bad_key)
            if found is not None:
                return found
    return None


def _surrogate_path(value: Any, path: str) -> str | None:
    """Where the first lone surrogate in ``value`` is, in a string or a key, if any."""

    def bad(text: Any) -> bool:
        return isinstance(text, str) and _has_surrogate(text)

    return _first_path(value, bad, path, bad_key=bad)


def _usable_id(message: Any) -> tuple[bool, Any]:
    """``(is_request, id)``: whether ``message`` is a request with an id, and that id.

    An id that is not a string or an integer (a float, ``true``, an object), or a string
    that is not valid Unicode, is answered with ``id: null``.
    """
    if not isinstance(message, dict) or "id" not in message:
        return False, None
    if "method" not in message and ("result" in message or "error" in message):
        return False, None  # a response: never answered
    rid = message["id"]
    if isinstance(rid, bool) or not isinstance(rid, int | str):
        return True, None
    if isinstance(rid, str) and _has_surrogate(rid):
        return True, None
    if isinstance(rid, int) and abs(rid) > 2**63:
        return True, None
    return True, rid


def _why(message: dict[str, Any]) -> tuple[int, str]:
    method = message.get("method")
    if message.get("jsonrpc") != "2.0":
        return INVALID_REQUEST, 'invalid request: "jsonrpc" must be "2.0"'
    if not isinstance(method, str) or not method:
        return INVALID_REQUEST, 'invalid request: "method" must be a non-empty string'
    if _has_surrogate(method):
        return INVALID_REQUEST, 'invalid request: "method" is not valid Unicode (a lone surrogate)'
    if "params" in message and not isinstance(message["params"], dict):
        kind = type(message["params"]).__name__
        kind = {"list": "an array", "str": "a string", "NoneType": "null"}.get(kind, f"a {kind}")
        return (
            INVALID_PARAMS,
            f"invalid params of {excerpt(method, 60)}: params must be an object, not {kind}",
        )
    where = _surrogate_path(message.get("params"), "params")
    if where is not None:
        return (
            INVALID_PARAMS,
            f"invalid params of {excerpt(method, 60)}: {where} holds text that is not valid "
            "Unicode (a lone surrogate escape such as \\ud800); send UTF-8 text",
        )
    return INVALID_REQUEST, f"invalid request to {excerpt(method, 60)}: not a valid MCP message"


MAX_DIGITS = 4300
"""The most digits the SDK's JSON parser (and Python's ``int``) reads in a number's
integer part; a longer number makes the whole message unreadable to it."""


class _TooLong:
    """Where a number over :data:`MAX_DIGITS` digits stood in a message (:func:`_loads`)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<a number too long>"


_TOO_LONG = _TooLong()


def _int(text: str) -> Any:
    if len(text.lstrip("-")) > MAX_DIGITS:
        return _TOO_LONG
    try:
        return int(text)
    except ValueError:  # over a lower sys.set_int_max_str_digits limit
        return _TOO_LONG


def _float(text: str) -> Any:
    whole = text.lstrip("-").split(".")[0].split("e")[0].split("E")[0]
    return _TOO_LONG if len(whole) > MAX_DIGITS else float(text)


def _loads(text: str, *, mark_long: bool = False) -> tuple[bool, Any]:
    """``(True, the JSON value)`` or ``(False, None)``. With ``mark_long``, a number over
    :data:`MAX_DIGITS` digits is read as a marker (:func:`_too_long_path` finds it), not
    a parse error, so the request it is in can still be answered with its id."""
    try:
        if mark_long:
            return True, json.loads(text, parse_int=_int, parse_float=_float)
        return True, json.loads(text)
    except (ValueError, RecursionError):
        return False, None


def _too_long_path(value: Any) -> str | None:
    """Where the first number over :data:`MAX_DIGITS` digits in ``value`` is, if any."""
    return _first_path(value, lambda item: item is _TOO_LONG)


def _too_long(message: dict[str, Any]) -> tuple[int, str] | None:
    """The error for a request holding a number too long to read, if it holds one:
    ``-32602`` naming where in ``params`` it is, ``-32600`` elsewhere."""
    where = _too_long_path(message)
    if where is None:
        return None
    why = (
        f"{where.lstrip('.')} is a number too long to read (over {MAX_DIGITS:,} digits); "
        "send a long number as a string"
    )
    if where == ".id":
        return INVALID_REQUEST, (
            f'invalid request: "id" must be a string or an integer, not a number over '
            f"{MAX_DIGITS:,} digits"
        )
    method = message.get("method")
    if where.startswith(".params.") or where == ".params":
        name = excerpt(method, 60) if isinstance(method, str) else "the request"
        return INVALID_PARAMS, f"invalid params of {name}: {why}"
    return INVALID_REQUEST, f"invalid request: {why}"


def reject(raw: bytes | str) -> list[dict[str, Any]]:
    """The JSON-RPC errors owed for ``raw``, a message the SDK's adapter refused."""
    utf8 = True
    if isinstance(raw, bytes):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            utf8 = False
            text = raw.decode("utf-8", "replace")
    else:
        text = raw
    parsed, message = _loads(text, mark_long=True)
    if not parsed:
        return [error_message(None, PARSE_ERROR, "parse error: the message is not JSON text")]
    if isinstance(message, list):
        note = (
            "batches are not supported (MCP removed JSON-RPC batching in 2025-06-18); "
            "send each request as its own message"
        )
        answers = []
        for item in message:
            is_request, rid = _usable_id(item)
            if is_request and "method" in item:
                answers.append(error_message(rid, INVALID_REQUEST, note))
        return answers or [error_message(None, INVALID_REQUEST, note)]
    is_request, rid = _usable_id(message)
    if not is_request:
        if isinstance(message, dict) and ("method" in message or "result" in message):
            return []  # a notification or a response the SDK refused: nothing to answer
        if message is _TOO_LONG:
            why = f"invalid request: a number too long to read (over {MAX_DIGITS:,} digits)"
            return [error_message(None, INVALID_REQUEST, why)]
        return [
            error_message(
                None, INVALID_REQUEST, "invalid request: a JSON-RPC message is a JSON object"
            )
        ]
    if not utf8:
        return [
            error_message(
                rid, PARSE_ERROR, "parse error: the message is not UTF-8 text (invalid bytes)"
            )
        ]
    too_long = _too_long(message)
    if too_long is not None:
        return [error_message(rid, *too_long)]
    code, why = _why(message)
    return [error_message(rid, code, why)]


_EXACT = 2**53
"""Integral numbers up to this size are exact in a JavaScript client (``Number``)."""


def _id_kind(rid: Any) -> str:
    if isinstance(rid, bool):
        return "a boolean"
    if rid is None:
        return "null"
    if isinstance(rid, float):
        return "NaN or Infinity" if not math.isfinite(rid) else "a number with a fraction"
    if isinstance(rid, int):
        return "an integer over 2^63"
    return {"dict": "an object", "list": "an array"}.get(type(rid).__name__, "not a string")


def _as_request(raw: bytes | str) -> tuple[bytes | None, list[dict[str, Any]]]:
    """For ``raw``, which the SDK read as a notification: ``(raw re-encoded with an
    integer id, [])`` when its id is an integral number, ``(None, [the error])`` when it
    has any other id, ``(None, [])`` when it is a notification (no ``id``)."""
    parsed, message = _loads(raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw)
    if not parsed or not isinstance(message, dict) or "id" not in message:
        return None, []
    rid = message["id"]
    if isinstance(rid, float) and math.isfinite(rid) and rid.is_integer() and abs(rid) <= _EXACT:
        message["id"] = int(rid)
        return json.dumps(message, ensure_ascii=True).encode("ascii"), []
    why = f'invalid request: "id" must be a string or an integer, not {_id_kind(rid)}'
    return None, [error_message(None, INVALID_REQUEST, why)]


def read(raw: bytes | str) -> tuple[JSONRPCMessage | None, bytes | str, list[dict[str, Any]]]:
    """``raw`` read as the SDK reads it, with every request answerable.

    Returns ``(message, text, errors)``: the SDK's message and the text it was read from
    (``raw``, or ``raw`` with an integral id written as an integer), or ``None`` and the
    JSON-RPC errors owed for ``raw`` (none for a notification or a response the SDK
    refused).
    """
    try:
        message = jsonrpc_message_adapter.validate_json(raw, by_name=False)
    except Exception:  # the SDK would drop it: answered here
        return None, raw, reject(raw)
    if not isinstance(message, JSONRPCNotification):
        return message, raw, []
    fixed, errors = _as_request(raw)
    if errors:
        return None, raw, errors
    if fixed is None:
        return message, raw, []
    try:
        return jsonrpc_message_adapter.validate_json(fixed, by_name=False), fixed, []
    except Exception:  # e.g. invalid params besides: what it is owed, with its new id
        return None, raw, reject(fixed)


def encode(answer: dict[str, Any] | list[dict[str, Any]]) -> bytes:
    """``answer`` as compact JSON bytes (ASCII-escaped, so always encodable)."""
    return json.dumps(answer, separators=(",", ":"), ensure_ascii=True).encode("ascii")
