"""The typed records of skillstate: problems, skill definitions, runs, journal entries.

Values are frozen attrs classes. Freezing is shallow: a state (a ``dict``) inside a
frozen record must be treated as immutable by everyone; the core never changes a
state in place, it always builds a new one (see :func:`skillstate.merge.merge_patch`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs

if TYPE_CHECKING:
    import argparse

    from skillstate.cli.context import CliContext
    from skillstate.environment import Environment
    from skillstate.store import Store

__all__ = [
    "DEFAULT_BUDGET",
    "FIELD_TYPES",
    "MAX_MESSAGE",
    "MAX_PATH",
    "TEXT_UNITS",
    "ActionResult",
    "Budget",
    "CommandSpec",
    "DoctorFinding",
    "EnvironmentSpec",
    "FieldSpec",
    "HistoryItem",
    "JournalEntry",
    "Problem",
    "RunRecord",
    "RunSummary",
    "SkillDefinition",
    "Snapshot",
    "StoreSpec",
]

JSON = Any
"""A JSON value: ``None``, ``bool``, ``int``, ``float``, ``str``, ``list`` or ``dict`` with ``str`` keys."""

FIELD_TYPES = ("string", "number", "boolean", "string[]", "object", "object[]")

TEXT_UNITS = ("unicode", "utf16")
"""How a skill's budget counts text (:attr:`SkillDefinition.text_units`)."""


MAX_MESSAGE = 2000
"""A problem's message is cut at this many characters (a plugin's too): messages quote
what they found through :func:`skillstate.display.excerpt`, this is the last bound."""

MAX_PATH = 200
"""A problem's path is cut at this many characters (a path is made of the caller's keys)."""


def _bounded_message(text: object) -> str:
    from skillstate.display import excerpt

    return excerpt(text if isinstance(text, str) else str(text), MAX_MESSAGE)


def _bounded_path(text: object) -> str:
    from skillstate.display import excerpt

    return excerpt(text if isinstance(text, str) else str(text), MAX_PATH)


@attrs.frozen
class Problem:
    """One reason a transition was rejected.

    ``code`` is a short kind (``unknown-key``, ``type``, ``enum``, ``budget``,
    ``guard``, ``immutable``, ``phase``, ``terminal``, ``patch``, ``schema``,
    ``action``, ``input``); ``path`` is dotted (``children[1].status``) or ``""``
    for the whole document; ``message`` is the exact user-facing text; ``source``
    names the plugin (or ``"core"``) that found it.
    """

    code: str
    message: str = attrs.field(converter=_bounded_message)
    path: str = attrs.field(default="", converter=_bounded_path)
    source: str = "core"

    def to_dict(self) -> dict[str, str]:
        return {
            "code": self.code,
            "path": self.path,
            "message": self.message,
            "source": self.source,
        }


@attrs.frozen
class Budget:
    """Size limits a state must stay within (rig's defaults)."""

    string_chars: int = 500
    array_items: int = 50
    document_bytes: int = 8192

    def __attrs_post_init__(self) -> None:
        for name in ("string_chars", "array_items", "document_bytes"):
            value = getattr(self, name)
            if type(value) is not int or value < 1:
                raise ValueError(f"budget {name} must be a positive integer, got {value!r}")


DEFAULT_BUDGET = Budget()


@attrs.frozen
class FieldSpec:
    """The type of one state field: ``type`` is one of :data:`FIELD_TYPES`.

    ``enum`` restricts a ``string`` field; ``of`` gives the nested fields of an
    ``object`` or of each element of an ``object[]``.
    """

    type: str
    enum: tuple[str, ...] | None = None
    of: Mapping[str, FieldSpec] | None = None

    def __attrs_post_init__(self) -> None:
        if self.type not in FIELD_TYPES:
            raise ValueError(f"field type {self.type!r} is not one of {', '.join(FIELD_TYPES)}")
        if self.of is not None and self.type not in ("object", "object[]"):
            raise ValueError(f"'of' is only allowed on object and object[] fields, not {self.type}")
        if self.enum is not None and self.type != "string":
            raise ValueError(f"'enum' is only allowed on string fields, not {self.type}")


