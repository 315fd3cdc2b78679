"""The run commands shared by ``skillstate`` and ``rig-state``: init, patch, rm (the reads
are :mod:`skillstate.cli.reads`: get, show, list, journal).

Both command lines are thin adapters over these functions, which are thin adapters
over :mod:`skillstate.pipeline` and the store. Output rules (rig-state's):

- every error goes to stderr as ``{prog}: {message}``;
- exit 0 accepted/success, 1 rejected (also invalid JSON and a missing ``--field``),
  2 usage error, missing run, unknown skill, bad id, run already exists, no journal,
  a version the run does not have; 3 an error that is not the input's fault (the store
  failed); ``skillstate``'s own commands add 4 (a ``--expected-version`` conflict:
  nothing written) and 5 (a file to import that is not an intact export: nothing
  written) — the table is :mod:`skillstate.cli.exits`;
- a rejected ``init`` prints nothing on stdout; a rejected ``patch`` prints the
  **unchanged** state (compact rendering) on stdout and the reasons on stderr.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol, TextIO

from skillstate.cli.exits import BAD_FILE, CONFLICT, ERROR, OK, REJECTED, USAGE
from skillstate.display import excerpt

if TYPE_CHECKING:
    from skillstate.host import Host
    from skillstate.records import Problem, RunRecord, SkillDefinition
    from skillstate.store import Store

__all__ = [
    "BAD_FILE",
    "CONFLICT",
    "ERROR",
    "OK",
    "REJECTED",
    "USAGE",
    "RunContext",
    "do_init",
    "do_patch",
    "do_rm",
    "number_arg",
    "open_run",
    "print_run",
    "read_document",
    "version_arg",
]


class RunContext(Protocol):
    """What the run commands need from a command line (``CliContext`` provides it)."""

    prog: str
    out: TextIO
    err: TextIO

    @property
    def host(self) -> Host: ...

    @property
    def store(self) -> Store: ...

    def error(self, message: str) -> None: ...

    def reasons(self, title: str, problems: Sequence[Problem]) -> None: ...


def read_document(
    text: str | None, stdin: TextIO | None = None, limit: int | None = None, what: str = "patch"
) -> Any:
    """Parse a patch or seed: ``text``, or standard input when ``text`` is ``None`` or ``-``.

    A document over ``limit`` bytes (the ``max_input_bytes`` setting) is refused before
    it is parsed, having read at most one byte more than the limit. Raises
    :class:`~skillstate.errors.InvalidInput` naming ``what`` (``patch is not valid JSON: …``).
    """
    from skillstate.errors import InvalidInput
    from skillstate.jsondoc import parse_json

    data: str | bytes
    if text is None or text == "-":
        stream = stdin or sys.stdin
        raw = getattr(stream, "buffer", None)  # bytes: decoded as UTF-8 whatever the locale
        size = -1 if limit is None else limit + 1
        data = raw.read(size) if raw is not None else stream.read(size)
        over = limit is not None and len(data) > limit
    else:
        data = text
        over = (  # surrogatepass: a lone surrogate is refused by the parser, with its path
            limit is not None
            and len(text) * 4 > limit
            and len(text.encode("utf-8", "surrogatepass")) > limit
        )
    if over:
        raise InvalidInput(
            f"{what} is over the {limit:,}-byte input limit (the setting max_input_bytes, "
            "SKILLSTATE_MAX_INPUT_BYTES), refused unread"
        )
    return parse_json(data, what)


def _limit(ctx: RunContext) -> int | None:
    """The configured ``max_input_bytes``."""
    return ctx.host.config.max_input_bytes


def print_run(ctx: RunContext, record: RunRecord) -> None:
    """The run's compact rendering (its skill's own, else the generic block) on stdout."""
    print(_render(ctx, record), file=ctx.out)


def _render(ctx: RunContext, record: RunRecord) -> str:
    """The skill's own rendering of the run, else the core's generic block."""
    from skillstate.display import printable
    from skillstate.render import render_run

    # escaped: a state's ESC, OSC or BEL must not drive the terminal (docs/cli.md)
    return printable(render_run(record, ctx.host.skills.get(record.skill)))


def _valid_id(ctx: RunContext, run_id: str) -> bool:
    from skillstate.store import is_valid_run_id

    if is_valid_run_id(run_id):
        return True
    ctx.error(f"run id '{excerpt(run_id)}' is not a valid id")  # rig-state's, for parity
    return False


def _load(ctx: RunContext, run_id: str) -> RunRecord | None:
    from skillstate.errors import RunNotFound

    try:
        return ctx.store.get(run_id)
    except RunNotFound:
        ctx.error(f"no run '{run_id}' — run '{ctx.prog} init <skill> {run_id}' first")
        return None


def open_run(ctx: RunContext, run_id: str) -> RunRecord | None:
    """The run's record, or ``None`` after one error line (a bad id, no such run)."""
    if not _valid_id(ctx, run_id):
        return None
    return _load(ctx, run_id)


