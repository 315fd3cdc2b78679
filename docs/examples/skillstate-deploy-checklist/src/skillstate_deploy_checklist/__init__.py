"""A skillstate guard plugin for a deploy checklist: ``draft`` → ``approved`` → ``deployed``.

It registers one skill, ``deploy``, and guards its workflow:

- ``approved`` needs a non-empty checklist with every item done, and ``approved_by``;
- the approver cannot be the author (four eyes);
- ``deployed`` needs ``approved_by`` and can only follow ``approved`` — no skipping;
- once approved, ``approved_by`` cannot change (to revoke, go back to ``draft`` and
  clear it in the same patch).

``deployed`` is terminal: leaving it needs ``--force`` (the core enforces that).
Every rule is a :class:`~skillstate.records.Problem` with code ``guard``; a rejected
patch changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

from skillstate.plugin import FieldSpec, Problem, SkillDefinition, hookimpl

__all__ = ["DEPLOY", "skillstate_guards", "skillstate_register_skills"]

__version__ = "0.1.0"

SOURCE = "deploy-checklist"

DEPLOY = SkillDefinition(
    name="deploy",
    description="a release going through a checklist, an approval and the deploy itself",
    fields={
        "runId": FieldSpec("string"),
        "phase": FieldSpec("string"),
        "updatedAt": FieldSpec("string"),
        "service": FieldSpec("string"),
        "version": FieldSpec("string"),
        "author": FieldSpec("string"),
        "checklist": FieldSpec(
            "object[]", of={"item": FieldSpec("string"), "done": FieldSpec("boolean")}
        ),
        "approved_by": FieldSpec("string"),
        "deployed_at": FieldSpec("string"),
        "notes": FieldSpec("string[]"),
    },
    phases=("draft", "approved", "deployed"),
    terminal_phases=("deployed",),
    immutable_keys=("runId",),
    run_id_key="runId",
    updated_key="updatedAt",
)

APPROVED = ("approved", "deployed")


@hookimpl
def skillstate_register_skills(register: Callable[[SkillDefinition], None]) -> None:
    """Provide the ``deploy`` skill."""
    register(DEPLOY)


def _problem(message: str, path: str) -> Problem:
    return Problem("guard", message, path, SOURCE)


@hookimpl
def skillstate_guards(
    skill: SkillDefinition, before: Mapping[str, Any] | None, after: Mapping[str, Any]
) -> Iterator[Problem]:
    """The deploy workflow's rules; other skills are not this plugin's business."""
    if skill.name != DEPLOY.name:
        return
    phase = after.get("phase")
    was = before.get("phase", "draft") if before is not None else "draft"
    approver = after.get("approved_by")
    if phase in APPROVED and not approver:
        yield _problem(f"phase '{phase}' requires approved_by", "approved_by")
    if phase == "approved":
        checklist = after.get("checklist") or []
        if not checklist:
            yield _problem("phase 'approved' requires a non-empty checklist", "checklist")
        for index, item in enumerate(checklist):
            if not item.get("done"):
                name = item.get("item", f"#{index + 1}")
                yield _problem(f"checklist item '{name}' is not done", f"checklist[{index}].done")
    if approver and approver == after.get("author"):
        yield _problem(f"approved_by must differ from the author ('{approver}')", "approved_by")
    if phase == "deployed" and was not in APPROVED:
        yield _problem(f"phase 'deployed' can only follow 'approved' (was '{was}')", "phase")
    if before is not None and was in APPROVED and phase != "draft":
        previous = before.get("approved_by")
        if approver != previous:
            yield _problem(
                f"approved_by cannot change after approval (was '{previous}')", "approved_by"
            )
