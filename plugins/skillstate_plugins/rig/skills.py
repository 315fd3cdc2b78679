"""The three rig skills — ``rig-task``, ``rig-epic``, ``rig-review`` — as skill definitions.

Field names, types, nested schemas, enums, ordered phases and terminal phases are
exactly rig-state's (``scripts/rig-state.ts``). Every rig state carries the core
fields ``runId``, ``skill``, ``phase``, ``createdAt``, ``updatedAt``, ``nextAction``,
``blockers`` and ``decisions``; the first three identity keys are set at init and
never patched, ``updatedAt`` is stamped on every accepted write.
"""

from __future__ import annotations

from skillstate.plugin import FieldSpec, SkillDefinition

from .render import render_record

__all__ = ["RIG_SKILL_NAMES", "TERMINAL", "rig_skills"]

RIG_SKILL_NAMES = ("rig-task", "rig-epic", "rig-review")
TERMINAL = ("done", "abandoned")

_S = FieldSpec("string")
_N = FieldSpec("number")
_B = FieldSpec("boolean")
_SA = FieldSpec("string[]")


def _enum(*values: str) -> FieldSpec:
    return FieldSpec("string", enum=values)


def _obj(**fields: FieldSpec) -> FieldSpec:
    return FieldSpec("object", of=fields)


def _objs(**fields: FieldSpec) -> FieldSpec:
    return FieldSpec("object[]", of=fields)


CORE_FIELDS: dict[str, FieldSpec] = {
    "runId": _S,
    "skill": _S,
    "phase": _S,
    "createdAt": _S,
    "updatedAt": _S,
    "nextAction": _S,
    "blockers": _SA,
    "decisions": _SA,
}

_OUTCOME = ("pending", "clean", "actionable", "timeout", "unresolved")

TASK_FIELDS: dict[str, FieldSpec] = {
    **CORE_FIELDS,
    "spec": _obj(
        id=_S,
        title=_S,
        source=_enum("linear", "github", "adhoc"),
        acceptanceCriteria=_SA,
    ),
    "worktree": _S,
    "branch": _S,
    "base": _S,
    "pr": _obj(number=_N, url=_S, state=_enum("open", "merged", "closed")),
    "tests": _obj(
        command=_S,
        status=_enum("not-run", "red", "green", "error"),
        **{"pass": _N},
        fail=_N,
        failures=_SA,
    ),
    "review": _obj(
        source=_enum("local", "bot"),
        round=_N,
        p0=_N,
        p1=_N,
        p2=_N,
        open=_SA,
        outcome=_enum(*_OUTCOME),
    ),
}

EPIC_FIELDS: dict[str, FieldSpec] = {
    **CORE_FIELDS,
    "parent": _obj(id=_S, title=_S, source=_enum("linear", "github", "none")),
    "integrationBranch": _S,
    "whyEpic": _S,
    "children": _objs(
        id=_S,
        title=_S,
        blockedBy=_SA,
        branch=_S,
        pr=_N,
        status=_enum("todo", "in-progress", "blocked", "merged"),
    ),
    "specReview": _obj(
        frontLoaded=_B,
        outcome=_enum("pending", "cleared", "halted"),
        blockers=_SA,
    ),
    "combinedReview": _obj(
        outcome=_enum("pending", "clean", "applied", "paused"),
        p0=_N,
        p1=_N,
        p2=_N,
    ),
}

REVIEW_FIELDS: dict[str, FieldSpec] = {
    **CORE_FIELDS,
    "base": _S,
    "worktree": _S,
    "source": _enum("local", "bot"),
    "pr": _N,
    "round": _N,
    "maxRounds": _N,
    "outcome": _enum(*_OUTCOME),
    "findings": _objs(
        id=_S,
        severity=_enum("P0", "P1", "P2", "P3"),
        file=_S,
        line=_N,
        summary=_S,
        status=_enum("open", "fixed", "deferred", "rejected"),
    ),
}

PHASES: dict[str, tuple[str, ...]] = {
    "rig-task": (
        "spec",
        "spec-review",
        "red",
        "green",
        "refactor",
        "self-review",
        "pr-open",
        "review-loop",
        "done",
        "abandoned",
    ),
    "rig-epic": ("plan", "start", "run", "review", "finish", "done", "abandoned"),
    "rig-review": ("find", "fix", "done", "abandoned"),
}

_DESCRIPTIONS = {
    "rig-task": "one ticket through spec → red → green → review → PR (rig)",
    "rig-epic": "an epic: children on an integration branch, reviewed together (rig)",
    "rig-review": "a review/fix loop on one PR or diff (rig)",
}

_FIELDS = {"rig-task": TASK_FIELDS, "rig-epic": EPIC_FIELDS, "rig-review": REVIEW_FIELDS}


def rig_skills() -> list[SkillDefinition]:
    """The three rig skill definitions, in rig-state's order."""
    return [
        SkillDefinition(
            name=name,
            description=_DESCRIPTIONS[name],
            fields=_FIELDS[name],
            phases=PHASES[name],
            terminal_phases=TERMINAL,
            immutable_keys=("runId", "skill", "createdAt"),
            run_id_key="runId",
            skill_key="skill",
            created_key="createdAt",
            updated_key="updatedAt",
            next_action_key="nextAction",
            render=render_record,
            text_units="utf16",  # rig-state counts JavaScript's .length: an emoji is 2
        )
        for name in RIG_SKILL_NAMES
    ]
