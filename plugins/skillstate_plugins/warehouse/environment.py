"""The warehouse environment: one private world per session, in command or episode mode.

- **command** mode (the reference runtime's executor, gaps fixed): 500 empty shelves;
  observations ``[WAREHOUSE · step N] …`` with the reference's texts.
- **episode** mode (the paper's benchmark): the seeded event stream of
  ``generator.py``; the first observation is event 0; each accepted action is scored
  against the pending event (``scoring.py``) and the next event (plus any drift alert)
  follows its outcome line; after the last event the session completes.

Both modes append telemetry noise when asked (``noise.py``). Everything the world
holds is in :meth:`WarehouseEnvironment.snapshot`; a rejected action leaves the
instance to be discarded, so it never advances the episode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.plugin import ActionResult, Environment, InvalidInput

from .commands import (
    SHELF_COUNT,
    SHELF_IDS,
    Outcome,
    apply_command,
    is_shelf,
    parse_command,
    raw_action,
)
from .drift import alert_text, apply_drift, drift_step
from .generator import DriftDoesNotFit, Episode, generate
from .noise import noise_suffix
from .options import WarehouseOptions, parse_options
from .scoring import event_text, is_correct, score_summary

__all__ = ["WarehouseEnvironment"]

COMMAND_VERBS = ("store", "ship", "move", "wait", "complete")
EPISODE_VERBS = ("store", "ship", "move", "wait", "skip")
_FAILED = {"action_status": "failed"}


def _bad_snapshot(snapshot: Any, why: str) -> InvalidInput:
    return InvalidInput(f"warehouse snapshot is not valid ({why}): {snapshot!r:.200}")


def _shelves(snapshot: Mapping[str, Any]) -> dict[str, str]:
    """The snapshot's shelves, checked: restored on every step, so set operations rather
    than a check per shelf (a full warehouse has 500)."""
    shelves = snapshot.get("shelves")
    if (
        not isinstance(shelves, Mapping)
        or not SHELF_IDS.issuperset(shelves)
        or not {type(v) for v in shelves.values()} <= {str}
    ):
        raise _bad_snapshot(snapshot, "shelves must map shelf ids to item ids")
    return dict(shelves)


class WarehouseEnvironment(Environment):
    """A 500-shelf warehouse for one session (see the module docstring)."""

    def __init__(self, options: Mapping[str, Any], snapshot: Any = None) -> None:
        self.options: WarehouseOptions = parse_options(options)
        self.shelves: dict[str, str] = {}
        self.executed = 0
        self.cursor = 0
        self.dock: list[str] = []
        self.results = ""
        self.target: str | None = None
        self.drift: dict[str, Any] | None = None
        self.episode: Episode | None = None
        if self.options.mode == "episode":
            opts = self.options
            try:
                self.episode = generate(opts.seed, opts.horizon, opts.scenario, opts.drift_at)
            except DriftDoesNotFit as exc:
                raise InvalidInput(str(exc)) from None
        if snapshot is None:
            if self.episode is not None:
                self._deliver()
            return
        self._restore(snapshot)

    # -- snapshot ---------------------------------------------------------------------
    def _restore(self, snapshot: Any) -> None:
        if not isinstance(snapshot, Mapping) or snapshot.get("mode") != self.options.mode:
            raise _bad_snapshot(snapshot, f"expected a {self.options.mode}-mode snapshot")
        self.shelves = _shelves(snapshot)
        if self.episode is None:
            executed = snapshot.get("executed")
            if type(executed) is not int or executed < 0:
                raise _bad_snapshot(snapshot, "executed must be a count")
            self.executed = executed
            return
        cursor, dock, results = (
            snapshot.get("cursor"),
            snapshot.get("dock"),
            snapshot.get("results"),
        )
        if type(cursor) is not int or not 0 <= cursor <= self.options.horizon:
            raise _bad_snapshot(snapshot, "cursor must be an event index")
        if not isinstance(dock, list) or not all(isinstance(i, str) for i in dock):
            raise _bad_snapshot(snapshot, "dock must be a list of item ids")
        if not isinstance(results, str) or len(results) != cursor:
            raise _bad_snapshot(snapshot, "results must hold one mark per handled event")
        target, drift = snapshot.get("target"), snapshot.get("drift")
        if target is not None and not (isinstance(target, str) and is_shelf(target)):
            raise _bad_snapshot(snapshot, "target must be a shelf id or null")
        if drift is not None and not isinstance(drift, Mapping):
            raise _bad_snapshot(snapshot, "drift must be an object or null")
        self.cursor, self.dock, self.results, self.target = cursor, list(dock), results, target
        self.drift = None if drift is None else dict(drift)

    def snapshot(self) -> dict[str, Any]:
        if self.episode is None:
            return {"mode": "command", "executed": self.executed, "shelves": dict(self.shelves)}
        return {
            "mode": "episode",
            "horizon": self.options.horizon,
            "cursor": self.cursor,
            "shelves": dict(self.shelves),
            "dock": list(self.dock),
            "results": self.results,
            "target": self.target,
            "drift": None if self.drift is None else dict(self.drift),
            "drift_plan": self._plan(),
        }

    def _plan(self) -> dict[str, Any] | None:
        plan = self.episode.drift if self.episode is not None else None
        if plan is None:
            return None
        return {"scenario": plan.scenario, "at": plan.at, "follow_up": plan.follow_up}

    def score(self) -> dict[str, Any]:
        """The episode's score so far (episode mode)."""
        return score_summary(self.snapshot())

    # -- episode delivery -----------------------------------------------------------
    def _deliver(self) -> None:
        """Make event ``cursor`` pending: drift first, then the event's arrival and target."""
        assert self.episode is not None
        if self.cursor >= len(self.episode.events):
            self.target = None
            return
        plan = self.episode.drift
        if plan is not None and self.cursor == drift_step(plan):
            self.drift = apply_drift(plan, self.shelves)
        event = self.episode.events[self.cursor]
        self.target = None
        if event.kind == "receive":
            self.dock.append(event.item)
        elif event.kind == "maintenance":
            live = next((s for s, held in self.shelves.items() if held == event.item), None)
            self.target = live or event.shelf

    def _alert_line(self) -> list[str]:
        """The drift's corrective alert, on the event after the drift (none for canceled-order)."""
        assert self.episode is not None
        plan = self.episode.drift
        if plan is not None and self.drift is not None and self.cursor == plan.at + 1:
            alert = alert_text(self.drift)
            if alert:
                return [alert]
        return []

    def _pending_text(self, notes: tuple[str, ...] = ()) -> str:
        """The pending event, after its alert and then ``notes`` (what happened since, in order)."""
        assert self.episode is not None
        lines = [*self._alert_line(), *notes]
        lines.append(event_text(self.episode.events[self.cursor], self.target))
        return "\n".join(lines)

    def _noise(self, position: str) -> str:
        return noise_suffix(self.options.noise_seed, position, self.options.noise)

    def initial_observation(self) -> str | None:
        if self.episode is None or self.cursor >= self.options.horizon:
            return None
        return self._pending_text() + self._noise(str(self.cursor))

    # -- execution --------------------------------------------------------------------
    def execute(self, action: Any, state: Mapping[str, Any]) -> ActionResult:
        if self.episode is None:
            return self._command(action)
        return self._episode_step(action)

    def _command(self, action: Any) -> ActionResult:
        step = self.executed + 1
        prefix = f"[WAREHOUSE · step {step}]"
        parsed = parse_command(raw_action(action), COMMAND_VERBS)
        outcome = (
            parsed
            if isinstance(parsed, Outcome)
            else apply_command(self.shelves, parsed, paper_wording=False)
        )
        rejected = outcome.status == "rejected"
        text = f"{prefix} {outcome.text}" + self._noise(f"c{step}{'r' if rejected else ''}")
        if rejected:
            return ActionResult("rejected", text, _FAILED)
        self.executed = step
        return ActionResult(outcome.status, text)

    def _episode_step(self, action: Any) -> ActionResult:
        assert self.episode is not None
        horizon = self.options.horizon
        if self.cursor >= horizon:
            return ActionResult("rejected", f"The episode is over ({horizon} events).", _FAILED)
        parsed = parse_command(raw_action(action), EPISODE_VERBS)
        outcome = (
            parsed
            if isinstance(parsed, Outcome)
            else apply_command(self.shelves, parsed, paper_wording=True, dock=self.dock)
        )
        if outcome.status == "rejected":
            text = f"{outcome.text}\n{self._pending_text()}" + self._noise(f"{self.cursor}r")
            return ActionResult("rejected", text, {**_FAILED, "event": self.cursor})
        event = self.episode.events[self.cursor]
        assert outcome.command is not None
        correct = is_correct(event, self.target, outcome.command)
        details = {"event": self.cursor, "correct": correct}
        self.results += "1" if correct else "0"
        text = outcome.text
        staff: tuple[str, ...] = ()
        if event.kind == "receive" and event.item in self.dock:
            staff = (self._put_away(event.item),)
        self.cursor += 1
        self._deliver()
        if self.cursor >= horizon:
            summary = self.score()
            text = "\n".join(
                [
                    text,
                    *staff,
                    f"Episode complete: {horizon} events, {summary['successes']} "
                    f"handled correctly (score {summary['score']:.2f}).",
                ]
            )
            return ActionResult("completed", text, details)
        # an alert reports a drift that happened before the floor staff shelved anything:
        # it comes first, so no note names a shelf the alert then empties
        text = f"{text}\n{self._pending_text(staff)}" + self._noise(str(self.cursor))
        return ActionResult("accepted", text, details)

    def _put_away(self, item: str) -> str:
        """An arrival the agent did not store is shelved by the floor staff (lowest free shelf)."""
        self.dock.remove(item)
        shelf = next(f"shelf_{k}" for k in range(SHELF_COUNT) if f"shelf_{k}" not in self.shelves)
        self.shelves[shelf] = item
        return f"Floor staff stored {item} on {shelf}."
