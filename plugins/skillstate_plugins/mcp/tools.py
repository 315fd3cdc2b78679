"""The SKILL.state session tools: the reference server's names, arguments and payloads.

``initialize_skill``, ``execute_step``, ``inject_observation``, ``parse_turn_response``
and ``close_session`` keep the reference's tool names, argument names, required flags,
defaults and payload keys (plus our optional ``expected_step``); ``get_session``,
``list_sessions``, ``session_history`` (read-only), ``fork_session`` and
``rewind_session`` are ours.
Each tool calls :class:`skillstate.plugin.runtime.Runtime`; its typed errors become ``isError``
results carrying the runtime's message.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from skillstate.plugin import SkillstateError

from .args import ArgumentError, Param
from .scrub import public_session
from .tooling import StrictTool, make_tool, ok_result

if TYPE_CHECKING:
    from skillstate.plugin.runtime import Runtime

__all__ = ["INSTRUCTIONS", "SESSION_TOOL_NAMES", "session_tools"]

INSTRUCTIONS = (
    "You are connected to a SKILL.state runtime (arXiv:2608.26263). There is NO conversation "
    "history: at every step you receive exactly three things — the immutable skill spec P, the "
    "current execution state Σ (JSON), and the latest observation O. Keep ALL bookkeeping inside "
    "Σ via state_update (ΔΣ_t); put ALL deliberation inside reasoning_trace (R_t), which the "
    "runtime permanently discards. Never expect earlier tool results to be replayed — the "
    "prompt_payload IS your entire context."
)
"""The reference server's ``instructions`` (returned at initialize), verbatim."""

SESSION_TOOL_NAMES = (
    "initialize_skill",
    "execute_step",
    "inject_observation",
    "parse_turn_response",
    "close_session",
    "get_session",
    "list_sessions",
    "session_history",
    "fork_session",
    "rewind_session",
)

_SESSION_ID = Param(
    "session_id",
    "id",
    "The session's id: 1-80 characters from A-Z a-z 0-9 . _ -, starting with a letter or digit.",
)

_EXPECTED_STEP = Param(
    "expected_step",
    "integer",
    "Optional: the step the session is at before this call (get_session's stepCount, the "
    "last execute_step's step). A retry of a call that was already applied gets its recorded "
    "answer (meta.replayed) instead of a second application; a stale step is refused.",
    required=False,
)

_INIT_DESCRIPTION = (
    "Create a new SKILL.state execution session. Stores the immutable skill specification P and "
    "the initial execution state Σ_0, then returns the initial prompt payload (P, Σ_0, boot "
    "observation). From this point on, the LLM must treat that payload as its ENTIRE context — "
    "there is no message history. Advances happen exclusively through execute_step. "
    "The session is durable: it lives in the server's store and survives restarts. "
    "Give P as skill_specification, or name a stored skill with skill_name (P is its "
    "SKILL.md body, its sha256 and source are recorded)."
)

_STEP_DESCRIPTION = (
    "Advance a skill session by exactly one step t → t+1. INPUT: reasoning_trace R_t "
    "(Chain-of-Thought — discarded by the runtime and never stored), state_update ΔΣ_t (sparse "
    "JSON patch object; null deletes a key), action a_t (a non-empty string or a JSON object), "
    "and the environment_observation O_t you consumed this turn (copy latest_observation). "
    "LOGIC: validate ΔΣ_t → apply Σ_{t+1} = Σ_t ⊕ ΔΣ_t (null-deletion semantics) → execute a_t → "
    "obtain observation O_{t+1}. If the state or the environment rejects the step, Σ and the step "
    "stay unchanged (meta.rolled_back, meta.rejection say why) — fix and retry. OUTPUT: the strict "
    "next-turn tuple {skill_spec: P, current_state: Σ_{t+1}, latest_observation: O_{t+1}}. Nothing "
    "else is retained — no history, no reasoning, no old observations. A completed session "
    "accepts no more steps."
)

_INJECT_DESCRIPTION = (
    "Deliver an asynchronous environment observation / event alert into an active session (e.g. "
    "background alerts, customer orders, or external world drift per arXiv:2608.26263 §5.4). "
    "Does not advance the step count. An optional state_patch is merged with the same ⊕ and "
    "validated; if it breaks the session's rules nothing changes and the call fails."
)

_PARSE_DESCRIPTION = (
    "Parses a raw LLM response string containing free-form reasoning and a fenced ```json block "
    '{"state_patch": {...}, "action": "..."} per arXiv:2608.26263 Appendix A.4. Separates the '
    "reasoning trace R_t (for discarding) from the structured payload. The LAST ```json block is "
    "the answer; it must have exactly the keys state_patch (an object) and action (a non-empty "
    "string). Only trailing commas and curly double quotes are repaired (listed in repairs). "
    "Stateless."
)

