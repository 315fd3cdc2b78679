"""The paper's App. C background telemetry block, and reading an observation without it.

Both SkillExecBench environments append their distractors the same way:
``"\\n\\n--- BACKGROUND TELEMETRY ---\\n"`` and one line per distractor (nothing at
level 0). Environments write the block with :func:`telemetry_block`; policies read an
observation's task lines with :func:`relevant_lines`.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["TELEMETRY_HEADER", "relevant_lines", "telemetry_block"]

TELEMETRY_HEADER = "--- BACKGROUND TELEMETRY ---"
"""App. C's header (C.1: appended to the environment's response payload under it)."""


def telemetry_block(lines: Sequence[str]) -> str:
    """The text appended to an observation for ``lines`` of telemetry (``""`` for none)."""
    if not lines:
        return ""
    return f"\n\n{TELEMETRY_HEADER}\n" + "\n".join(lines)


def relevant_lines(observation: str) -> list[str]:
    """The observation's lines before the telemetry header, stripped, blank ones dropped."""
    head = observation.split(TELEMETRY_HEADER, 1)[0]
    return [line.strip() for line in head.splitlines() if line.strip()]