def _freeze_fields(value: Mapping[str, FieldSpec] | None) -> Mapping[str, FieldSpec] | None:
    return None if value is None else dict(value)


@attrs.frozen
class SkillDefinition:
    """A registered skill: the schema, phases and rules a run of it obeys.

    - ``fields``: the state's fields (rig style); unknown keys are rejected at every
      depth. ``json_schema``: a JSON Schema (draft 2020-12) instead of, or on top of,
      ``fields``. With neither, any JSON object is accepted (budgets still apply).
    - ``phases`` (ordered) and ``terminal_phases``: when ``phases`` is non-empty the
      value at ``phase_key`` must be one of them, and leaving a terminal phase needs
      ``force``.
    - ``immutable_keys``: set at creation, never patched, and not settable through the
      creation seed either.
    - ``run_id_key``, ``skill_key``, ``created_key``, ``updated_key``: when set, the
      pipeline writes the run id, the skill name and timestamps into the state
      (rig's ``runId``, ``skill``, ``createdAt``, ``updatedAt``).
    - ``next_action_key``: the top-level key whose string value ``skillstate list``
      shows as a run's next action (rig's ``nextAction``); ``None`` shows none.
    - ``budget``: overrides the default :class:`Budget` for this skill.
    - ``text_units``: how the budget counts text: ``"unicode"`` (the default) counts a
      string's code points and the document's UTF-8 bytes; ``"utf16"`` counts UTF-16
      code units for both, as JavaScript's ``.length`` does (rig-state: an emoji is 2).
    - ``render``: ``render(record)`` gives the text ``skillstate show`` prints for a
      run of this skill; ``None`` uses the core's generic block
      (:func:`skillstate.render.render_block`), which honours the keys above.
    """

    name: str
    description: str = ""
    fields: Mapping[str, FieldSpec] | None = attrs.field(default=None, converter=_freeze_fields)
    json_schema: Mapping[str, Any] | None = None
    phases: tuple[str, ...] = ()
    terminal_phases: tuple[str, ...] = ()
    immutable_keys: tuple[str, ...] = ()
    budget: Budget | None = None
    phase_key: str = "phase"
    run_id_key: str | None = None
    skill_key: str | None = None
    created_key: str | None = None
    updated_key: str | None = None
    next_action_key: str | None = None
    render: Callable[[RunRecord], str] | None = attrs.field(default=None, eq=False)
    text_units: str = "unicode"

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"a skill name must be a non-empty string, got {self.name!r}")
        unknown = [p for p in self.terminal_phases if p not in self.phases]
        if unknown:
            raise ValueError(
                f"skill {self.name}: terminal phases {unknown} are not among its phases {list(self.phases)}"
            )
        if self.text_units not in TEXT_UNITS:
            raise ValueError(
                f"skill {self.name}: text_units must be one of {', '.join(TEXT_UNITS)}, "
                f"got {self.text_units!r}"
            )
        if self.json_schema is not None:  # checked now, not at the first transition
            from skillstate.schema import json_schema_errors

            errors = json_schema_errors(self.json_schema, f"skill {self.name}: json_schema")
            if errors:
                raise ValueError(errors[0])

    def stamped_keys(self) -> tuple[str, ...]:
        """The state keys the pipeline writes itself (id, skill, phase, timestamps)."""
        keys = (
            self.run_id_key,
            self.skill_key,
            self.phase_key if self.phases else None,
            self.created_key,
            self.updated_key,
        )
        return tuple(k for k in keys if k)

    def initial_state(self, run_id: str, now: str) -> dict[str, Any]:
        """The state a new run starts from, before its seed is merged in."""
        state: dict[str, Any] = {}
        if self.run_id_key:
            state[self.run_id_key] = run_id
        if self.skill_key:
            state[self.skill_key] = self.name
        if self.phases:
            state[self.phase_key] = self.phases[0]
        if self.created_key:
            state[self.created_key] = now
        if self.updated_key:
            state[self.updated_key] = now
        return state


