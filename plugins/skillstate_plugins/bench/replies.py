"""Reading a reply in each runtime's format, with every repair counted (none under ``strict``).

- ``skill-state`` — A.4's fenced JSON, through the runtime's own turn parser
  (:func:`skillstate.plugin.runtime.parse_turn_response`), whose small repair pass
  (trailing commas, curly quotes, a missing closing fence) is recorded;
- the baselines — an ``Action: <cmd>`` line (the last one wins) and, for
  ``stateful``, ``StateUpdate: {...}`` lines merged in order. Markdown around either
  is a repair: a list marker, a quote or a heading (``### Action:``), emphasis around
  the label (``**Action:**``, ``**Action**:``), another case (``action:``), and a
  matched pair around the whole command (``**…**``, backticks, quotes) — the command is
  read without the decoration, and the repair is counted. Only matched pairs around
  the whole command are removed: ``Action: Commit feature/x _private_`` is read as
  written, and is no repair.

With ``strict=True`` a reply that needs any repair is a failure of its kind
(``json_parse_error`` or ``action_grammar_error``), which is what the paper's §5.7
error breakdown counts.

Failure categories, and the §5.7 kind each belongs to (:data:`KINDS`):
``json_syntax`` (JSON syntax and formatting slips), ``schema_type`` (schema
comprehension and type errors), ``premature_overwrite`` (a patch that drops keys
Σ_t had), ``environment`` (a rejected action), ``other``.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["CATEGORIES", "KINDS", "ParseFailure", "ParsedReply", "dropped_keys", "parse_reply"]

KINDS: dict[str, str] = {
    "no_json_block": "json_syntax",
    "json_parse_error": "json_syntax",
    "action_grammar_error": "json_syntax",
    "wrong_key_set": "schema_type",
    "state_patch_not_object": "schema_type",
    "action_not_string": "schema_type",
    "schema_violation": "schema_type",
    "premature_overwrite": "premature_overwrite",
    "env_rejected": "environment",
    "policy_error": "other",
    "step_cap": "other",
}
"""Failure category → its §5.7 kind."""

CATEGORIES = tuple(KINDS)


@attrs.frozen
class ParsedReply:
    """A usable reply: reasoning (discarded by the runtime), patch, action, the repairs made."""

    reasoning: str
    patch: dict[str, Any]
    action: str
    repairs: tuple[str, ...] = ()


@attrs.frozen
class ParseFailure:
    """A reply the runtime cannot use: ``category`` (see :data:`KINDS`) and a message."""

    category: str
    message: str


_EMPHASIS = r"\*\*|__|\*|_"
_LINE = re.compile(
    r"^[ \t]*(?:[-*+>][ \t]+)*(?:\#{1,6}[ \t]+)?"  # list markers, quotes, a heading
    rf"(?P<open>{_EMPHASIS})?"  # emphasis around the label: **Action:** or **Action**:
    r"(?P<label>(?i:action|stateupdate))"
    r"(?(open)(?:(?P=open)[ \t]*:|[ \t]*:(?P=open))|[ \t]*:)"
    r"[ \t]*(?P<value>.*?)[ \t]*$",
    re.MULTILINE,
)
_PLAIN = re.compile(r"^[ \t]*(Action|StateUpdate): (\S.*?)[ \t]*$")
_PAIRS = ("**", "__", "```", "``", "`", "*", "_", '"', "'")
"""What may wrap the whole command or JSON (each only as a matched pair)."""


def _clean(value: str) -> str:
    """The command or JSON without a matched markdown pair around all of it.

    ``**Store a b**``, ``\u0060Wait\u0060``, ``"Wait"`` lose their wrapping; an emphasis pair
    counts only around non-blank text (markdown's rule), and nothing unmatched is
    touched: ``Commit feature/x _private_`` stays as written.
    """
    text = value.strip()
    while True:
        for pair in _PAIRS:
            inner = text[len(pair) : -len(pair)]
            if len(text) > 2 * len(pair) and text.startswith(pair) and text.endswith(pair):
                if pair[0] in "*_" and inner != inner.strip():
                    continue
                text = inner.strip()
                break
        else:
            return text


def _lines(text: str, label: str) -> list[tuple[str, str, bool]]:
    """``(raw line, cleaned value, needed a repair)`` for every ``label:`` line."""
    out = []
    for match in _LINE.finditer(text):
        if match.group("label").lower() != label.lower():
            continue
        cleaned = _clean(match.group("value"))
        plain = _PLAIN.match(match.group(0))
        repaired = plain is None or plain.group(2) != cleaned
        out.append((match.group(0), cleaned, repaired))
    return out


def _compose(first: dict[str, Any], second: Mapping[str, Any]) -> dict[str, Any]:
    """One patch doing ``first`` then ``second`` (nulls kept: they still delete)."""
    out = dict(first)
    for key, value in second.items():
        if isinstance(value, Mapping) and isinstance(out.get(key), dict):
            out[key] = _compose(out[key], value)
        else:
            out[key] = value
    return out


def _strict_failure(category: str, repairs: list[str]) -> ParseFailure:
    return ParseFailure(
        category, f"strict parsing: the reply would need repairs ({'; '.join(repairs)})"
    )


def _parse_baseline(text: str, with_updates: bool, strict: bool) -> ParsedReply | ParseFailure:
    actions = _lines(text, "Action")
    if not actions or not actions[-1][1]:
        return ParseFailure(
            "action_grammar_error", "the response has no line 'Action: <cmd>' with a command"
        )
    repairs: list[str] = []
    if actions[-1][2]:
        repairs.append("read the Action line without its markdown")
        if strict:
            return _strict_failure("action_grammar_error", repairs)
    patch: dict[str, Any] = {}
    if with_updates:
        for _, raw, repaired in _lines(text, "StateUpdate"):
            if repaired:
                if strict:
                    return _strict_failure("json_parse_error", ["StateUpdate line in markdown"])
                repairs.append("read a StateUpdate line without its markdown")
            try:
                update = json.loads(raw)
            except ValueError as exc:
                return ParseFailure("json_parse_error", f"StateUpdate is not valid JSON: {exc}")
            if not isinstance(update, dict):
                return ParseFailure(
                    "state_patch_not_object", "StateUpdate must be a JSON object of key updates"
                )
            patch = _compose(patch, update)
    reasoning = _LINE.sub("", text).strip()
    return ParsedReply(reasoning, patch, actions[-1][1], tuple(repairs))


def parse_reply(runtime: str, text: str, *, strict: bool = False) -> ParsedReply | ParseFailure:
    """Read a reply in ``runtime``'s format (A.4 through the runtime's turn parser)."""
    if runtime == "skill-state":
        from skillstate.plugin import InvalidInput
        from skillstate.plugin.runtime import parse_turn_response

        try:
            turn = parse_turn_response(text)
        except InvalidInput as exc:  # the runtime's parse error: its category says how
            return ParseFailure(getattr(exc, "category", "json_parse_error"), str(exc))
        if strict and turn.repairs:
            return _strict_failure("json_parse_error", list(turn.repairs))
        return ParsedReply(turn.reasoning_trace, turn.state_update, turn.action, turn.repairs)
    return _parse_baseline(text, with_updates=runtime == "stateful", strict=strict)


def dropped_keys(before: Any, candidate: Any, patch: Any, path: str = "") -> list[str]:
    """Keys (dotted paths) of Σ_t that Σ_t ⊕ patch no longer has without a null naming them.

    A null on a key deletes that key on purpose; a key lost because its parent was
    nulled or replaced by a non-object (``{"inventory": null}``, ``{"inventory": []}``)
    was dropped — the §5.7 premature overwrite.
    """
    if not isinstance(before, Mapping):
        return []
    lost: list[str] = []
    for key, value in before.items():
        named = isinstance(patch, Mapping) and key in patch
        sub = patch.get(key) if isinstance(patch, Mapping) else None
        if isinstance(candidate, Mapping) and key in candidate:
            if isinstance(value, Mapping):
                lost += dropped_keys(value, candidate[key], sub, f"{path}{key}.")
            continue
        if named and sub is None:  # deleted on purpose; its children went with it
            if isinstance(value, Mapping) and value and path == "":
                lost += [f"{key}.{k}" for k in value]  # a top-level container emptied at once
            continue
        lost.append(path + key)
    return lost
