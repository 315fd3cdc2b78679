"""Hooks are called exactly as pluggy defines: argument subsets, order, wrappers, tracing.

And the isolation skillstate adds on top: one failing implementation never stops the
others; policy hooks fail closed, observers fail open. Each test here failed before
the host called hooks through ``pm.hook`` (it called them impl by impl, with fixed
arguments, in two different orders).
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Generator, Iterator
from typing import Any

import pytest
from skillstate_testing import make_host
from support import clean_env

from skillstate import Change, FieldSpec, Problem, SkillDefinition, create_run, hookimpl, transition
from skillstate.errors import PluginError
from skillstate.host import ObserverWarning

NOTES = SkillDefinition(
    name="notes", fields={"phase": FieldSpec("string"), "title": FieldSpec("string")}
)


@pytest.fixture
def host() -> Iterator[Any]:
    h = make_host("memory:")
    yield h
    h.close()


def _create(host: Any, run_id: str = "n") -> None:
    assert create_run(host, host.open_store(), NOTES, run_id, {}).accepted


def _patch(host: Any, patch: dict[str, Any], run_id: str = "n") -> Any:
    store = host.open_store()
    if not store.exists(run_id):
        _create(host, run_id)
    return transition(host, store, run_id, Change(patch=patch), skill=NOTES)


def test_a_guard_declaring_a_subset_of_the_arguments_is_called_with_just_those(host: Any) -> None:
    class OnlyAfter:
        @hookimpl
        def skillstate_guards(self, after: Any) -> Any:
            if after.get("title") == "forbidden":
                return [Problem("guard", "no forbidden titles", "title", "only-after")]
            return None

    host.pm.register_local(OnlyAfter(), "only-after")
    assert _patch(host, {"title": "fine"}).accepted  # before: every patch was rejected
    refused = _patch(host, {"title": "forbidden"})
    assert [p.message for p in refused.problems] == ["no forbidden titles"]


def test_an_observer_declaring_only_the_record_runs(host: Any) -> None:
    seen: list[int] = []

    class RecordOnly:
        @hookimpl
        def skillstate_after_commit(self, record: Any) -> None:
            seen.append(record.version)

    host.pm.register_local(RecordOnly(), "record-only")
    _patch(host, {"title": "a"})
    assert seen == [1, 2]


def test_a_new_style_wrapper_guard_wraps_the_other_guards(host: Any) -> None:
    class Strict:
        @hookimpl
        def skillstate_guards(self, after: Any) -> Any:
            return [Problem("guard", f"title {after.get('title')} is not shouting", "title", "s")]

    class Forgiving:
        @hookimpl(wrapper=True)
        def skillstate_guards(self, skill: Any) -> Generator[None, Any, Any]:
            results = yield  # every other guard's results
            if skill.name == "notes":
                return [[p for p in r if "shouting" not in p.message] for r in results if r]
            return results

    host.pm.register_local(Strict(), "strict")
    host.pm.register_local(Forgiving(), "forgiving")
    assert _patch(host, {"title": "quiet"}).accepted  # before: the wrapper was a failed guard


def test_a_wrapper_passes_a_failure_through_as_docs_plugins_md_writes_it(host: Any) -> None:
    # the relaxing wrapper of docs/plugins.md, with only skillstate.plugin's names: a
    # failed validator reaches it as a PluginError value, and passing it on fails closed
    from skillstate.plugin import PluginError, Problem as ApiProblem

    class Broken:
        @hookimpl
        def skillstate_validate(self, state: Any) -> Any:
            if state.get("title") == "crash":
                raise ValueError("validator bug")
            return [ApiProblem("schema", "titles are shouted", "title", "broken")]

    seen: list[Any] = []

    class Relaxing:
        @hookimpl(wrapper=True)
        def skillstate_validate(self) -> Generator[None, Any, Any]:
            results = yield
            seen.extend(r for r in results if isinstance(r, PluginError))
            keep = lambda p: "shouted" not in p.message  # noqa: E731
            return [
                r if isinstance(r, PluginError) else [p for p in r or [] if keep(p)]
                for r in results
            ]

    _create(host)
    host.pm.register_local(Broken(), "broken-validator")
    host.pm.register_local(Relaxing(), "relaxing")
    assert _patch(host, {"title": "quiet"}).accepted
    refused = _patch(host, {"title": "crash"})
    assert not refused.accepted and not seen[0].plugin.startswith("relax")
    assert [p.message for p in refused.problems] == [
        "validation plugin 'broken-validator' failed (ValueError: validator bug); "
        "the patch is rejected (fail closed)"
    ]
    assert (
        str(seen[0])
        == "plugin 'broken-validator' failed in skillstate_validate: ValueError: validator bug"
    )


def test_a_wrapper_that_raises_fails_closed_naming_its_plugin(host: Any) -> None:
    class Broken:
        @hookimpl(wrapper=True)
        def skillstate_guards(self) -> Generator[None, Any, Any]:
            yield
            raise RuntimeError("wrapper bug")

    _create(host)
    host.pm.register_local(Broken(), "broken-wrapper")
    refused = _patch(host, {"title": "x"})
    assert [p.message for p in refused.problems] == [
        "guard plugin 'broken-wrapper' failed (RuntimeError: wrapper bug); "
        "the patch is rejected (fail closed)"
    ]


def test_an_old_style_hookwrapper_is_refused_when_registered(host: Any) -> None:
    class Old:
        @hookimpl(hookwrapper=True)
        def skillstate_guards(self) -> Generator[None, Any, None]:
            yield

    with pytest.raises(PluginError) as info:
        host.pm.register_local(Old(), "old-wrapper")
    assert str(info.value) == (
        "plugin 'old-wrapper': skillstate_guards is an old-style hookwrapper (hookwrapper=True); "
        "skillstate hooks take new-style wrappers only: @hookimpl(wrapper=True)"
    )
    assert host.pm.get_plugin("old-wrapper") is None
    assert _patch(host, {"title": "x"}).accepted


def test_guards_and_observers_run_in_one_documented_order(host: Any) -> None:
    """pluggy's: tryfirst, then last registered first, then trylast — for every hook."""
    calls: list[str] = []

    def plugin(name: str, **opts: Any) -> Any:
        class P:
            @hookimpl(**opts)
            def skillstate_guards(self) -> None:
                calls.append(f"guard:{name}")

            @hookimpl(**opts)
            def skillstate_after_commit(self) -> None:
                calls.append(f"observer:{name}")

        return P()

    host.pm.register_local(plugin("first"), "first")
    host.pm.register_local(plugin("second"), "second")
    host.pm.register_local(plugin("last", trylast=True), "last")
    host.pm.register_local(plugin("early", tryfirst=True), "early")
    _patch(host, {"title": "x"})
    order = ["early", "second", "first", "last"]
    once = [f"guard:{n}" for n in order] + [f"observer:{n}" for n in order]
    assert calls == once + once  # the creation, then the patch