_CLOSE_DESCRIPTION = (
    "Housekeeping: close a skill session. Returns the final step and the final Σ; the session is "
    "kept (closed, read-only) in the store for audit. Its id can be initialized again: the "
    "closed session is then moved, whole, to <id>.closed-<n>."
)


def session_tools(runtime: Runtime, *, offload: bool = True) -> list[StrictTool]:
    """The seven session tools bound to ``runtime``."""
    envs = tuple(runtime.host.environments.names())
    try:
        default_env: str | None = runtime.host.default_environment()
    except SkillstateError:
        default_env = None  # then initialize_skill names the problem when it is called

    def initialize_skill(a: dict[str, Any]) -> Any:
        if ("skill_specification" in a) == ("skill_name" in a):
            raise ArgumentError(
                "initialize_skill takes skill_specification (P itself) or skill_name (a stored "
                "skill, whose SKILL.md body becomes P), exactly one of them"
                + ("; both were given" if "skill_name" in a else "")
            )
        if "skill_name" in a:
            return ok_result(
                runtime.initialize_from_skill_store(
                    a["session_id"],
                    a["skill_name"],
                    a.get("initial_state"),
                    a.get("state_schema"),
                    a.get("environment"),
                    a.get("skill"),
                    a.get("environment_options"),
                )
            )
        return ok_result(
            runtime.initialize_skill(
                a["session_id"],
                a["skill_specification"],
                a.get("initial_state"),
                a.get("state_schema"),
                a.get("environment"),
                skill=a.get("skill"),
                environment_options=a.get("environment_options"),
            )
        )

    def execute_step(a: dict[str, Any]) -> Any:
        return ok_result(
            runtime.execute_step(
                a["session_id"],
                a["reasoning_trace"],
                a["state_update"],
                a["action"],
                a["environment_observation"],
                expected_step=a.get("expected_step"),
            )
        )

    def inject_observation(a: dict[str, Any]) -> Any:
        return ok_result(
            runtime.inject_observation(
                a["session_id"],
                a["observation"],
                a.get("state_patch"),
                expected_step=a.get("expected_step"),
            )
        )

    def parse_turn_response(a: dict[str, Any]) -> Any:
        from skillstate.plugin.runtime import parse_turn_response as parse

        return ok_result(parse(a["response_text"]).to_dict())

    def close_session(a: dict[str, Any]) -> Any:
        return ok_result(runtime.close_session(a["session_id"]))

    def get_session(a: dict[str, Any]) -> Any:
        return ok_result(
            public_session(runtime.get_session(a["session_id"], at_step=a.get("at_step")))
        )

    def session_history(a: dict[str, Any]) -> Any:
        return ok_result(
            runtime.session_history(a["session_id"], after=a.get("after"), limit=a.get("limit"))
        )

    def fork_session(a: dict[str, Any]) -> Any:
        return ok_result(
            runtime.fork_session(a["session_id"], a["new_session_id"], at_step=a.get("at_step"))
        )

    def rewind_session(a: dict[str, Any]) -> Any:
        return ok_result(
            public_session(
                runtime.rewind_session(a["session_id"], a["to_step"], force=a.get("force", False))
            )
        )

    def list_sessions(a: dict[str, Any]) -> Any:
        return ok_result(
            runtime.list_sessions(
                include_closed=a.get("include_closed", False),
                after=a.get("cursor"),
                limit=a.get("limit"),
            )
        )

    init_params = [
        _SESSION_ID,
        Param(
            "skill_specification",
            "spec",
            "The skill specification P (instructions), a string or a JSON object. Immutable. "
            "Give this or skill_name.",
            required=False,
        ),
        Param(
            "skill_name",
            "string",
            "Instead of skill_specification: a stored skill (skills_list). P is its SKILL.md "
            "body, frozen now; the session records its sha256 and source, and the skill's "
            "skillstate-skill / skillstate-environment frontmatter are the defaults of skill "
            "and environment.",
            required=False,
        ),
        Param(
            "initial_state",
            "object",
            "Σ_0, the initial execution state (a JSON object; default {}).",
            required=False,
        ),
        Param(
            "state_schema",
            "object",
            "Optional schema every Σ must satisfy: a JSON Schema (draft 2020-12), or the "
            'type-name form {"required": [...], "properties": {"k": "number"}, '
            '"additionalProperties": false} or {"k": "string", "opt": "string?"}; a step whose '
            "Σ_{t+1} fails it is rolled back.",
            required=False,
        ),
        Param(
            "environment",
            "name",
            "The environment that executes actions"
            + (f' (default "{default_env}").' if default_env else "."),
            required=False,
            choices=envs,
        ),
        Param(
            "skill",
            "string",
            "Optional: a registered skill (skillstate plugins) whose fields, budgets and guards "
            "also apply to Σ.",
            required=False,
        ),
        Param(
            "environment_options",
            "object",
            "Optional options for the environment (e.g. a seed); see the environment's docs.",
            required=False,
        ),
    ]
    step_params = [
        _SESSION_ID,
        Param(
            "reasoning_trace",
            "text",
            "R_t: your reasoning for this step. Discarded unread (never stored).",
        ),
        Param(
            "state_update",
            "object",
            'ΔΣ_t: a sparse JSON object patch; null deletes a key, e.g. {"draft": null}. {} for '
            "no change.",
        ),
        Param(
            "action",
            "action",
            "a_t: the next action, a non-empty string (the exact command) or a JSON object.",
        ),
        Param(
            "environment_observation",
            "text",
            "O_t: the latest_observation you were given (copied exactly; a mismatch adds a drift "
            "warning).",
        ),
        _EXPECTED_STEP,
    ]
    inject_params = [
        _SESSION_ID,
        Param("observation", "string", "The external observation or event text."),
        Param(
            "state_patch",
            "object",
            "Optional JSON object patch merged into Σ (validated; the step does not advance).",
            required=False,
        ),
        _EXPECTED_STEP,
    ]
    return [
        make_tool(
            "initialize_skill",
            "Initialize a SKILL.state session",
            _INIT_DESCRIPTION,
            init_params,
            initialize_skill,
            offload=offload,
        ),
        make_tool(
            "execute_step",
            "Execute one SKILL.state step",
            _STEP_DESCRIPTION,
            step_params,
            execute_step,
            offload=offload,
        ),
        make_tool(
            "inject_observation",
            "Inject an external observation or state change",
            _INJECT_DESCRIPTION,
            inject_params,
            inject_observation,
            offload=offload,
        ),
        make_tool(
            "parse_turn_response",
            "Parse an A.4 model response",
            _PARSE_DESCRIPTION,
            [Param("response_text", "string", "The model's raw response text.")],
            parse_turn_response,
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "close_session",
            "Close a SKILL.state session",
            _CLOSE_DESCRIPTION,
            [_SESSION_ID],
            close_session,
            destructive=True,
            offload=offload,
        ),
        make_tool(
            "get_session",
            "Read a SKILL.state session",
            "Read one session without acting: the skill spec P, the state Σ, the step, the "
            "status and metadata (never any reasoning). Any status, including closed. With "
            "at_step: the session as it was at that step.",
            [
                _SESSION_ID,
                Param(
                    "at_step",
                    "integer",
                    "Optional: read the session as it was at this step (its last version then).",
                    required=False,
                ),
            ],
            get_session,
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "list_sessions",
            "List SKILL.state sessions",
            "The session index: for each session its id, status, step count, timestamps, state "
            "keys, environment and a spec preview. Closed sessions only with include_closed. "
            "Paged with limit and cursor.",
            [
                Param(
                    "include_closed",
                    "boolean",
                    "Also list closed sessions (default false).",
                    required=False,
                ),
                Param(
                    "limit",
                    "integer",
                    "Optional: at most this many sessions (at least 1); the answer then has "
                    "next_cursor, null on the last page.",
                    required=False,
                    minimum=1,
                ),
                Param(
                    "cursor",
                    "id",
                    "Optional: the next_cursor of the previous page: list the sessions after it.",
                    required=False,
                ),
            ],
            list_sessions,
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "session_history",
            "Page through a session's history",
            "One row per version of the session, oldest first: version, step, time, label, the "
            "state keys it changed, the action, the observation's SHA-256, the status, the "
            "rollback kind and the origin (fork, rewind). Never any reasoning. Page with after "
            "(a version; next_after in the answer) and limit (default 50, at most 500).",
            [
                _SESSION_ID,
                Param(
                    "after", "integer", "Only versions after this one (default 0).", required=False
                ),
                Param(
                    "limit",
                    "integer",
                    "At most this many rows (1-500, default 50).",
                    required=False,
                    minimum=1,
                ),
            ],
            session_history,
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "fork_session",
            "Fork a SKILL.state session",
            "Start a new session from another as it was at a step (default: now), to explore an "
            "alternative: the same spec P, Σ and environment of that step, the step count going "
            "on from it. The original session is not changed. Counts towards the session cap.",
            [
                _SESSION_ID,
                Param("new_session_id", "id", "The new session's id (must be free)."),
                Param(
                    "at_step",
                    "integer",
                    "Optional: the step to fork from (default: the current one).",
                    required=False,
                ),
            ],
            fork_session,
            offload=offload,
        ),
        make_tool(
            "rewind_session",
            "Rewind a SKILL.state session",
            "Set Σ back to what it was at a past step, as a new version: the history is kept, "
            "the step count does not go back, the session's rules apply (a state they refuse "
            "is not written), and the environment is not rewound (fork_session rebuilds it). "
            "A completed or closed session, or one in a terminal phase, needs force.",
            [
                _SESSION_ID,
                Param("to_step", "integer", "The step whose Σ the session goes back to."),
                Param(
                    "force",
                    "boolean",
                    "Reopen a completed or closed session / leave a terminal phase (default "
                    "false).",
                    required=False,
                ),
            ],
            rewind_session,
            destructive=True,
            offload=offload,
        ),
    ]
