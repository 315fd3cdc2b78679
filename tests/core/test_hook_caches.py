"""A plugin registered or unregistered mid-run applies from the next transition on.

The host keeps no answer between hook calls (a budget, whether anyone observes
commits): each transition asks the plugins registered at that moment. Each test
changes the plugins in the middle of a run and checks that the next transition sees
the change.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate import (
    Budget,
    Change,
    FieldSpec,
    SkillDefinition,
    create_run,
    hookimpl,
    hookspec,
    transition,
)

NOTES = SkillDefinition(
    name="notes", fields={"phase": FieldSpec("string"), "title": FieldSpec("string")}
)


@pytest.fixture
def host() -> Iterator[Any]:
    h = make_host("memory:")
    assert create_run(h, h.open_store(), NOTES, "n", {}).accepted
    yield h
    h.close()


def _patch(host: Any, title: str) -> Any:
    return transition(host, host.open_store(), "n", Change(patch={"title": title}), skill=NOTES)


class Tight:
    @hookimpl
    def skillstate_budget(self) -> Budget:
        return Budget(string_chars=3)


def test_the_budget_is_asked_at_each_transition_and_a_new_plugin_answers_at_once(host: Any) -> None:
    calls: list[str] = []

    class Counting:
        @hookimpl
        def skillstate_budget(self, skill: Any) -> None:
            calls.append(skill.name)

    host.pm.register_local(Counting(), "counting")
    assert _patch(host, "a").accepted
    assert _patch(host, "b").accepted
    assert calls == ["notes", "notes"]  # asked at each transition
    host.pm.register_local(Tight(), "tight")  # mid-run: the next transition must see it
    refused = _patch(host, "long title")
    assert [p.code for p in refused.problems] == ["budget"]
    assert calls == ["notes", "notes"]  # tight answered first (registered last): counting not asked


def test_an_unregistered_budget_plugin_stops_applying_at_once(host: Any) -> None:
    tight = Tight()
    host.pm.register_local(tight, "tight")
    assert not _patch(host, "long title").accepted
    host.pm.unregister(tight)
    assert _patch(host, "long title").accepted


def test_a_blocked_budget_plugin_stops_applying_at_once(host: Any) -> None:
    host.pm.register_local(Tight(), "tight")
    assert not _patch(host, "long title").accepted
    host.pm.set_blocked("tight")
    assert _patch(host, "long title").accepted


def test_a_skill_built_anew_is_asked_for_its_own_budget(host: Any) -> None:
    class PerSkill:
        @hookimpl
        def skillstate_budget(self, skill: Any) -> Budget | None:
            return Budget(string_chars=3) if skill.description == "tight" else None

    host.pm.register_local(PerSkill(), "per-skill")
    store = host.open_store()
    loose = SkillDefinition(name="notes", fields=NOTES.fields, description="loose")
    tight = SkillDefinition(name="notes", fields=NOTES.fields, description="tight")
    assert transition(host, store, "n", Change(patch={"title": "long"}), skill=loose).accepted
    refused = transition(host, store, "n", Change(patch={"title": "longer"}), skill=tight)
    assert [p.code for p in refused.problems] == ["budget"]


def test_an_observer_registered_mid_run_sees_the_next_commit(host: Any) -> None:
    seen: list[int] = []

    class Observer:
        @hookimpl
        def skillstate_after_commit(self, record: Any) -> None:
            seen.append(record.version)

    assert _patch(host, "a").accepted  # nobody observes: the call is skipped
    observer = Observer()
    host.pm.register_local(observer, "observer")
    assert _patch(host, "b").accepted
    assert seen == [3]
    host.pm.unregister(observer)
    assert _patch(host, "c").accepted
    assert seen == [3]


def test_a_monitor_sees_the_after_commit_call_even_with_no_observer(host: Any) -> None:
    seen: list[str] = []
    assert _patch(host, "a").accepted
    undo = host.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(name), lambda *args: None
    )
    try:
        assert _patch(host, "b").accepted
    finally:
        undo()
    assert "skillstate_after_commit" in seen
    assert "skillstate_budget" in seen  # a new monitor sees the budget asked again
    undo()  # a second undo changes nothing
    seen.clear()
    assert _patch(host, "c").accepted
    assert seen == []


def test_tracing_shows_the_after_commit_call_with_no_implementation(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from skillstate.tracing import enable_tracing

    host = make_host("memory:")
    assert create_run(host, host.open_store(), NOTES, "n", {}).accepted
    undo = enable_tracing(host.pm, __import__("sys").stderr.write)
    try:
        assert _patch(host, "a").accepted
    finally:
        undo()
    err = capsys.readouterr().err
    assert (
        "skillstate_after_commit(record=<RunRecord n>, entry=<JournalEntry>) → (no implementation)"
        in err
    )


def test_the_plugin_name_is_set_for_registries_only(host: Any) -> None:
    from skillstate.isolation import CURRENT_PLUGIN

    seen: dict[str, str | None] = {}

    class Both:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            seen["register"] = CURRENT_PLUGIN.get()
            register(SkillDefinition(name="both-skill"))

        @hookimpl
        def skillstate_guards(self) -> None:
            seen["guards"] = CURRENT_PLUGIN.get()

    host.pm.register_local(Both(), "both")
    assert host.skills.owner("both-skill") == "both"  # the registry knows who registered it
    assert _patch(host, "a").accepted
    assert seen == {"register": "both", "guards": None}


def test_a_monitor_brought_back_by_an_out_of_order_undo_sees_after_commit(host: Any) -> None:
    """pluggy's undo restores the executor its monitor found: undoing the first of two
    monitors drops both, and the second's undo then brings the first back. That monitor
    is in place (pluggy calls it), so it must see the after-commit call too."""
    first: list[str] = []
    undo_first = host.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: first.append(name), lambda *args: None
    )
    undo_second = host.pm.add_hookcall_monitoring(lambda *args: None, lambda *args: None)
    undo_first()
    undo_second()
    try:
        assert _patch(host, "a").accepted
        assert "skillstate_merge" in first  # pluggy monitors again with the first
        assert "skillstate_after_commit" in first
    finally:
        undo_first()
    first.clear()
    assert _patch(host, "b").accepted
    assert first == []


class Ready:
    @hookspec(historic=True)
    def skillstate_addon_ready(self, host: Any) -> None:
        """Told once to every plugin, however late it registers (a historic hook)."""


def test_an_observer_whose_plugin_commits_while_it_registers_sees_the_next_commits(
    host: Any,
) -> None:
    """pluggy calls a historic hook's new implementation inside ``register``, before the
    plugin's later implementations are added: what the host keeps from a commit made
    there must not outlive the registration."""
    seen: list[int] = []

    class Late:
        @hookimpl
        def skillstate_addon_ready(self, host: Any) -> None:
            assert _patch(host, "while registering").accepted  # not observed yet

        @hookimpl
        def skillstate_after_commit(self, record: Any) -> None:
            seen.append(record.version)

    host.pm.add_hookspecs(Ready)
    host.pm.hook.skillstate_addon_ready.call_historic(kwargs={"host": host})
    host.pm.register_local(Late(), "late")
    assert _patch(host, "after").accepted
    assert seen == [3]
