"""``skillstate session start SESSION_ID --skill NAME``: a SKILL.state session from a stored skill.

What :meth:`Runtime.initialize_from_skill_store
<skillstate.runtime.creating.CreatingCalls.initialize_from_skill_store>` does, from the
command line: P is the stored SKILL.md's body, frozen now; the session records its
provenance (name, sha256 of SKILL.md, source, path) and takes the frontmatter's
``skillstate-skill`` / ``skillstate-environment`` as defaults. The skill is read once.

Exit codes: 0 started; 2 a bad or taken session id, or a skill the store cannot give
(unknown, broken, no skill store); 1 the session refused what it was given (``--state``
that is not a JSON object or over ``max_input_bytes``, P over ``max_spec_bytes``, an
initial state its rules refuse, the session limit); 3 the store or a plugin failed.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from skillstate.plugin.cli import CliContext, ExitCode

__all__ = ["configure", "run"]


def configure(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    start = sub.add_parser(
        "start",
        help="start a session whose spec P is a stored skill's SKILL.md body",
        description="Start a session whose spec P is a stored skill's SKILL.md body. "
        "With -v before the command (skillstate -v session start ...), say on stderr "
        "which store the session is written to and where that came from, as every command "
        "that opens the store does.",
    )
    start.add_argument("session_id", metavar="SESSION_ID", help="the new session's id")
    start.add_argument(
        "--skill", required=True, metavar="NAME", help="the stored skill (skillstate skills list)"
    )
    start.add_argument(
        "--state", metavar="JSON", help="the initial state Σ_0, a JSON object ('-': stdin)"
    )
    start.add_argument(
        "--environment",
        metavar="NAME",
        help="the environment (default: the skill's skillstate-environment, else the default)",
    )
    start.add_argument(
        "--definition",
        metavar="NAME",
        help="a registered skill definition whose rules apply to Σ "
        "(default: the skill's skillstate-skill)",
    )
    start.add_argument("--json", action="store_true", help="print the session's first payload")


class _Frozen:
    """The spec already read, offered to the runtime as a skill store (read once)."""

    def __init__(self, spec: Any) -> None:
        self._spec = spec

    def session_spec(self, name: str) -> Any:
        return self._spec


def run(ctx: CliContext) -> int:
    from skillstate.plugin import InvalidRunId, RunExists, SkillstateError, check_run_id
    from skillstate.plugin.runtime import Runtime, SessionError

    a = ctx.args
    try:
        check_run_id(a.session_id)
    except SkillstateError as exc:
        ctx.error(str(exc))
        return ExitCode.USAGE
    try:  # as `init --json`: JSON that is not acceptable is refused (exit 1)
        state = None if a.state is None else ctx.read_document(a.state, what="--state")
    except SkillstateError as exc:
        ctx.error(str(exc))
        return ExitCode.REJECTED
    if a.state is not None and state is None:  # not "no state": the runtime refuses the rest
        ctx.error("--state must be a JSON object, got null")
        return ExitCode.REJECTED
    try:
        spec = ctx.host.skill_store().session_spec(a.skill)
    except SkillstateError as exc:  # no skill store, a bad skill name: a usage error
        ctx.error(str(exc))
        return ExitCode.USAGE
    envelope = spec.to_dict()
    if envelope.get("success") is not True:
        ctx.error(str(envelope.get("error") or f"skill '{a.skill}' cannot be used"))
        return ExitCode.USAGE
    ctx.store  # noqa: B018 - opened here, as every command does: -v names it on stderr
    try:
        payload = Runtime(host=ctx.host).initialize_from_skill_store(
            a.session_id,
            a.skill,
            state,
            environment=a.environment,
            skill=a.definition,
            skill_store=_Frozen(spec),
        )
    except (InvalidRunId, RunExists) as exc:
        ctx.error(str(exc))
        return ExitCode.USAGE
    except SessionError as exc:  # P too large, Σ_0 refused, the session limit: nothing created
        problems = getattr(exc, "problems", None)  # Σ_0 refused: its reasons, as init lists them
        if problems:
            ctx.reasons("session start rejected (nothing created)", problems)
        else:
            ctx.error(str(exc))
        return ExitCode.REJECTED
    provenance = envelope.get("provenance") or {}
    if a.json:
        print(
            json.dumps({**payload, "skill_source": provenance}, ensure_ascii=False, indent=2),
            file=ctx.out,
        )
        return ExitCode.OK
    digest = str(provenance.get("sha256", ""))[:12]
    print(
        f"session {payload['session_id']} started from skill {a.skill} "
        f"({provenance.get('source', '?')}, sha256 {digest}…), "
        f"environment {payload['environment']}, step {payload['meta']['step']}",
        file=ctx.out,
    )
    return ExitCode.OK
