"""One test per hook: a plugin implementing it changes what the pipeline does."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from skillstate_plugins.memory_store.store import MemoryStore
from skillstate_testing import make_host

from skillstate import (
    ActionResult,
    Budget,
    Change,
    DoctorFinding,
    Environment,
    EnvironmentSpec,
    FieldSpec,
    Problem,
    SkillDefinition,
    StoreSpec,
    create_run,
    hookimpl,
    transition,
)


@pytest.fixture
def host() -> Iterator[Any]:
    h = make_host("memory:")
    yield h
    h.close()


NOTES = SkillDefinition(
    name="notes", fields={"log": FieldSpec("string[]"), "title": FieldSpec("string")}
)


def test_hook_merge(host: Any) -> None:
    class AppendLog:
        @hookimpl
        def skillstate_merge(self, state: Any, patch: Any) -> Any:
            if "append" in patch:
                return {**state, "log": [*state.get("log", []), patch["append"]]}
            return None

    host.pm.register_local(AppendLog(), "append-log")
    store = host.open_store()
    assert create_run(host, store, NOTES, "n", {"log": ["a"]}).accepted
    assert transition(host, store, "n", Change(patch={"append": "b"}), skill=NOTES).record.state[
        "log"
    ] == ["a", "b"]
    # Other patches fall through to the bundled RFC 7396 merge.
    assert transition(host, store, "n", Change(patch={"title": "t"}), skill=NOTES).record.state == {
        "log": ["a", "b"],
        "title": "t",
    }


def test_hook_register_skills(host: Any) -> None:
    class Skills:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(NOTES)

    host.pm.register_local(Skills(), "notes-skill")
    assert host.skill("notes") is NOTES
    store = host.open_store()
    create_run(host, store, host.skill("notes"), "n", {})
    # transition resolves the skill from the record when none is passed
    bad = transition(host, store, "n", Change(patch={"nope": 1}))
    assert [p.message for p in bad.problems] == ["nope: unknown key. Known keys: log, title"]


def test_hook_validate(host: Any) -> None:
    class NoShouting:
        @hookimpl
        def skillstate_validate(
            self, skill: Any, state: Any, schema: Any, budget: Any
        ) -> list[Problem]:
            title = state.get("title", "")
            return (
                [Problem("style", "title: no shouting", "title", "no-shouting")]
                if title.isupper()
                else []
            )

    host.pm.register_local(NoShouting(), "no-shouting")
    store = host.open_store()
    create_run(host, store, NOTES, "n", {})
    outcome = transition(host, store, "n", Change(patch={"title": "HELLO"}), skill=NOTES)
    assert [(p.message, p.source) for p in outcome.problems] == [
        ("title: no shouting", "no-shouting")
    ]


def test_hook_budget(host: Any) -> None:
    class Tight:
        @hookimpl
        def skillstate_budget(self, skill: Any) -> Budget | None:
            return (
                Budget(string_chars=3, array_items=2, document_bytes=100)
                if skill.name == "notes"
                else None
            )

    host.pm.register_local(Tight(), "tight")
    store = host.open_store()
    create_run(host, store, NOTES, "n", {})
    outcome = transition(
        host, store, "n", Change(patch={"title": "long", "log": ["a", "b", "c"]}), skill=NOTES
    )
    assert [p.message for p in outcome.problems] == [
        "title: 4 chars exceeds the 3-char limit — summarize it",
        "log: 3 items exceeds the 2-item limit — keep what the next step needs",
    ]
    big = transition(
        host, store, "n", Change(patch={"log": ["abc", "abc"], "title": "abc"}), skill=NOTES
    )
    assert big.accepted


def test_hook_budget_falls_back_to_configured_budget() -> None:
    host = make_host("memory:", budget=Budget(string_chars=2, array_items=50, document_bytes=8192))
    store = host.open_store()
    outcome = create_run(host, store, NOTES, "n", {"title": "abc"})
    assert [p.message for p in outcome.problems] == [
        "title: 3 chars exceeds the 2-char limit — summarize it"
    ]


def test_hook_guards(host: Any) -> None:
    deploy = SkillDefinition(
        name="deploy",
        fields={"phase": FieldSpec("string"), "approved_by": FieldSpec("string")},
        phases=("draft", "approved", "deployed"),
        terminal_phases=("deployed",),
    )

    class DeployGuards:
        @hookimpl
        def skillstate_guards(self, skill: Any, before: Any, after: Any) -> Iterator[Problem]:
            if (
                skill.name == "deploy"
                and after.get("phase") == "deployed"
                and not after.get("approved_by")
            ):
                yield Problem(
                    "guard", "phase 'deployed' requires approved_by", "approved_by", "deploy-guards"
                )

    host.pm.register_local(DeployGuards(), "deploy-guards")
    store = host.open_store()
    assert create_run(host, store, deploy, "d", {}).accepted
    refused = transition(host, store, "d", Change(patch={"phase": "deployed"}), skill=deploy)
    assert [p.message for p in refused.problems] == ["phase 'deployed' requires approved_by"]
    assert transition(
        host, store, "d", Change(patch={"phase": "deployed", "approved_by": "ana"}), skill=deploy
    ).accepted


def test_hook_register_stores(host: Any) -> None:
    opened: list[str] = []

    def factory(url: str) -> MemoryStore:
        opened.append(url)
        return MemoryStore("memory:")

    class Stores:
        @hookimpl
        def skillstate_register_stores(self, register: Any) -> None:
            register(StoreSpec(scheme="Scratch", factory=factory, description="test"))

    host.pm.register_local(Stores(), "scratch")
    store = host.open_store("scratch:one")
    assert opened == ["scratch:one"] and host.open_store("scratch:one") is store
    with pytest.raises(
        Exception, match=r"scheme 'nope' is not provided by any plugin. Available: .*scratch:"
    ):
        host.open_store("nope:x")


class Counter(Environment):
    def __init__(self, options: Any, snapshot: Any) -> None:
        self.count = snapshot["count"] if snapshot else options.get("start", 0)

    def execute(self, action: Any, state: Any) -> ActionResult:
        if action == "inc":
            self.count += 1
            return ActionResult("accepted", f"count is {self.count}")
        return ActionResult("rejected", f"unknown action {action!r}")

    def snapshot(self) -> Any:
        return {"count": self.count}


def test_hook_register_environments(host: Any) -> None:
    class Envs:
        @hookimpl
        def skillstate_register_environments(self, register: Any) -> None:
            register(EnvironmentSpec(name="counter", factory=Counter))

    host.pm.register_local(Envs(), "counter-env")
    store = host.open_store()
    env = {"name": "counter", "options": {"start": 5}, "state": None}
    create_run(host, store, NOTES, "e", {}, environment=env)
    ok = transition(
        host, store, "e", Change(patch={"title": "x"}, action="inc", advance_step=True), skill=NOTES
    )
    assert ok.accepted and ok.record.observation == "count is 6" and ok.record.step == 1
    bad = transition(
        host, store, "e", Change(patch={"title": "y"}, action="dec", advance_step=True), skill=NOTES
    )
    assert bad.rolled_back and bad.problems[0].message == "unknown action 'dec'"
    record = store.get("e")
    assert (
        record.state["title"] == "x"
        and record.environment["state"] == {"count": 6}
        and record.step == 1
    )
    with pytest.raises(Exception, match=r"unknown environment 'nope'\. Available: counter"):
        host.environment("nope")


def test_hook_doctor(host: Any, tmp_path: Path) -> None:
    class Checks:
        @hookimpl
        def skillstate_doctor(self, root: Path, store: Any) -> Iterator[DoctorFinding]:
            if not (root / ".gitignore").exists():
                yield DoctorFinding(
                    "gitignore", "nit", "no .gitignore", fix="create one", source="checks"
                )

    class Broken:
        @hookimpl
        def skillstate_doctor(self, root: Path, store: Any) -> None:
            raise OSError("disk on fire")

    host.pm.register_local(Checks(), "checks")
    host.pm.register_local(Broken(), "broken")
    findings = host.doctor(tmp_path, None)
    messages = {(f.check, f.severity, f.message) for f in findings}
    assert ("gitignore", "nit", "no .gitignore") in messages
    assert any(
        f.severity == "error" and "broken" in f.message and "disk on fire" in f.message
        for f in findings
    )


def test_hook_after_commit(host: Any) -> None:
    seen: list[tuple[str, int, str]] = []

    class Observer:
        @hookimpl
        def skillstate_after_commit(self, record: Any, entry: Any) -> None:
            seen.append((record.id, record.version, entry.step))

    class Failing:
        @hookimpl
        def skillstate_after_commit(self, record: Any, entry: Any) -> None:
            raise RuntimeError("observer down")

    host.pm.register_local(Observer(), "observer")
    host.pm.register_local(Failing(), "failing")
    store = host.open_store()
    with pytest.warns(UserWarning, match="after-commit observer 'failing' failed"):
        create_run(host, store, NOTES, "n", {})
    with pytest.warns(UserWarning, match="after-commit observer 'failing' failed"):
        outcome = transition(
            host, store, "n", Change(patch={"title": "x"}, label="s1"), skill=NOTES
        )
    assert outcome.accepted and store.get("n").version == 2
    transition(host, store, "n", Change(patch={"bogus": 1}), skill=NOTES)  # rejected: not observed
    assert seen == [("n", 1, "init"), ("n", 2, "s1")]


def test_hook_register_commands(host: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from skillstate.cli.main import build_parser, core_commands
    from skillstate.errors import PluginConflictError
    from skillstate.records import CommandSpec

    ran: list[str] = []

    def configure(parser: argparse.ArgumentParser) -> None:
        parser.add_argument("who")

    def run(ctx: Any) -> int:
        ran.append(ctx.args.who)
        return 7

    hosts: list[Any] = []

    class Hello:
        @hookimpl
        def skillstate_register_commands(self, register: Any, host: Any) -> None:
            hosts.append(host)  # the host whose command line this is
            register(CommandSpec("hello", "say hello", configure, run))

    host.pm.register_local(Hello(), "hello-plugin")
    spec = host.commands.get("hello")
    assert spec is not None and host.commands.owner("hello") == "hello-plugin"
    assert hosts == [host]
    from skillstate.cli.context import CliContext

    args = build_parser([*core_commands(), spec], "hello").parse_args(["hello", "ana"])
    assert args._spec.run(CliContext(args)) == 7 and ran == ["ana"]

    class Clash:
        @hookimpl
        def skillstate_register_commands(self, register: Any) -> None:
            register(CommandSpec("init", "a second init", configure, run))

    other = make_host("memory:")
    other.pm.register_local(Clash(), "clash")
    with pytest.raises(PluginConflictError) as info:
        other.commands  # noqa: B018
    assert str(info.value) == (
        "command 'init' is registered by two plugins: skillstate itself and 'clash'; block one "
        "with SKILLSTATE_DISABLE_PLUGINS=clash, or disable_plugins in skillstate.toml"
    )


def test_the_default_environment_is_configuration_or_what_a_plugin_offers() -> None:
    from skillstate.errors import EnvironmentNotFound, PluginConflictError

    class Offers:
        @hookimpl
        def skillstate_register_environments(self, register: Any) -> None:
            register(EnvironmentSpec(name="counter", factory=Counter, default=True))

    plain = make_host("memory:")
    assert plain.default_environment() == "mock"  # the bundled mock offers itself
    chosen = make_host("memory:", default_environment="warehouse")
    assert chosen.default_environment() == "warehouse"
    both = make_host("memory:")
    both.pm.register_local(Offers(), "offers")
    with pytest.raises(PluginConflictError) as info:
        both.default_environment()
    assert str(info.value).startswith(
        "two plugins offer a default environment: 'counter' of 'offers' and 'mock' of "
        "'mock' (skillstate 0.1.0); set default_environment"
    )
    only_mine = make_host("memory:", disable_plugins=("mock",))
    only_mine.pm.register_local(Offers(), "offers")
    assert only_mine.default_environment() == "counter"
    none = make_host("memory:", load_plugins=("warehouse", "memory-store"))
    assert none.default_environment() == "warehouse"  # the only one left
    empty = make_host("memory:", disable_plugins=("mock", "warehouse", "repo"))
    with pytest.raises(EnvironmentNotFound, match="no environment given and none is the default"):
        empty.default_environment()


def test_hook_addhooks(host: Any) -> None:
    """A plugin adds a registry hook of its own; the host builds its registry by the core's rules."""
    import warnings

    import pluggy

    from skillstate.errors import PluginConflictError

    spec = pluggy.HookspecMarker("skillstate")

    class Specs:
        @spec
        def skillstate_register_scores(self, register: Any) -> None: ...

    class Early:  # registered before the spec exists: the hook is optional to it
        @hookimpl(optionalhook=True)
        def skillstate_register_scores(self, register: Any) -> None:
            register("early")

    class Owner:
        @hookimpl
        def skillstate_addhooks(self, pluginmanager: Any) -> None:
            pluginmanager.add_hookspecs(Specs)

    class Late:
        @hookimpl
        def skillstate_register_scores(self, register: Any) -> None:
            register("late")
            register("early")

    class Broken:
        @hookimpl
        def skillstate_register_scores(self, register: Any) -> None:
            register("broken")
            raise RuntimeError("boom")

    host.pm.register_local(Early(), "early")
    host.pm.register_local(Owner(), "owner")
    host.pm.register_local(Broken(), "broken")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        scores = host.registry("skillstate_register_scores", str, kind="score", key=str)
    assert scores.names() == ["early"] and scores.owner("early") == "early"
    assert host.registry("skillstate_register_scores", str, kind="score") is scores  # once
    assert [str(w.message) for w in caught] == [
        "plugin 'broken' failed in skillstate_register_scores (RuntimeError: boom); "
        "none of its scores are registered"
    ]
    twice = make_host("memory:")
    twice.pm.register_local(Owner(), "owner")
    twice.pm.register_local(Early(), "early")  # after the spec: checked against it at once
    twice.pm.register_local(Late(), "late")
    with pytest.raises(PluginConflictError, match="score 'early' is registered by two plugins"):
        twice.registry("skillstate_register_scores", str, kind="score", key=str)

    class Failing:
        @hookimpl
        def skillstate_addhooks(self, pluginmanager: Any) -> None:
            raise RuntimeError("no specs today")

        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(NOTES)

    from skillstate.errors import PluginError

    with pytest.raises(PluginError) as failed:
        twice.pm.register_local(Failing(), "failing")
    assert str(failed.value) == (
        "plugin 'failing' failed in skillstate_addhooks: RuntimeError: no specs today"
    )
    assert not twice.pm.has_plugin("failing") and twice.skills.get("notes") is None  # none of it
    mine = make_host("memory:")
    mine.pm.register_local(Owner(), "owner")
    mine.pm.register_local(Late(), "late")
    with pytest.raises(PluginConflictError, match="score 'late' is registered by two plugins: "
                       "skillstate itself and 'late'"):  # fmt: skip
        mine.registry("skillstate_register_scores", str, kind="score", key=str, reserved=["late"])