@attrs.frozen
class StoreSpec:
    """A storage backend, selected by the scheme of a store URL (``file:``, ``memory:``...).

    ``factory(url)`` opens the store; it is called once per URL per process.
    """

    scheme: str
    factory: Callable[[str], Store]
    description: str = ""

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.scheme, str) or not self.scheme.strip():
            raise ValueError(f"a store scheme must be a non-empty string, got {self.scheme!r}")
        object.__setattr__(self, "scheme", self.scheme.strip().lower())


@attrs.frozen
class EnvironmentSpec:
    """An environment, selected by name (``mock``, ``warehouse``...).

    ``factory(options, snapshot)`` builds a fresh environment: from ``options`` for a
    new session (``snapshot`` is ``None``), or restored from a previous
    :meth:`Environment.snapshot`. ``default`` offers it as the environment of sessions
    that name none, unless ``default_environment`` is configured (the bundled ``mock``
    does, as the reference server defaults to its mock); two plugins offering one is
    an error naming both.
    """

    name: str
    factory: Callable[[Mapping[str, Any], Any], Environment]
    description: str = ""
    default: bool = False

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError(f"an environment name must be a non-empty string, got {self.name!r}")
        object.__setattr__(self, "name", self.name.strip())


@attrs.frozen
class ActionResult:
    """What an environment answers to one action.

    ``status`` is ``"accepted"``, ``"rejected"`` (the whole step rolls back) or
    ``"completed"`` (accepted, and the session is finished).
    """

    status: str
    observation: str
    details: Mapping[str, Any] = attrs.field(factory=dict)

    def __attrs_post_init__(self) -> None:
        if self.status not in ("accepted", "rejected", "completed"):
            raise ValueError(
                f"action status must be accepted, rejected or completed, not {self.status!r}"
            )


@attrs.frozen
class DoctorFinding:
    """One finding of ``skillstate doctor``.

    ``severity`` is ``ok``, ``nit``, ``warn`` or ``error``; ``fix`` tells a human what
    to do. ``autofix``, when set, is the safe automatic fix ``doctor --fix`` applies:
    called with no argument, it makes the change and returns one line saying what it
    did (``None`` when there was nothing left to do). Only offer an ``autofix`` that
    cannot lose data.
    """

    check: str
    severity: str
    message: str
    fix: str | None = None
    source: str = "core"
    autofix: Callable[[], str | None] | None = attrs.field(default=None, eq=False)


@attrs.frozen
class CommandSpec:
    """A sub-command of ``skillstate``, registered by a plugin (or by the core).

    ``name`` is what users type (``skillstate NAME``); ``help`` is its one-line help.
    ``configure(parser)`` adds its arguments to an :class:`argparse.ArgumentParser`;
    ``run(ctx)`` runs it with a :class:`~skillstate.cli.context.CliContext` (parsed
    ``ctx.args``, ``ctx.out``/``ctx.err``, and ``ctx.config``/``ctx.host``/``ctx.store``
    built on first use) and returns the exit code. Both are called only when the
    command runs (or for ``--help``), so a plugin can import its command's module
    inside them and keep start-up cheap.
    """

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[CliContext], int]
    description: str = ""

    def __attrs_post_init__(self) -> None:
        name = self.name
        if (
            not isinstance(name, str)
            or not name
            or name.startswith("-")
            or any(c.isspace() for c in name)
        ):
            raise ValueError(f"a command name must be one word not starting with '-', got {name!r}")
        if not isinstance(self.help, str):
            raise ValueError(f"command {name}: help must be a string")
        if not callable(self.configure) or not callable(self.run):
            raise ValueError(f"command {name}: configure and run must be callables")

    @classmethod
    def from_module(cls, name: str, help: str, module: str, description: str = "") -> CommandSpec:
        """A command whose ``configure`` and ``run`` are the functions of ``module``,
        imported only when the command is used (``CommandSpec.from_module("x", "...",
        f"{__package__}.x_cmd")``)."""

        def _module() -> Any:
            import importlib

            return importlib.import_module(module)

        def configure(parser: argparse.ArgumentParser) -> None:
            _module().configure(parser)

        def run(ctx: CliContext) -> int:
            code: int = _module().run(ctx)
            return code

        return cls(name, help, configure, run, description)


