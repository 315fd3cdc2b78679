"""Strict JSON in and out: parsing, shape limits, canonical text, sizes.

The same rules apply to every document skillstate accepts (patches, seeds,
observations' payloads): real JSON only (no NaN or Infinity, string keys), nested
at most :data:`MAX_DEPTH` levels, no string over :data:`MAX_STRING_CHARS`, and
**valid Unicode only**: a string or key holding a lone surrogate (``"\\ud800"`` in
JSON, a Python ``str`` with ``"\\ud800"``, or the ``\\udcff`` Python makes of a byte
that is not UTF-8 in ``argv``) is refused at the door with a problem naming its path.
Such text has no UTF-8 form, so no store could keep it and no output could print it;
refusing it (rather than storing it escaped) means every stored document is text
every tool can read. The bundled stores refuse it in a document they read back too
(a hand edit), so one damaged run is reported as damaged instead of breaking
commands about other runs.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any

from skillstate.display import excerpt
from skillstate.errors import InvalidInput
from skillstate.records import Problem

__all__ = [
    "MAX_DEPTH",
    "MAX_STRING_CHARS",
    "check_document",
    "compact",
    "find_surrogate",
    "js_numbers",
    "json_kind",
    "parse_json",
    "pretty",
    "unicode_problem",
]

MAX_DEPTH = 100
MAX_STRING_CHARS = 1_000_000

_SURROGATE = "[\ud800-\udfff]"  # compiled on first use (re's cache)


def _refuse_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


class _TooLarge(ValueError):
    """A number JSON text may write but no JSON number can hold."""


_MAX_DIGITS = 4300  # Python's own bound on reading digits as an integer


def _parse_float(text: str) -> float | int:
    value = float(text)
    if not math.isfinite(value):  # 1e400: JSON.parse reads Infinity, which JSON cannot write
        raise _TooLarge(
            f"the number {excerpt(text, 40)}, too large for a JSON number (over 1.8e308)"
        )
    if value.is_integer() and abs(value) < 2**53:
        return int(value)
    return value


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > _MAX_DIGITS:
        digits = len(text.lstrip("-"))
        raise _TooLarge(f"a whole number of {digits:,} digits, more than {_MAX_DIGITS:,}")
    return int(text)


def parse_json(text: str | bytes, what: str = "patch") -> Any:
    """Parse ``text`` as strict JSON; raise :class:`InvalidInput` with a clear message.

    ``NaN``/``Infinity`` are refused (as JavaScript's ``JSON.parse`` does), so is a
    document nested deeper than :data:`MAX_DEPTH`. Integral numbers written with a
    fraction or exponent (``1.0``, ``1e3``) become integers: JSON has one number type.
    """
    try:
        if isinstance(text, bytes):  # UTF-8 only (json.loads would guess UTF-16 or -32)
            text = text.decode("utf-8")
        value = json.loads(
            text, parse_constant=_refuse_constant, parse_float=_parse_float, parse_int=_parse_int
        )
    except RecursionError:
        raise InvalidInput(f"{what} is nested too deeply (more than {MAX_DEPTH} levels)") from None
    except _TooLarge as exc:
        raise InvalidInput(f"{what} holds {exc}") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"{what} is not valid JSON: {exc}") from None
    problems = check_document(value, what)
    if problems:
        raise InvalidInput(problems[0].message)
    return value


def find_surrogate(text: str) -> int:
    """The index of the first lone surrogate in ``text`` (``-1`` when it is valid Unicode)."""
    if text.isascii():
        return -1
    match = re.search(_SURROGATE, text)
    return -1 if match is None else match.start()


def unicode_problem(text: str, where: str) -> str | None:
    """The message for ``text`` at ``where`` if it is not valid Unicode, else ``None``."""
    index = find_surrogate(text)
    if index < 0:
        return None
    return (
        f"{excerpt(where)}: text is not valid Unicode (a lone surrogate, "
        f"U+{ord(text[index]):04X}, at character {index}); send UTF-8 text"
    )


def check_document(value: Any, what: str = "patch") -> list[Problem]:
    """Check that ``value`` is plain JSON within the hard limits, without recursion.

    Returns problems (code ``input``) naming the path: a non-JSON type, a non-string
    key, NaN or Infinity, nesting deeper than :data:`MAX_DEPTH`, a string longer than
    :data:`MAX_STRING_CHARS` characters, a string or key that is not valid Unicode (a
    lone surrogate). Stops at the first few problems.
    """
    problems: list[Problem] = []
    stack: list[tuple[Any, str, int]] = [(value, "", 0)]
    while stack and len(problems) < 5:
        node, path, depth = stack.pop()
        where = path or what
        if depth > MAX_DEPTH:
            problems.append(
                Problem(
                    "input", f"{what} is nested too deeply (more than {MAX_DEPTH} levels)", path
                )
            )
            break
        kind = type(node)
        if kind is dict:
            for key, child in node.items():
                if type(key) is not str:
                    problems.append(
                        Problem(
                            "input",
                            f"{excerpt(where)}: object keys must be strings, got {excerpt(repr(key))}",
                            path,
                        )
                    )
                    continue
                child_path = f"{path}.{key}" if path else key
                if not key.isascii():
                    message = unicode_problem(key, child_path)
                    if message is not None:
                        problems.append(Problem("input", message, child_path))
                        continue
                stack.append((child, child_path, depth + 1))
        elif kind is list:
            for index, child in enumerate(node):
                stack.append((child, f"{path}[{index}]", depth + 1))
        elif kind is str:
            if len(node) > MAX_STRING_CHARS:
                problems.append(
                    Problem(
                        "input",
                        f"{excerpt(where)}: a string of {len(node)} characters is over the hard limit of {MAX_STRING_CHARS}",
                        path,
                    )
                )
            elif not node.isascii():
                message = unicode_problem(node, where)
                if message is not None:
                    problems.append(Problem("input", message, path))
        elif kind is float:
            if not math.isfinite(node):
                problems.append(
                    Problem("input", f"{excerpt(where)}: {node!r} is not a JSON number", path)
                )
        elif node is None or kind is bool or kind is int:
            pass
        else:
            problems.append(
                Problem("input", f"{excerpt(where)}: a {kind.__name__} is not a JSON value", path)
            )
    return problems


def json_kind(value: Any) -> str:
    """What a value is, in JSON's words, for messages: ``a string``, ``an object``, ``null``..."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list | tuple):
        return "an array"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _default(value: Any) -> Any:
    raise TypeError(f"a {type(value).__name__} is not a JSON value")


def js_numbers(value: Any) -> Any:
    """``value`` with integral floats (``2.0``) turned into ints, as JavaScript sees them.

    Returns ``value`` itself when there is nothing to change, so checked documents
    cost one walk and no copy. The pipeline applies it to every patch, so stored
    states never hold integral floats and :func:`compact` can stay a plain dump.
    """
    kind = type(value)
    if kind is float:
        return int(value) if value.is_integer() and abs(value) < 2**53 else value
    if kind is dict:
        changed = None
        for key, item in value.items():
            new = js_numbers(item)
            if new is not item or type(new) is not type(item):
                if changed is None:
                    changed = dict(value)
                changed[key] = new
        return value if changed is None else changed
    if kind is list:
        items = [js_numbers(item) for item in value]
        if any(a is not b or type(a) is not type(b) for a, b in zip(items, value, strict=True)):
            return items
        return value
    return value


_COMPACT = json.JSONEncoder(
    separators=(",", ":"), ensure_ascii=False, allow_nan=False, default=_default
)
"""One encoder with :func:`compact`'s settings (``json.dumps`` would build one per call)."""


def compact(value: Any) -> str:
    """Compact JSON as JavaScript's ``JSON.stringify`` writes it (no spaces, UTF-8 text).

    Pass values that went through :func:`js_numbers` (every state and patch in the
    pipeline does) to get JavaScript's number formatting (``1`` rather than ``1.0``).
    The text, and the errors, are ``json.dumps(value, separators=(",", ":"),
    ensure_ascii=False, allow_nan=False)``'s.
    """
    return _COMPACT.encode(value)


def pretty(value: Any) -> str:
    """Pretty JSON, 2-space indent, as ``JSON.stringify(v, null, 2)`` (no trailing newline).

    Byte-identical to ``json.dumps(js_numbers(v), indent=2, ensure_ascii=False)``
    (tests check it on generated documents). Strings are encoded by the compact
    encoder's public ``encode`` (C code for a ``str``) and each container is one join:
    ``json.dumps`` with ``indent`` runs the standard library's pure-Python encoder,
    four times slower on a state, and this text is what the file store writes on every
    commit (``docs/benchmarks.md``, "Pretty records").
    """
    return _pretty(value, "\n")


_encode_string = _COMPACT.encode
"""A ``str`` as a JSON string (``JSONEncoder.encode``'s own path for strings)."""


def _pretty(value: Any, indent: str) -> str:
    kind = type(value)
    enc = _encode_string
    if kind is dict:
        if not value:
            return "{}"
        inner = indent + "  "
        try:
            "".join(value)  # every key a str (C code; the encoder would write 1 as 1)
        except TypeError:
            bad = next(k for k in value if not isinstance(k, str))
            raise TypeError(f"object keys must be strings, got {bad!r}") from None
        items = [
            enc(k) + ": " + (enc(v) if type(v) is str else _pretty(v, inner))
            for k, v in value.items()
        ]
        return "{" + inner + ("," + inner).join(items) + indent + "}"
    if kind is list:
        if not value:
            return "[]"
        inner = indent + "  "
        parts = [enc(v) if type(v) is str else _pretty(v, inner) for v in value]
        return "[" + inner + ("," + inner).join(parts) + indent + "]"
    if kind is str:
        return _encode_string(value)
    if kind is int:
        return int.__repr__(value)
    if value is None:
        return "null"
    if kind is bool:
        return "true" if value else "false"
    if kind is float:
        if not math.isfinite(value):
            raise ValueError(f"{value!r} is not a JSON number")
        if value.is_integer() and abs(value) < 2**53:
            return int.__repr__(int(value))
        return float.__repr__(value)
    if isinstance(value, Mapping | list | tuple):  # e.g. a mappingproxy or a tuple
        return _pretty(dict(value) if isinstance(value, Mapping) else list(value), indent)
    raise TypeError(f"a {kind.__name__} is not a JSON value")
