"""Prompt renderers: the A.4 SKILL.state prompt and the tool-calling prompt.

(The A.1–A.3 baselines only the benchmark harness renders: they are the bench plugin's.)

All lines are joined with ``"\\n"`` and there is no trailing newline. ``spec`` (the
``{skill.instructions}`` of the paper) is rendered verbatim when it is a string and
as pretty JSON when it is an object. JSON in prompts is written as JavaScript
writes it (``1.0`` → ``1``, non-ASCII kept) unless ``ensure_ascii`` is asked for;
``literal=True`` gives the paper's printed A.4 listing exactly: Python's
``json.dumps(state, separators=(',', ':'))`` (ASCII-escaped) and no closing fence.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from skillstate.jsondoc import compact, js_numbers, pretty as js_pretty

__all__ = [
    "A4_RESPONSE_FORMAT",
    "render_skill_state_prompt",
    "render_spec",
    "render_tool_prompt",
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
    lines = [
        "Instructions:",
        render_spec(spec),
        "",
        "Skill Execution State:",
        "```json",
        _dump(
            dict(state), indent=not compact and not literal, ensure_ascii=ensure_ascii or literal
        ),
    ]
    if not literal:
        lines.append("```")
    lines.append(f"Latest Observation: {observation}")
    lines.append("")
    lines.append(A4_RESPONSE_FORMAT)
    return "\n".join(lines)


def render_tool_prompt(
    session_id: str,
    spec: Any,
    state: Mapping[str, Any],
    step: int,
    status: str,
    observation: str | None,
) -> str:
    """The tool-calling variant used by MCP clients (``execute_step`` carries the answer)."""
    shown = "(no observation yet)" if observation is None else observation
    lines = [
        f'You are executing skill session "{session_id}" under the SKILL.state protocol (arXiv:2608.26263).',
        "There is no conversation history. Your ENTIRE working context is the tuple below.",
        "",
        "## P — Skill Specification (immutable)",
        render_spec(spec),
        "",
        f"## Σ_{step} — Current Execution State (step {step}, status: {status})",
        js_pretty(dict(state)),
        "",
        "## O — Latest Environment Observation",
        shown,
        "",
        "## Required response format",
        "1. R_t — reason as much as you need inside reasoning_trace (it will be DISCARDED by the runtime).",
        '2. ΔΣ_t — a sparse JSON patch in state_update. Use null to DELETE a key, e.g. {"draft": null}.',
        "3. a_t — the next action in the action field (string or JSON object).",
        f'Call the execute_step tool with exactly these three fields plus session_id="{session_id}"',
        "and environment_observation set to the observation above.",
    ]
    return "\n".join(lines)