@attrs.frozen
class RunRecord:
    """One run (a rig run, or a SKILL.state session): the unit a store keeps.

    ``version`` counts committed writes (1 after creation) and is the
    compare-and-swap token; ``step`` counts accepted session steps; ``status`` is
    ``active``, ``completed`` or ``closed``. ``spec`` is the immutable P of a
    session, ``environment`` the environment's ``{"name", "options", "state"}``,
    ``observation`` the latest observation issued, ``schema`` a session's own JSON
    Schema, ``meta`` free-form metadata (never reasoning).
    """

    id: str
    skill: str
    state: Mapping[str, Any]
    version: int = 1
    step: int = 0
    status: str = "active"
    created: str = ""
    updated: str = ""
    spec: str | None = None
    environment: Mapping[str, Any] | None = None
    observation: str | None = None
    schema: Mapping[str, Any] | None = None
    meta: Mapping[str, Any] = attrs.field(factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "skill": self.skill,
            "version": self.version,
            "step": self.step,
            "status": self.status,
            "created": self.created,
            "updated": self.updated,
            "state": self.state,
            "spec": self.spec,
            "environment": self.environment,
            "observation": self.observation,
            "schema": self.schema,
            "meta": self.meta,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RunRecord:
        if not isinstance(data, Mapping):
            raise ValueError(f"a run record must be a JSON object, got {type(data).__name__}")
        missing = [k for k in ("id", "skill", "state", "version") if k not in data]
        if missing:
            raise ValueError(f"a run record needs {', '.join(missing)}")
        return cls(
            id=data["id"],
            skill=data["skill"],
            state=data["state"],
            version=int(data["version"]),
            step=int(data.get("step", 0)),
            status=data.get("status", "active"),
            created=data.get("created", ""),
            updated=data.get("updated", ""),
            spec=data.get("spec"),
            environment=data.get("environment"),
            observation=data.get("observation"),
            schema=data.get("schema"),
            meta=data.get("meta") or {},
        )


@attrs.frozen
class RunSummary:
    """One line of a store listing.

    ``fields`` holds, for each key the caller asked for (``Store.list(keys=...)``) that
    the state has at its top level with a string value, that value: the core asks for
    each skill's ``phase_key`` and ``next_action_key``, so a store never needs to know
    any skill.
    """

    id: str
    skill: str
    status: str
    updated: str
    version: int
    fields: Mapping[str, str] = attrs.field(factory=dict)

    @classmethod
    def of(cls, record: RunRecord, keys: Sequence[str] = ()) -> RunSummary:
        """The summary of ``record``, with the string values of ``keys`` (see above)."""
        state = record.state
        fields = {}
        for key in keys:
            value = state.get(key)
            if isinstance(value, str):
                fields[key] = value
        return cls(record.id, record.skill, record.status, record.updated, record.version, fields)


@attrs.frozen
class JournalEntry:
    """One accepted write, as appended to a run's journal.

    Serialised with the keys ``ts``, ``step`` (the label), ``patch`` (as sent, nulls
    kept) first — rig-state's journal format — then ours: ``version``; ``base`` (the
    starting state of a creation); ``set`` (values the pipeline stamped after the
    merge, e.g. ``updatedAt``); ``action``; ``observation_sha256`` (a digest, never
    the text); ``status`` and ``turn`` (session status and step after the write);
    ``origin`` (where a run or a version came from: ``{"op": "fork", "run": PARENT,
    "version": V}`` on a fork's first entry, ``{"op": "rewind", "version": V}`` on a
    rewind's entry). Replaying entries in order rebuilds the state: see
    :func:`skillstate.journal.replay`. Reasoning text is never part of an entry.
    """

    ts: str
    step: str
    patch: Any
    version: int
    base: Mapping[str, Any] | None = None
    set: Mapping[str, Any] | None = None
    action: Any = None
    observation_sha256: str | None = None
    status: str | None = None
    turn: int | None = None
    origin: Mapping[str, Any] | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "ts": self.ts,
            "step": self.step,
            "patch": self.patch,
            "version": self.version,
        }
        if self.base is not None:
            out["base"] = self.base
        if self.set:
            out["set"] = self.set
        if self.action is not None:
            out["action"] = self.action
        if self.observation_sha256 is not None:
            out["observation_sha256"] = self.observation_sha256
        if self.status is not None:
            out["status"] = self.status
        if self.turn is not None:
            out["turn"] = self.turn
        if self.origin is not None:
            out["origin"] = self.origin
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> JournalEntry:
        if not isinstance(data, Mapping) or "patch" not in data or "version" not in data:
            raise ValueError(
                "a journal entry must be an object with at least 'patch' and 'version'"
            )
        return cls(
            ts=data.get("ts", ""),
            step=data.get("step", ""),
            patch=data["patch"],
            version=int(data["version"]),
            base=data.get("base"),
            set=data.get("set"),
            action=data.get("action"),
            observation_sha256=data.get("observation_sha256"),
            status=data.get("status"),
            turn=data.get("turn"),
            origin=data.get("origin"),
        )