def _skill(ctx: RunContext, name: str, allowed: Sequence[str] | None) -> SkillDefinition | None:
    """The registered skill ``name`` (restricted to ``allowed`` when given), or ``None``."""
    from skillstate.errors import SkillNotFound

    host = ctx.host
    if allowed is not None:
        found = host.skills.get(name) if name in allowed else None
        if found is None:
            known = ", ".join(n for n in allowed if host.skills.get(n) is not None)
            ctx.error(
                f"unknown skill '{excerpt(name)}'. Known: "
                + (known or "(none: is the plugin that provides them blocked?)")
            )
        return found
    try:
        return host.skill(name)
    except SkillNotFound as exc:
        ctx.error(str(exc))
        return None


def do_init(
    ctx: RunContext,
    skill_name: str,
    run_id: str,
    seed_text: str | None,
    allowed: Sequence[str] | None = None,
) -> int:
    """Create a run: ``{runId, skill, phase, createdAt, updatedAt} ⊕ seed``, checked like a patch."""
    from skillstate.errors import InvalidInput, RunExists
    from skillstate.pipeline import create_run
    from skillstate.store import run_id_problem

    skill = _skill(ctx, skill_name, allowed)
    if skill is None:
        return USAGE
    problem = run_id_problem(run_id)
    if problem is not None:
        ctx.error(problem)
        return USAGE
    store = ctx.store
    if store.exists(run_id):
        ctx.error(f"run '{run_id}' already exists — patch it instead")
        return USAGE
    try:
        seed = {} if seed_text is None else read_document(seed_text, limit=_limit(ctx))
    except InvalidInput as exc:
        ctx.error(str(exc))
        return REJECTED
    if seed is None:  # --json null is a seed that is not an object, as [] is (not "no seed")
        from skillstate.records import Problem

        ctx.reasons("rejected", [Problem("patch", "patch: expected a JSON object", "")])
        return REJECTED
    try:
        outcome = create_run(ctx.host, store, skill, run_id, seed)
    except RunExists:
        ctx.error(f"run '{run_id}' already exists — patch it instead")
        return USAGE
    if not outcome.accepted or outcome.record is None:
        ctx.reasons("rejected", outcome.problems)
        return REJECTED
    print(_render(ctx, outcome.record), file=ctx.out)
    return OK


