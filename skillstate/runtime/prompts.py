"""Prompt renderers: the A.4 SKILL.state prompt and the tool-calling prompt.

(The A.1–A.3 baselines only the benchmark harness renders: they are the bench plugin's.)

All lines are joined with ``"\\n"`` and there is no trailing newline. ``spec`` (the
``{skill.instructions}`` of the paper) is rendered verbatim when it is a string and
as pretty JSON when it is an object. JSON in prompts is written as JavaScript
writes it (``1.0`` → ``1``, non-ASCII kept) unless ``ensure_ascii`` is asked for;
``literal=True`` gives the paper's printed A.4 listing exactly: Python's
``json.dumps(state, separators=(',', ':'))`` (ASCII-escaped) and no closing fence.

:func:`session_prompt` renders a session's prompt at any of its versions, as
``Runtime.paper_prompt`` / ``turn_prompt`` rendered it then (the observation from the
journal entry that recorded it), in pieces that show where P, Σ and O are.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from skillstate.jsondoc import compact, js_numbers, pretty as js_pretty

if TYPE_CHECKING:
    from skillstate.journal import Merge
    from skillstate.records import RunRecord
    from skillstate.store import Store

Parts = list[tuple[str, str]]
"""A prompt as pieces, each ``(kind, text)``: ``P``, ``Σ``, ``O`` or ``""`` (the frame)."""

__all__ = [
    "A4_RESPONSE_FORMAT",
    "PROMPT_STYLES",
    "render_skill_state_prompt",
    "render_spec",
    "render_tool_prompt",
    "session_prompt",
]

A4_RESPONSE_FORMAT = (
    "Provide your response with:\n"
    "\n"
    "1. Step-by-step reasoning (will be discarded after execution)\n"
    "2. A JSON block fenced with json ... containing both your State Patch and your Action. "
    'The JSON block MUST have exactly these two keys: { "state_patch": { <dict: your state '
    'updates, set keys to null to delete> }, "action": "<string: the exact command you want to '
    'execute>" }'
)
"""The closing instructions of the A.4 prompt (item 2 on one line, as ports render it)."""


def render_spec(spec: Any) -> str:
    """P verbatim when it is a string, else its pretty JSON (2-space indent)."""
    return spec if isinstance(spec, str) else js_pretty(spec)


def _dump(value: Any, *, indent: bool, ensure_ascii: bool) -> str:
    if ensure_ascii:
        if indent:
            return json.dumps(value, indent=2)
        return json.dumps(value, separators=(",", ":"))
    return js_pretty(value) if indent else compact(js_numbers(value))


def _a4_parts(
    spec: Any,
    state: Mapping[str, Any],
    observation: str,
    compact: bool,
    literal: bool,
    ascii_: bool,
) -> Parts:
    sigma = _dump(dict(state), indent=not compact and not literal, ensure_ascii=ascii_ or literal)
    return [
        ("", "Instructions:\n"),
        ("P", render_spec(spec)),
        ("", "\n\nSkill Execution State:\n```json\n"),
        ("Σ", sigma),
        ("", "\nLatest Observation: " if literal else "\n```\nLatest Observation: "),
        ("O", observation),
        ("", "\n\n" + A4_RESPONSE_FORMAT),
    ]


def render_skill_state_prompt(
    spec: Any,
    state: Mapping[str, Any],
    observation: str,
    *,
    compact: bool = True,
    literal: bool = False,
    ensure_ascii: bool = False,
) -> str:
    """The Appendix A.4 prompt for (P, Σ_t, O_t).

    ``compact`` — Σ on one line (the paper) or pretty JSON; ``literal`` — the
    paper's printed form: ASCII-escaped compact JSON and no closing fence.
    """
    return "".join(
        t for _, t in _a4_parts(spec, state, observation, compact, literal, ensure_ascii)
    )


def _tool_parts(
    session_id: str,
    spec: Any,
    state: Mapping[str, Any],
    step: int,
    status: str,
    observation: str | None,
) -> Parts:
    rules = [
        "## Required response format",
        "1. R_t — reason as much as you need inside reasoning_trace (it will be DISCARDED by the runtime).",
        '2. ΔΣ_t — a sparse JSON patch in state_update. Use null to DELETE a key, e.g. {"draft": null}.',
        "3. a_t — the next action in the action field (string or JSON object).",
        f'Call the execute_step tool with exactly these three fields plus session_id="{session_id}"',
        "and environment_observation set to the observation above.",
    ]
    return [
        (
            "",
            f'You are executing skill session "{session_id}" under the SKILL.state protocol '
            "(arXiv:2608.26263).\nThere is no conversation history. Your ENTIRE working context "
            "is the tuple below.\n\n## P — Skill Specification (immutable)\n",
        ),
        ("P", render_spec(spec)),
        ("", f"\n\n## Σ_{step} — Current Execution State (step {step}, status: {status})\n"),
        ("Σ", js_pretty(dict(state))),
        ("", "\n\n## O — Latest Environment Observation\n"),
        ("O", "(no observation yet)" if observation is None else observation),
        ("", "\n\n" + "\n".join(rules)),
    ]


def render_tool_prompt(
    session_id: str,
    spec: Any,
    state: Mapping[str, Any],
    step: int,
    status: str,
    observation: str | None,
) -> str:
    """The tool-calling variant used by MCP clients (``execute_step`` carries the answer)."""
    return "".join(t for _, t in _tool_parts(session_id, spec, state, step, status, observation))


PROMPT_STYLES = ("paper", "paper-pretty", "turn")
""":func:`session_prompt`'s styles: ``Runtime.paper_prompt`` (MCP ``skill_state_paper_turn``),
the same with ``compact=False``, and ``Runtime.turn_prompt`` (MCP ``skill_state_turn``)."""


def observation_at(store: Store, record: RunRecord, version: int) -> tuple[str | None, str | None]:
    """(the text, the digest) of the latest observation at ``version``: the text ``None``
    when the entry that recorded it kept only its digest (or a text that does not match)."""
    from skillstate.checks import digest

    if version == record.version:
        return record.observation, digest(record.observation)
    high = version + 1
    while high > 1:  # newest first, a page of entries at a time
        low = max(0, high - 51)
        for entry in reversed(store.journal_range(record.id, after=low, before=high)):
            if entry.observation_sha256 is not None:
                text = entry.observation
                kept = text is not None and digest(text) == entry.observation_sha256
                return (text if kept else None), entry.observation_sha256
        high = low + 1
    return None, None


def session_prompt(
    store: Store,
    run_id: str,
    version: int | None = None,
    *,
    style: str = "paper",
    merge: Merge | None = None,
) -> dict[str, Any]:
    """The prompt of session ``run_id`` at ``version`` (default: now), byte for byte as the
    runtime rendered it for that version's (P, Σ, O) in ``style`` (:data:`PROMPT_STYLES`).

    Returns ``{session_id, version, head, step, status, label, ts, style, text, parts,
    observation_sha256, observation_kept}`` (``label`` and ``ts``: the version's entry's); ``parts`` (``[{"part", "text"}]``, ``part`` one of ``P``, ``Σ``,
    ``O``, ``""``) join into ``text``. An observation whose entry kept only its digest (one
    written before entries kept the text, or longer than they keep) is rendered as
    ``(observation text not kept: sha256 DIGEST)`` and ``observation_kept`` is false.
    Raises :class:`~skillstate.errors.RunNotFound`, :class:`~skillstate.errors.VersionNotFound`,
    and :class:`~skillstate.errors.InvalidInput` for a run with no P or an unknown style.
    """
    from skillstate.errors import InvalidInput
    from skillstate.runtime.payloads import spec_value

    if style not in PROMPT_STYLES:
        raise InvalidInput(f"style must be one of {', '.join(PROMPT_STYLES)}, got {style!r}")
    record = store.get(run_id)
    if record.spec is None:
        raise InvalidInput(f"run '{run_id}' is not a session (it has no P): it has no prompt")
    version = record.version if version is None else version
    item = store.state_at(run_id, version, merge=merge)
    text, sha = observation_at(store, record, version)
    kept = text is not None or sha is None
    if not kept:
        text = f"(observation text not kept: sha256 {sha})"
    spec = spec_value(record)
    if style == "turn":
        parts = _tool_parts(record.id, spec, item.state, item.step, item.status, text)
    else:
        parts = _a4_parts(spec, item.state, text or "", style == "paper", False, False)
    return {
        "session_id": record.id,
        "version": version,
        "head": record.version,
        "step": item.step,
        "status": item.status,
        "label": item.entry.step,
        "ts": item.entry.ts,
        "style": style,
        "text": "".join(t for _, t in parts),
        "parts": [{"part": kind, "text": t} for kind, t in parts],
        "observation_sha256": sha,
        "observation_kept": kept,
    }