def test_installed_plugins_are_called_in_distribution_and_name_order(host: Any) -> None:
    impls = host.pm.hook.skillstate_register_stores.get_hookimpls()
    called = [impl.plugin_name for impl in reversed(impls)]  # pluggy calls the list backwards
    # skillstate's own by name, then skillstate-redis's (a distribution of its own, ./dev installs it)
    assert called == ["file-store", "memory-store", "postgres-store", "sqlite-store", "redis-store"]


def test_every_call_goes_through_pluggy_and_shows_in_its_monitoring(host: Any) -> None:
    seen: list[str] = []
    undo = host.pm.add_hookcall_monitoring(
        lambda name, impls, kwargs: seen.append(name), lambda *args: None
    )
    try:
        _patch(host, {"title": "x"})
        host.doctor(__import__("pathlib").Path("."), None)
    finally:
        undo()
    for hook in ("merge", "validate", "budget", "guards", "after_commit", "doctor"):
        assert f"skillstate_{hook}" in seen, hook


def test_a_failing_guard_fails_closed_and_the_others_still_report(host: Any) -> None:
    class Boom:
        @hookimpl
        def skillstate_guards(self, after: Any) -> Iterator[Problem]:
            yield Problem("guard", "first problem", "", "boom")
            raise ValueError("guard bug")

    class Fine:
        @hookimpl
        def skillstate_guards(self) -> list[Problem]:
            return [Problem("guard", "the other guard's problem", "", "fine")]

    _create(host)
    host.pm.register_local(Fine(), "fine")
    host.pm.register_local(Boom(), "boom")
    refused = _patch(host, {"title": "x"})
    assert [p.message for p in refused.problems] == [
        "guard plugin 'boom' failed (ValueError: guard bug); the patch is rejected (fail closed)",
        "the other guard's problem",
    ]
    assert refused.problems[0].source == "boom"
    assert host.open_store().get("n").version == 1  # nothing written


