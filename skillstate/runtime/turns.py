"""Parsing a model's A.4 response: reasoning R_t, state patch ΔΣ_t, action a_t.

The format (paper, Appendix A.4): free reasoning, then a fenced ```` ```json ````
block holding an object with exactly the keys ``state_patch`` (an object) and
``action`` (a non-empty string). Rules:

- the **last** ```` ```json ```` block is the answer (untagged ```` ``` ```` blocks
  count only when there is no ``json``-tagged one; other languages never do);
- there is no fallback to bare braces: without a block → ``no_json_block``;
- a small, recorded repair pass runs only when strict parsing fails, and is kept
  only if it makes the block parse: trailing commas before ``}``/``]`` (outside
  strings) are removed, curly double quotes (“ ”) become straight ones; a missing
  closing fence is closed at the end of the text. Nothing else is guessed;
- errors carry a category (``no_json_block``, ``json_parse_error``,
  ``wrong_key_set``, ``state_patch_not_object``, ``action_not_string``) and the
  offset, line and column in the response text.

The reasoning is the response with the answer block removed, trimmed.
"""

from __future__ import annotations

import json
import re
from typing import Any

import attrs

from skillstate.display import excerpt
from skillstate.jsondoc import check_document, json_kind
from skillstate.runtime.errors import SessionInputError

__all__ = ["CATEGORIES", "ParsedTurn", "TurnParseError", "parse_turn_response"]

CATEGORIES = (
    "no_json_block",
    "json_parse_error",
    "wrong_key_set",
    "state_patch_not_object",
    "action_not_string",
)

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_+.-]*)")
_SMART = str.maketrans({"\u201c": '"', "\u201d": '"'})
_KEYS = ("state_patch", "action")


@attrs.frozen
class ParsedTurn:
    """A parsed response: ``reasoning_trace`` (to discard), ``state_update``, ``action``, ``repairs``."""

    reasoning_trace: str
    state_update: dict[str, Any]
    action: str
    repairs: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "reasoning_trace": self.reasoning_trace,
            "state_update": self.state_update,
            "action": self.action,
            "repairs": list(self.repairs),
        }


class TurnParseError(SessionInputError):
    """A response that does not follow the A.4 format; ``category`` says how."""

    def __init__(
        self, category: str, detail: str, text: str, offset: int, repairs: tuple[str, ...] = ()
    ) -> None:
        self.category = category
        self.offset = offset
        self.line = text.count("\n", 0, offset) + 1
        self.column = offset - (text.rfind("\n", 0, offset) + 1) + 1
        self.repairs = repairs
        self.detail = detail
        super().__init__(f"{category} at line {self.line}, column {self.column}: {detail}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "message": str(self),
            "offset": self.offset,
            "line": self.line,
            "column": self.column,
            "repairs": list(self.repairs),
        }


@attrs.frozen
class _Block:
    start: int  # the opening fence
    body: int  # first character after the tag
    end: int  # the closing fence (len(text) when unclosed)
    stop: int  # first character after the closing fence
    tag: str
    closed: bool


def _blocks(text: str) -> list[_Block]:
    fences = list(_FENCE.finditer(text))
    blocks: list[_Block] = []
    for index in range(0, len(fences), 2):
        opening = fences[index]
        closing = fences[index + 1] if index + 1 < len(fences) else None
        end = closing.start() if closing else len(text)
        stop = closing.start() + 3 if closing else len(text)
        blocks.append(
            _Block(opening.start(), opening.end(), end, stop, opening.group(1), closing is not None)
        )
    return blocks


class _DuplicateKey(ValueError):
    pass


