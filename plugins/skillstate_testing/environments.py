"""The environment conformance suite: every guarantee of the environment contract, as tests."""

from __future__ import annotations

from typing import Any

import pytest

from skillstate_testing.helpers import make_host

__all__ = ["EnvironmentConformance"]


class EnvironmentConformance:
    """The environment contract, as tests. Subclass it and provide the fixtures below.

    - ``environment_name`` (required) — the registered name;
    - ``environment_options`` — options for a fresh instance (default ``{}``);
    - ``environment_actions`` (required) — actions a fresh instance accepts, in order;
    - ``rejected_action`` — an action a fresh instance rejects (``None`` skips that check).

    Example::

        class TestMyEnv(EnvironmentConformance):
            @pytest.fixture
            def environment_name(self):
                return "myenv"

            @pytest.fixture
            def environment_actions(self):
                return ["Wait", "Wait"]
    """

    @pytest.fixture
    def environment_name(self) -> str:
        raise NotImplementedError("provide an environment_name fixture (a registered name)")

    @pytest.fixture
    def environment_options(self) -> dict[str, Any]:
        return {}

    @pytest.fixture
    def environment_actions(self) -> list[Any]:
        raise NotImplementedError("provide environment_actions: actions a fresh instance accepts")

    @pytest.fixture
    def rejected_action(self) -> Any:
        return None

    @pytest.fixture
    def env_spec(self, environment_name: str) -> Any:
        host = make_host()
        try:
            return host.environment(environment_name)
        finally:
            host.close()

    def _json_copy(self, value: Any) -> Any:
        import json

        return json.loads(json.dumps(value))

    def _run(self, env: Any, actions: list[Any]) -> list[Any]:
        return [env.execute(action, {}) for action in actions]

    def test_fresh_instance_from_options(self, env_spec: Any, environment_options: Any) -> None:
        from skillstate.plugin import Environment

        env = env_spec.factory(self._json_copy(environment_options), None)
        assert isinstance(env, Environment)
        again = env_spec.factory(self._json_copy(environment_options), None)
        assert env.snapshot() == again.snapshot()  # deterministic from options
        observation = env.initial_observation()
        assert observation is None or isinstance(observation, str)

    def test_execute_returns_action_results(
        self, env_spec: Any, environment_options: Any, environment_actions: list[Any]
    ) -> None:
        from skillstate.plugin import ActionResult

        env = env_spec.factory(self._json_copy(environment_options), None)
        assert environment_actions, "environment_actions must not be empty"
        for result in self._run(env, environment_actions):
            assert isinstance(result, ActionResult)
            assert isinstance(result.observation, str) and result.observation
            assert result.status in ("accepted", "completed"), result

    def test_snapshot_is_json_and_restores_an_equivalent_environment(
        self, env_spec: Any, environment_options: Any, environment_actions: list[Any]
    ) -> None:
        from skillstate.plugin import compact, parse_json

        env = env_spec.factory(self._json_copy(environment_options), None)
        self._run(env, environment_actions[:-1])
        snapshot = env.snapshot()
        assert parse_json(compact(snapshot)) == snapshot  # a JSON document, as written
        assert self._json_copy(snapshot) == snapshot
        restored = env_spec.factory(self._json_copy(environment_options), self._json_copy(snapshot))
        assert restored.snapshot() == snapshot
        last = environment_actions[-1]
        assert restored.execute(last, {}) == env.execute(last, {})
        assert restored.snapshot() == env.snapshot()

    def test_snapshot_is_a_copy_not_a_live_view(
        self, env_spec: Any, environment_options: Any, environment_actions: list[Any]
    ) -> None:
        env = env_spec.factory(self._json_copy(environment_options), None)
        taken = env.snapshot()
        frozen = self._json_copy(taken)
        self._run(env, environment_actions)
        assert taken == frozen

    def test_rejected_action_leaves_the_snapshot_unchanged(
        self, env_spec: Any, environment_options: Any, rejected_action: Any
    ) -> None:
        if rejected_action is None:
            pytest.skip("no rejected_action fixture: this environment rejects nothing")
        before = env_spec.factory(self._json_copy(environment_options), None).snapshot()
        given = self._json_copy(before)
        env = env_spec.factory(self._json_copy(environment_options), given)
        result = env.execute(rejected_action, {})
        assert result.status == "rejected", result
        assert given == before  # the snapshot handed in was not mutated
        # the caller discards the instance: restoring the old snapshot is the old world
        assert env_spec.factory(self._json_copy(environment_options), given).snapshot() == before

    def test_two_sessions_never_share_state(
        self, env_spec: Any, environment_options: Any, environment_actions: list[Any]
    ) -> None:
        first = env_spec.factory(self._json_copy(environment_options), None)
        second = env_spec.factory(self._json_copy(environment_options), None)
        untouched = second.snapshot()
        self._run(first, environment_actions)
        assert second.snapshot() == untouched
        fresh = env_spec.factory(self._json_copy(environment_options), None)
        assert fresh.snapshot() == untouched

    def test_sessions_through_the_runtime_are_isolated(
        self,
        environment_name: str,
        environment_options: Any,
        environment_actions: list[Any],
    ) -> None:
        import uuid

        from skillstate.plugin.runtime import Runtime

        runtime = Runtime(f"memory:envconf-{uuid.uuid4().hex}")
        try:
            for sid in ("env-a", "env-b"):
                runtime.initialize_skill(
                    sid,
                    "conformance",
                    environment=environment_name,
                    environment_options=self._json_copy(environment_options),
                )
            before = runtime.get_session("env-b")["metadata"]["environmentState"]
            for action in environment_actions:
                runtime.execute_step("env-a", "", {}, action)
            assert runtime.get_session("env-b")["metadata"]["environmentState"] == before
        finally:
            runtime.close()