def do_patch(
    ctx: RunContext,
    run_id: str,
    patch_text: str | None,
    step: str | None = None,
    force: bool = False,
    allowed: Sequence[str] | None = None,
    expected_version: int | None = None,
) -> int:
    """Apply a patch (inline, or from stdin when ``patch_text`` is ``None`` or ``-``).

    With ``expected_version`` the write is a compare-and-swap: if the run is at another
    version, nothing is written and the exit code is :data:`CONFLICT`.
    """
    from skillstate.errors import InvalidInput, RunNotFound, SkillNotFound, VersionConflict
    from skillstate.pipeline import Change, transition

    if not _valid_id(ctx, run_id):
        return USAGE
    record = _load(ctx, run_id)
    if record is None:
        return USAGE
    host = ctx.host
    skill = host.skills.get(record.skill)
    if skill is None or (allowed is not None and record.skill not in allowed):
        ctx.error(f"run '{run_id}' names unknown skill '{excerpt(record.skill)}'")
        return USAGE
    try:
        patch = read_document(patch_text, limit=_limit(ctx))
    except InvalidInput as exc:
        ctx.error(str(exc))
        return REJECTED
    if expected_version is not None and record.version != expected_version:
        ctx.error(_conflict(VersionConflict(run_id, expected_version, record.version)))
        return CONFLICT
    try:
        outcome = transition(
            host,
            ctx.store,
            run_id,
            Change(patch=patch, label=step or "", force=force),
            skill=skill,
            expected_version=expected_version,
            current=record if expected_version is not None else None,
        )
    except VersionConflict as exc:
        ctx.error(_conflict(exc))
        return CONFLICT
    except RunNotFound:
        _load(ctx, run_id)
        return USAGE
    except SkillNotFound:
        ctx.error(f"run '{run_id}' names unknown skill '{excerpt(record.skill)}'")
        return USAGE
    if outcome.record is not None:
        print(_render(ctx, outcome.record), file=ctx.out)
    if not outcome.accepted:
        ctx.reasons("patch rejected", outcome.problems)
        return REJECTED
    return OK


def number_arg(
    ctx: RunContext, text: str | None, flag: str, least: int = 0, what: str = ""
) -> int | bool | None:
    """The whole number ``>= least`` a flag gives (``None`` when not given), or ``False``
    after an error line naming the flag (and ``what`` the number is)."""
    from skillstate.errors import InvalidInput
    from skillstate.numbers import whole_number

    if text is None:
        return None
    number = int(text) if text.isascii() and text.isdigit() else None
    try:
        return whole_number(
            text if number is None or number < least else number,
            flag,
            least=least,
            kind=what,
            hint=_WHAT.get(what, ""),
        )
    except InvalidInput as exc:
        ctx.error(str(exc))
        return False


_WHAT = {"a version: ": " (1 is the creation)"}


def version_arg(ctx: RunContext, text: str | None, flag: str) -> int | bool | None:
    """The version a flag names (``None`` when not given), or ``False`` after an error line."""
    return number_arg(ctx, text, flag, 1, "a version: ")


def _conflict(exc: Exception) -> str:
    return f"{exc}; nothing written (read the run again and retry)"


def do_rm(ctx: RunContext, run_id: str, expected_version: int | None = None) -> int:
    """Delete the run and its journal; exit 0 even when there was nothing (as rig-state:
    a clean-up step run twice succeeds), then with one warning line naming the id.

    With ``expected_version``, only if the run is still at that version (checked and
    deleted in one step: :meth:`Store.delete_if_at <skillstate.store.Store.delete_if_at>`); else nothing is deleted
    and the exit code is :data:`CONFLICT`, or :data:`USAGE` when there is no such run.
    """
    from skillstate.errors import VersionConflict

    if not _valid_id(ctx, run_id):
        return USAGE
    if expected_version is None:
        if not ctx.store.delete(run_id):
            ctx.error(f"warning: no run '{excerpt(run_id)}'; nothing removed")
        return OK
    try:
        gone = ctx.store.delete_if_at(run_id, expected_version)
    except VersionConflict as exc:
        ctx.error(f"{exc}; nothing deleted (read the run again and retry)")
        return CONFLICT
    if not gone:
        ctx.error(f"no run '{run_id}' (expected at version {expected_version}); nothing deleted")
        return USAGE
    return OK