@pytest.mark.parametrize(
    ("hook", "body", "message"),
    [
        (
            "skillstate_merge",
            "raise KeyError('k')",
            "merge plugin 'bad' failed (KeyError: 'k'); the patch is rejected (fail closed)",
        ),
        (
            "skillstate_merge",
            "return ['not', 'a', 'dict']",
            "merge plugin 'bad' failed (returned a list, expected a dict or None); "
            "the patch is rejected (fail closed)",
        ),
        (
            "skillstate_budget",
            "raise OSError('x')",
            "budget plugin 'bad' failed (OSError: x); the patch is rejected (fail closed)",
        ),
        (
            "skillstate_validate",
            "return ['not a problem']",
            "validation plugin 'bad' failed (returned a str among its results, expected Problem "
            "records); the patch is rejected (fail closed)",
        ),
    ],
)
def test_a_failing_policy_hook_rejects_the_patch_naming_the_plugin(
    hook: str, body: str, message: str
) -> None:
    namespace: dict[str, Any] = {"hookimpl": hookimpl}
    exec(  # a plugin class with one hook implementation whose body is given
        f"class Bad:\n    @hookimpl\n    def {hook}(self):\n        {body}\n", namespace
    )
    host = make_host("memory:")
    store = host.open_store()
    assert create_run(host, store, NOTES, "n", {}).accepted
    host.pm.register_local(namespace["Bad"](), "bad")
    outcome = transition(host, store, "n", Change(patch={"title": "x"}), skill=NOTES)
    assert [p.message for p in outcome.problems] == [message]
    assert store.get("n").version == 1


def test_a_failing_observer_warns_once_and_the_others_still_run(host: Any) -> None:
    seen: list[str] = []

    class Failing:
        @hookimpl
        def skillstate_after_commit(self) -> None:
            raise RuntimeError("observer down")

    class Counting:
        @hookimpl
        def skillstate_after_commit(self, entry: Any) -> None:
            seen.append(entry.step)

    host.pm.register_local(Counting(), "counting")
    host.pm.register_local(Failing(), "failing")  # called first: before, it stopped nothing either
    with pytest.warns(ObserverWarning, match="after-commit observer 'failing' failed"):
        outcome = _patch(host, {"title": "x"})
    assert outcome.accepted and seen == ["init", ""]


