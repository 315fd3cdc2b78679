"""The read commands shared by ``skillstate`` and ``rig-state``: get, show, list, journal.

Output rules are :mod:`skillstate.cli.runs`'s; nothing here writes to the store.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillstate.cli.exits import OK, REJECTED, USAGE
from skillstate.cli.runs import RunContext, _render, _valid_id, open_run

if TYPE_CHECKING:
    from skillstate.records import RunRecord

__all__ = ["do_get", "do_journal", "do_list", "do_show"]


def _at(ctx: RunContext, record: RunRecord, at: int | None) -> RunRecord | None:
    """``record`` as it was at version ``at`` (``None``: as it is); an error line if it has none."""
    from skillstate.errors import InvalidInput, VersionNotFound

    if at is None:
        return record
    try:
        return ctx.store.state_at(record.id, at, merge=ctx.host.merge).record_of(record)
    except (VersionNotFound, InvalidInput) as exc:
        ctx.error(str(exc))
        return None


def _read(ctx: RunContext, run_id: str, at: int | None) -> RunRecord | None:
    """The run (at version ``at``), or ``None`` after one error line."""
    current = open_run(ctx, run_id)
    return None if current is None else _at(ctx, current, at)


def do_get(
    ctx: RunContext,
    run_id: str,
    field: str | None = None,
    *,
    at: int | None = None,
    with_version: bool = False,
) -> int:
    """The state as pretty JSON, or one dotted field (a missing field: silent exit 1).

    ``at`` reads the state as it was at that version; ``with_version`` prints the
    version read on a line of its own first (for ``patch --expected-version``).
    """
    from skillstate.display import printable, printable_json
    from skillstate.jsondoc import pretty
    from skillstate.render import dig_field, field_text

    record = _read(ctx, run_id, at)
    if record is None:
        return USAGE
    if field is None:
        if with_version:
            print(record.version, file=ctx.out)
        print(printable_json(pretty(record.state)), file=ctx.out)
        return OK
    found, value = dig_field(record.state, field)
    if not found:
        return REJECTED
    if with_version:
        print(record.version, file=ctx.out)
    text = field_text(value)
    print(printable(text) if isinstance(value, str) else printable_json(text), file=ctx.out)
    return OK


def do_show(ctx: RunContext, run_id: str, *, at: int | None = None, as_json: bool = False) -> int:
    """The compact rendering a skill reads at the start of each step (``at``: of that version).

    ``as_json``: ``{id, skill, version, step, status, text}``, ``text`` the rendering.
    """
    record = _read(ctx, run_id, at)
    if record is None:
        return USAGE
    text = _render(ctx, record)
    if as_json:
        fields = ("id", "skill", "version", "step", "status")
        return _json_out(ctx, {**{k: getattr(record, k) for k in fields}, "text": text})
    print(text, file=ctx.out)
    return OK


def _json_out(ctx: RunContext, value: Any) -> int:
    """``value`` as indented JSON on ``ctx.out`` (every ``--json``); exit 0."""
    import json

    print(json.dumps(value, indent=2, ensure_ascii=False), file=ctx.out)
    return OK


def do_list(ctx: RunContext, skill: str | None = None, *, as_json: bool = False) -> int:
    """One line per run, by id: ``id<TAB>skill<TAB>phase<TAB>updated<TAB>next action``.

    The phase and next action are read with each run's skill's own ``phase_key`` and
    ``next_action_key`` (empty for a skill that has none, or is not installed). A
    record the store cannot read is skipped with a warning on stderr. ``as_json``: a
    JSON array of ``{id, skill, status, version, phase, updated, next_action}``
    (``null`` where the text has an empty column).
    """
    import warnings

    from skillstate.store import StoreWarning

    skills = {s.name: s for s in ctx.host.skills}
    keys = {k for s in skills.values() for k in (s.phase_key, s.next_action_key) if k}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", StoreWarning)
        summaries = ctx.store.list(skill, keys=sorted(keys))
    for warning in caught:
        if issubclass(warning.category, StoreWarning):
            text = str(warning.message)  # "skipping {file}: …" as rig-state's Q6 says
            ctx.error(text if text.startswith("skipping ") else f"warning: {text}")
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
    from skillstate.display import one_line, printable

    rows = []
    for s in summaries:
        run_skill = skills.get(s.skill)
        phase = next_action = ""
        if run_skill is not None:
            phase = s.fields.get(run_skill.phase_key, "")
            if run_skill.next_action_key:
                next_action = s.fields.get(run_skill.next_action_key, "")
        if not as_json:
            fields = (s.id, s.skill, phase, s.updated or "", next_action)
            line = "\t".join(one_line(str(f), tabs=True) for f in fields)  # a row, 5 columns
            print(printable(line), file=ctx.out)  # no ESC, no U+202E reordering the columns
            continue
        rows.append(
            {
                "id": s.id,
                "skill": s.skill,
                "status": s.status,
                "version": s.version,
                "phase": phase or None,
                "updated": s.updated or None,
                "next_action": next_action or None,
            }
        )
    return _json_out(ctx, rows) if as_json else OK


def do_journal(ctx: RunContext, run_id: str, *, as_json: bool = False) -> int:
    """The run's journal, one compact JSON object per line (``ts``, ``step``, ``patch`` first).

    A store that keeps a text journal (the file store) has it printed byte for byte
    (complete lines only; :meth:`Store.raw_journal`). ``as_json``: one JSON array of
    the entries (each as :meth:`JournalEntry.to_dict` gives it), from any store.
    """
    from skillstate.errors import RunNotFound
    from skillstate.jsondoc import compact

    if not _valid_id(ctx, run_id):
        return USAGE
    store = ctx.store
    try:
        entries = store.journal(run_id)
    except RunNotFound:
        ctx.error(f"no journal for '{run_id}'")
        return USAGE
    if as_json:
        return _json_out(ctx, [entry.to_dict() for entry in entries])
    raw = store.raw_journal(run_id)
    if raw is not None:
        ctx.out.write(raw)
        return OK
    for entry in entries:
        print(compact(entry.to_dict()), file=ctx.out)
    return OK
