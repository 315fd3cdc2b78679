"""A session from a stored skill, through the ``skillstate_skill_store`` hook only.

The store here is written from ``docs/skills.md`` ("The skill store contract") alone:
the runtime needs nothing but ``session_spec(name).to_dict()``, so a third party can
replace the bundled skill store, and the core never imports it.
"""

from __future__ import annotations

from typing import Any

import pytest

from skillstate.plugin import InvalidInput, PluginError, hookimpl
from skillstate.plugin.runtime import Runtime


class Envelope:
    def __init__(self, data: dict[str, Any]) -> None:
        self.data = data

    def to_dict(self) -> dict[str, Any]:
        return dict(self.data)


class RegistrySkills:
    """Skills from somewhere else: one skill, ``triage``."""

    def session_spec(self, name: str) -> Envelope:
        if name != "triage":
            return Envelope({"success": False, "error": f"Skill '{name}' not found."})
        return Envelope(
            {
                "success": True,
                "body": "Sort the tickets.\n",
                "skill_definition": None,
                "environment": "mock",
                "provenance": {"name": "triage", "registry": "https://skills.example/triage"},
            }
        )


def test_hook_skill_store(register_plugin: Any, skillstate_host: Any) -> None:
    """A plugin's ``skillstate_skill_store`` answer replaces the bundled skill store."""
    store = RegistrySkills()

    class Plugin:
        @hookimpl
        def skillstate_skill_store(self, config: Any) -> Any:
            return store

    register_plugin(Plugin(), "registry-skills")
    assert skillstate_host.skill_store() is store
    runtime = Runtime(host=skillstate_host)
    runtime.initialize_from_skill_store("s1", "triage", {"count": 0})
    record = runtime.store.get("s1")
    assert record.spec == "Sort the tickets.\n" and record.environment["name"] == "mock"
    assert record.meta["skill_store"] == {
        "name": "triage",
        "registry": "https://skills.example/triage",
    }
    assert runtime.get_session("s1")["metadata"]["skillSource"] == record.meta["skill_store"]
    with pytest.raises(InvalidInput, match=r"^Skill 'ghost' not found\.$"):
        runtime.initialize_from_skill_store("s2", "ghost")
    assert [s.id for s in runtime.store.list()] == ["s1"]


def test_a_store_passed_by_the_caller_needs_no_plugin(skillstate_host: Any) -> None:
    runtime = Runtime(host=skillstate_host)
    runtime.initialize_from_skill_store("s1", "triage", skill_store=RegistrySkills())
    assert runtime.store.get("s1").spec == "Sort the tickets.\n"


def test_a_failing_skill_store_plugin_is_one_error_naming_it(
    register_plugin: Any, skillstate_host: Any
) -> None:
    class Broken:
        @hookimpl
        def skillstate_skill_store(self, config: Any) -> Any:
            raise RuntimeError("registry unreachable")

    register_plugin(Broken(), "broken-skills")
    runtime = Runtime(host=skillstate_host)
    with pytest.raises(PluginError, match=r"^skill store plugin 'broken-skills' failed") as raised:
        runtime.initialize_from_skill_store("s1", "triage")
    assert "registry unreachable" in str(raised.value) and "\n" not in str(raised.value)
    assert list(runtime.store.list()) == []