def test_trace_switch_prints_every_hook_call_to_stderr(tmp_path: Any) -> None:
    script = textwrap.dedent(
        """
        from skillstate.plugin import Change, create_run, transition
        from skillstate_testing import make_host
        host = make_host("memory:", trace_plugins=True)
        store = host.open_store()
        skill = host.skill("rig-task")
        create_run(host, store, skill, "t", {})
        transition(host, store, "t", Change(patch={"phase": "pr-open"}))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert all(line.startswith("skillstate: trace: ") for line in lines)
    assert any(
        line.startswith("skillstate: trace: skillstate_guards(skill=<SkillDefinition rig-task>, ")
        and line.endswith("→ rig")
        for line in lines
    )
    assert any(
        "skillstate_guards ← [[<Problem guard: phase 'pr-open' requires tests.status = green"
        in line
        for line in lines
    )
    quiet = subprocess.run(
        [sys.executable, "-c", script.replace(", trace_plugins=True", "")],
        capture_output=True,
        text=True,
        env=clean_env(),
        timeout=60,
        cwd=tmp_path,
    )
    assert quiet.stderr == ""
    via_env = subprocess.run(
        [sys.executable, "-m", "skillstate.cli.main", "plugins", "--json"],
        capture_output=True,
        text=True,
        env=clean_env(SKILLSTATE_TRACE_PLUGINS="1"),
        timeout=60,
        cwd=tmp_path,
    )
    assert (
        json.loads(via_env.stdout) and "skillstate: trace: skillstate_register_" in via_env.stderr
    )


# -- wrappers: what they return is checked, and their own mistakes fail by policy ---------
def _wrapper(hook: str, body: str) -> Any:
    """A plugin with one ``wrapper=True`` implementation of ``hook`` running ``body``."""
    namespace: dict[str, Any] = {"hookimpl": hookimpl}
    source = f"class W:\n    @hookimpl(wrapper=True)\n    def {hook}(self):\n"
    source += "".join(f"        {line}\n" for line in body.splitlines())
    exec(source, namespace)
    return namespace["W"]()


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("results = yield", "the wrapper returned a NoneType, expected the list of results"),
        (
            "results = yield\nreturn [7]",
            "the wrapper's results hold a int, expected lists of records",
        ),
        (
            "results = yield\nreturn [['x']]",
            "returned a str among its results, expected Problem records",
        ),
        ("yield\nyield", "the wrapper yielded twice"),
        ("return None\nyield", "the wrapper returned without yielding"),
        ("raise KeyError('early')\nyield", "KeyError: 'early'"),
    ],
)
def test_a_guard_wrapper_that_misbehaves_fails_closed(host: Any, body: str, reason: str) -> None:
    _create(host)
    host.pm.register_local(_wrapper("skillstate_guards", body), "w")
    refused = _patch(host, {"title": "x"})
    assert [p.message for p in refused.problems] == [
        f"guard plugin 'w' failed ({reason}); the patch is rejected (fail closed)"
    ]
    assert host.open_store().get("n").version == 1


@pytest.mark.parametrize(
    ("hook", "body", "message"),
    [
        (
            "skillstate_merge",
            "results = yield\nreturn 'not a dict'",
            "merge plugin 'w' failed (returned a str, expected a dict or None); "
            "the patch is rejected (fail closed)",
        ),
        (
            "skillstate_budget",
            "results = yield\nreturn 'garbage'",
            "budget plugin 'w' failed (returned a str, expected a Budget or None); "
            "the patch is rejected (fail closed)",
        ),
        (
            "skillstate_merge",
            "raise OSError('before the yield')\nyield",
            "merge plugin 'w' failed (OSError: before the yield); the patch is rejected "
            "(fail closed)",
        ),
    ],
)
def test_a_firstresult_wrapper_that_misbehaves_fails_closed(
    hook: str, body: str, message: str
) -> None:
    host = make_host("memory:")
    _create(host)
    host.pm.register_local(_wrapper(hook, body), "w")
    refused = _patch(host, {"title": "x"})
    assert [p.message for p in refused.problems] == [message]


def test_an_observer_or_doctor_wrapper_that_misbehaves_fails_open(host: Any, tmp_path: Any) -> None:
    host.pm.register_local(_wrapper("skillstate_after_commit", "results = yield"), "w1")
    host.pm.register_local(_wrapper("skillstate_doctor", "results = yield\nreturn 5"), "w2")
    with pytest.warns(ObserverWarning, match="after-commit observer 'w1' failed: the wrapper"):
        assert _patch(host, {"title": "x"}).accepted  # the write stands
    findings = host.doctor(tmp_path, None)
    assert [(f.severity, f.source) for f in findings if f.check == "plugin"] == [("error", "w2")]


def test_a_registry_wrapper_that_forgets_to_return_loses_only_its_own_records() -> None:
    from skillstate.host import PluginWarning

    class Mine:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(NOTES)

    host = make_host("memory:")
    host.pm.register_local(Mine(), "mine")
    host.pm.register_local(_wrapper("skillstate_register_skills", "results = yield"), "w")
    with pytest.warns(PluginWarning, match="plugin 'w' failed in skillstate_register_skills"):
        names = host.skills.names()
    assert "notes" in names and "rig-task" in names


def test_a_plugin_that_fails_while_registering_blocks_no_name() -> None:
    """Its records are kept aside until its hook returns: a failure leaves no conflict behind."""
    from skillstate.host import PluginWarning

    class Half:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(NOTES)
            raise RuntimeError("half way")

    class Healthy:
        @hookimpl
        def skillstate_register_skills(self, register: Any) -> None:
            register(NOTES)

    host = make_host("memory:")
    host.pm.register_local(Healthy(), "healthy")
    host.pm.register_local(Half(), "half")
    with pytest.warns(
        PluginWarning,
        match=r"plugin .half. failed in skillstate_register_skills \(RuntimeError: half way\)",
    ):
        assert host.skills.owner("notes") == "healthy"


def test_a_wrapper_whose_error_handler_fails_does_not_hide_the_original_error(host: Any) -> None:
    from skillstate.errors import PluginConflictError

    class Conflicted:
        @hookimpl
        def skillstate_guards(self) -> None:
            raise PluginConflictError("skill 'x' is registered by two plugins")

    handler = "try:\n    results = yield\nexcept Exception:\n    raise RuntimeError('handler bug')"
    _create(host)
    host.pm.register_local(Conflicted(), "conflicted")
    host.pm.register_local(_wrapper("skillstate_guards", handler), "w")
    with pytest.raises(PluginConflictError, match="registered by two plugins"):
        _patch(host, {"title": "x"})