def _pairs(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKey(f'duplicate key "{key}"')
        out[key] = value
    return out


def _refuse(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DECODER = json.JSONDecoder(object_pairs_hook=_pairs, parse_constant=_refuse)


_STRING_OR_TRAILING_COMMA = re.compile(
    r'"[^"\\]*(?:\\.[^"\\]*)*(?:"|\\?\Z)'  # a string (or one left open to the end), skipped
    r"|,(?=[ \t\r\n]*[}\]])"  # a comma before } or ] (whitespace between): removed
)


def _strip_trailing_commas(body: str) -> tuple[str, list[int]]:
    """Remove commas that are followed (after whitespace) by ``}`` or ``]``, outside strings.

    One regular-expression pass: each string is skipped whole, each comma looks ahead
    over the whitespace that follows it only (which ends at the next non-blank
    character), so the work is linear in ``len(body)``.
    """
    pieces: list[str] = []
    removed: list[int] = []
    kept = 0
    for match in _STRING_OR_TRAILING_COMMA.finditer(body):
        if match.group()[0] == ",":
            index = match.start()
            pieces.append(body[kept:index])
            removed.append(index)
            kept = index + 1
    if not removed:
        return body, removed
    pieces.append(body[kept:])
    return "".join(pieces), removed


def _original_offset(offset: int, removed: list[int]) -> int:
    """Where ``offset`` of the repaired body was in the original (``removed`` is sorted)."""
    for position in removed:
        if position <= offset:
            offset += 1
        else:
            break
    return offset


def _member_offsets(body: str) -> dict[str, tuple[int, int]]:
    """Where each top-level member's key and value start in ``body`` (a valid JSON object)."""
    ws = re.compile(r"[ \t\r\n]*")
    offsets: dict[str, tuple[int, int]] = {}
    index = ws.match(body, 0).end() + 1  # type: ignore[union-attr]
    while True:
        index = ws.match(body, index).end()  # type: ignore[union-attr]
        if body[index] == "}":
            return offsets
        start = index
        key, index = _DECODER.raw_decode(body, index)
        index = ws.match(body, index).end() + 1  # type: ignore[union-attr]
        index = ws.match(body, index).end()  # type: ignore[union-attr]
        offsets[key] = (start, index)
        _, index = _DECODER.raw_decode(body, index)
        index = ws.match(body, index).end()  # type: ignore[union-attr]
        if body[index] == ",":
            index += 1


def _decode(body: str) -> Any:
    try:
        return _DECODER.decode(body)
    except RecursionError:
        raise ValueError("the JSON block is nested too deeply") from None


def parse_turn_response(text: str) -> ParsedTurn:
    """Split an A.4 response into reasoning, state patch and action, or raise :class:`TurnParseError`."""
    if not isinstance(text, str):
        raise SessionInputError(f"response_text must be a string, got a {type(text).__name__}")
    blocks = _blocks(text)
    tagged = [b for b in blocks if b.tag.lower() == "json"] or [b for b in blocks if not b.tag]
    if not tagged:
        raise TurnParseError(
            "no_json_block",
            'no ```json fenced block found; end the response with ```json {"state_patch": {...}, '
            '"action": "..."} ```',
            text,
            len(text),
        )
    block = tagged[-1]
    repairs: list[str] = []
    if not block.closed:
        repairs.append("added the missing closing ``` fence")
    body = text[block.body : block.end]
    removed: list[int] = []
    try:
        value = _decode(body)
    except ValueError as exc:
        value, body, removed, more = _repaired(body, exc, text, block, tuple(repairs))
        repairs.extend(more)
    done = tuple(repairs)

    def at(key: str | None, value: bool = True) -> int:
        found = None if key is None else _member_offsets(body).get(key)
        if found is None:
            return block.start
        return block.body + _original_offset(found[1] if value else found[0], removed)

    if type(value) is not dict:
        kind = "an array" if isinstance(value, list) else f"a {type(value).__name__}"
        raise TurnParseError(
            "wrong_key_set",
            f'the JSON block must be an object with exactly the keys "state_patch" and "action", got {kind}',
            text,
            at(None),
            done,
        )
    if set(value) != set(_KEYS):
        missing = [k for k in _KEYS if k not in value]
        extra = [k for k in value if k not in _KEYS]
        parts = []
        if missing:
            parts.append("missing " + ", ".join(f'"{k}"' for k in missing))
        if extra:
            parts.append(excerpt("unexpected " + ", ".join(f'"{k}"' for k in extra)))
        raise TurnParseError(
            "wrong_key_set",
            f'the JSON block must have exactly the two keys "state_patch" and "action"; '
            f"got {excerpt(json.dumps(list(value), ensure_ascii=False))} ({'; '.join(parts)})",
            text,
            at(extra[0] if extra else None, value=False),
            done,
        )
    patch, action = value["state_patch"], value["action"]
    if type(patch) is not dict:
        raise TurnParseError(
            "state_patch_not_object",
            f'"state_patch" must be a JSON object (null deletes a key inside it), got {json_kind(patch)}',
            text,
            at("state_patch"),
            done,
        )
    problems = check_document(patch, "state_patch")
    if problems:
        raise TurnParseError("json_parse_error", problems[0].message, text, at("state_patch"), done)
    if not isinstance(action, str) or not action.strip():
        got = "an empty string" if isinstance(action, str) else json_kind(action)
        raise TurnParseError(
            "action_not_string",
            f'"action" must be a non-empty string (the exact command), got {got}',
            text,
            at("action"),
            done,
        )
    reasoning = (text[: block.start] + text[block.stop :]).strip()
    return ParsedTurn(reasoning, patch, action, done)


def _repaired(
    body: str, error: ValueError, text: str, block: _Block, repairs: tuple[str, ...]
) -> tuple[Any, str, list[int], list[str]]:
    """Try the repair pass; raise the original error (at its position) if it does not help."""
    fixed, made = body, []
    quotes = sum(fixed.count(q) for q in "\u201c\u201d")
    if quotes:
        fixed = fixed.translate(_SMART)
        made.append(f'replaced {quotes} curly double quote{"s" if quotes > 1 else ""} (“ ”) with "')
    fixed, removed = _strip_trailing_commas(fixed)
    if removed:
        made.append(f"removed {len(removed)} trailing comma{'s' if len(removed) > 1 else ''}")
    if made:
        try:
            return _decode(fixed), fixed, removed, made
        except ValueError:
            pass
    position = block.body + error.pos if isinstance(error, json.JSONDecodeError) else block.start
    detail = error.msg if isinstance(error, json.JSONDecodeError) else str(error)
    if made:
        detail += f" (repairs tried without success: {'; '.join(made)})"
    raise TurnParseError(
        "json_parse_error",
        f"the JSON block is not valid JSON: {detail}",
        text,
        position,
        repairs,
    )
