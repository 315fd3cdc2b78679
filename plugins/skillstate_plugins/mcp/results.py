"""Tool results, encoded once: the pretty text at native speed, the wire form built with it.

A successful tool answer is the payload twice: a text block holding its pretty JSON
(2-space indent, non-ASCII kept, JavaScript's number forms — what the reference
server sends) and the same payload as ``structuredContent``. On the SDK's own path
the answer is then built as a validated ``CallToolResult``, dumped, validated again
against the protocol version's result schema and dumped again before the response is
serialised. For a payload of plain JSON values — what the runtime returns — each of
those steps reproduces its input, so :func:`ok_result`:

- writes the text with ``pydantic_core.to_json(indent=2)`` (Rust) instead of
  :func:`skillstate.jsondoc.pretty` (Python), when a walk of the payload finds only
  dicts with string keys, lists, strings, integers, booleans and nulls — with a float
  anywhere it uses ``pretty``, since the two write some floats differently
  (``1e-07``/``1e-7``, ``1.0``/``1``);
- builds the ``CallToolResult`` without re-validating it (what ``model_construct``
  builds, made from a template instance: :func:`_constructed`) and attaches the wire dict ``{"content": [{"type": "text", "text": …}], "isError": false,
  "structuredContent": payload}``, which the runner returns as is
  (:func:`skillstate_plugins.mcp.sdk.install_result_fast_path`) instead of validating and
  dumping the model twice.

Anything else — a payload with floats or other types, an SDK version skillstate does
not know — takes the SDK's full path. Tests prove the two paths give the same text
and the same wire dict (tests/mcp/test_mcp_results.py), and the transport differential
tests run a server with the fast path off beside the others.
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent
from pydantic import PrivateAttr
from pydantic_core import to_json

from skillstate.jsondoc import pretty

__all__ = ["EncodedToolResult", "fast_pretty", "is_plain_json", "ok_result", "template_defaults"]

_SCALARS = (str, int, bool, type(None))


def is_plain_json(value: Any) -> bool:
    """Whether ``value`` holds only dicts (string keys), lists, str, int, bool and None."""
    stack = [value]
    pop, push = stack.pop, stack.append
    while stack:
        item = pop()
        kind = type(item)
        if kind is dict:
            for key, inner in item.items():
                if type(key) is not str:
                    return False
                inner_kind = type(inner)
                if inner_kind is dict or inner_kind is list:
                    push(inner)
                elif inner_kind not in _SCALARS:
                    return False
        elif kind is list:
            for inner in item:
                inner_kind = type(inner)
                if inner_kind is dict or inner_kind is list:
                    push(inner)
                elif inner_kind not in _SCALARS:
                    return False
        elif kind not in _SCALARS:
            return False
    return True


def _native_pretty(value: Any) -> str | None:
    """The pretty JSON of a plain payload from the Rust encoder, or ``None`` if it declines."""
    try:
        return to_json(value, indent=2).decode("utf-8")
    except (ValueError, TypeError, UnicodeDecodeError):  # e.g. a lone surrogate
        return None


def fast_pretty(value: Any) -> str:
    """:func:`skillstate.jsondoc.pretty` of ``value``, at native speed when it is plain JSON."""
    if is_plain_json(value):
        text = _native_pretty(value)
        if text is not None:
            return text
    return pretty(value)


class EncodedToolResult(CallToolResult):
    """A ``CallToolResult`` that carries its wire dict (see the module docstring)."""

    _skillstate_wire: dict[str, Any] | None = PrivateAttr(default=None)


_IMMUTABLE = (type(None), str, int, float, bool, tuple, frozenset)


def template_defaults(cls: Any, given: tuple[str, ...]) -> dict[str, Any] | None:
    """The defaults of ``cls``'s fields other than ``given``, to be copied into each new
    instance; ``None`` when such a copy would not be what ``model_construct`` gives.

    A default made per instance (``default_factory``, or a mutable default, which
    pydantic copies) would be one object shared by every result built from the
    template — what one response put there, the next would carry; kept extra fields
    or private attributes other than the wire dict would be set differently. Then
    (an SDK that changed these models) each instance is built by ``model_construct``.
    """
    for name, field in cls.model_fields.items():
        if name in given:
            continue
        if field.default_factory is not None or type(field.default) not in _IMMUTABLE:
            return None
    if cls.model_config.get("extra") == "allow":
        return None
    private = {"_skillstate_wire"} if cls is EncodedToolResult else set()
    if set(cls.__private_attributes__) != private:
        return None
    defaults: dict[str, Any] = cls.model_construct(**dict.fromkeys(given)).__dict__
    return defaults


_TEXT_DEFAULTS = template_defaults(TextContent, ("type", "text"))
_RESULT_DEFAULTS = template_defaults(EncodedToolResult, ("content", "structured_content"))
_new = object.__new__
_set = object.__setattr__


def _constructed(cls: Any, defaults: dict[str, Any] | None, values: dict[str, Any]) -> Any:
    """``cls.model_construct(**values)`` (a model without validation), in a few attribute sets.

    pydantic's ``model_construct`` walks every field for its default on each call (about
    10 µs for the two models of a result, here); the defaults of these two models are
    constants, so they are taken once from a template instance
    (:func:`template_defaults`; without one, ``model_construct`` builds it). The fields
    set, the extra and the private attributes are what ``model_construct`` gives
    (tests/mcp/test_mcp_results.py compares the two).
    """
    if defaults is None:
        return cls.model_construct(**values)
    obj: Any = _new(cls)
    _set(obj, "__dict__", {**defaults, **values})
    _set(obj, "__pydantic_fields_set__", set(values))
    _set(obj, "__pydantic_extra__", None)
    _set(
        obj,
        "__pydantic_private__",
        {"_skillstate_wire": None} if cls is EncodedToolResult else None,
    )
    return obj


def ok_result(data: dict[str, Any]) -> CallToolResult:
    """Success: pretty JSON text (2-space indent, non-ASCII kept) plus ``structuredContent``."""
    text = _native_pretty(data) if is_plain_json(data) else None
    if text is None:  # not plain JSON: the SDK's full path validates and shapes it
        return CallToolResult(
            content=[TextContent(type="text", text=pretty(data))], structured_content=data
        )
    block = _constructed(TextContent, _TEXT_DEFAULTS, {"type": "text", "text": text})
    result: EncodedToolResult = _constructed(
        EncodedToolResult, _RESULT_DEFAULTS, {"content": [block], "structured_content": data}
    )
    # the keys in the order the SDK's dump of the result schema gives them
    result._skillstate_wire = {
        "content": [{"type": "text", "text": text}],
        "isError": False,
        "structuredContent": data,
    }
    return result