@attrs.frozen
class Snapshot:
    """A run as it was at one version: what a store keeps to shorten replays.

    ``state`` is Σ at ``version``; ``status`` and ``step`` the run's status and session
    step then. A store that keeps snapshots (the bundled ones do, every
    :data:`skillstate.store.SNAPSHOT_INTERVAL` versions) starts a replay from the
    nearest one instead of version 1; ``skillstate verify`` checks each against the
    replay of the journal.
    """

    version: int
    state: Mapping[str, Any]
    status: str = "active"
    step: int = 0

    @classmethod
    def of(cls, record: RunRecord) -> Snapshot:
        return cls(record.version, record.state, record.status, record.step)

    def to_dict(self) -> dict[str, Any]:
        return {"state": self.state, "status": self.status, "step": self.step}

    @classmethod
    def from_dict(cls, version: int, data: Any) -> Snapshot:
        """The snapshot of ``version`` kept as :meth:`to_dict`; ``ValueError`` if it is not one."""
        if not isinstance(data, Mapping) or not isinstance(data.get("state"), Mapping):
            raise ValueError("a snapshot must be an object with a 'state' object")
        status, step = data.get("status", "active"), data.get("step", 0)
        if not isinstance(status, str) or type(step) is not int:
            raise ValueError("a snapshot's status must be a string and its step an integer")
        return cls(version, data["state"], status, step)


@attrs.frozen
class HistoryItem:
    """One version of a run, as :meth:`Store.history <skillstate.store.Store.history>` yields it.

    ``entry`` is the journal entry that produced the version; ``state`` is Σ after it,
    ``status`` and ``step`` the run's status and session step after it.
    """

    entry: JournalEntry
    state: Mapping[str, Any]
    status: str = "active"
    step: int = 0

    @property
    def version(self) -> int:
        return self.entry.version

    def record_of(self, current: RunRecord) -> RunRecord:
        """``current`` (the run's record now) as it was at this version, as far as the
        journal says: state, version, status, step and update time. The other fields
        (spec, environment, observation, meta) are the current ones."""
        return attrs.evolve(
            current,
            state=self.state,
            version=self.version,
            status=self.status,
            step=self.step,
            updated=self.entry.ts or current.updated,
        )
