"""A session started from a stored skill: P is the SKILL.md body, its hash is recorded.

The runtime reaches the store through the ``skillstate_skill_store`` hook, which this
package answers; blocked, the package takes the skill store (and ``skillstate skills``)
away with it.
"""

from __future__ import annotations

import hashlib
import os
import uuid
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate.plugin import InvalidInput, PluginError
from skillstate.plugin.runtime import Runtime

from .. import SkillStore
from .skills_support import err, ok, skill_text, skills_cli


def blocking_this_plugin() -> str:
    """``SKILLSTATE_DISABLE_PLUGINS`` plus this package's entry point (whatever its name)."""
    package = __package__.rsplit(".", 1)[0]
    (name,) = [ep.name for ep in entry_points(group="skillstate") if ep.value == package]
    blocked = os.environ.get("SKILLSTATE_DISABLE_PLUGINS", "")
    return ",".join(part for part in (blocked, name) if part)


def host_with_skills(root: Path, **overrides: Any) -> Any:
    url = f"memory:skills-{uuid.uuid4().hex}"
    return make_host(url, skills_path=str(root), user_skills_path="", **overrides)


@pytest.fixture
def rt() -> Iterator[Runtime]:
    runtime = Runtime(f"memory:skills-{uuid.uuid4().hex}")
    yield runtime
    runtime.close()


def test_session_from_a_stored_skill(rt: Runtime, tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "skills", use_yaml=False)
    text = skill_text(
        "triage", "Triage tickets", "Sort the tickets.\n", skillstate_environment="mock"
    )
    ok(store.create("triage", text))
    rt.initialize_from_skill_store("s1", "triage", {"count": 0}, skill_store=store)
    record = rt.store.get("s1")
    assert record.spec == "Sort the tickets.\n"  # P is the body, frontmatter left out
    assert record.environment is not None and record.environment["name"] == "mock"
    provenance = record.meta["skill_store"]
    assert provenance["name"] == "triage" and provenance["source"] == "project"
    assert provenance["sha256"] == hashlib.sha256(text.encode()).hexdigest()
    assert rt.get_session("s1")["skill_spec"] == "Sort the tickets.\n"
    assert (
        rt.get_session("s1")["metadata"]["skillSource"] == provenance
    )  # readers see where P came from
    # Editing the skill changes no existing session; a new one records the new hash.
    ok(store.edit("triage", "Sort them faster.\n"))
    assert rt.store.get("s1").spec == "Sort the tickets.\n"
    rt.initialize_from_skill_store("s2", "triage", skill_store=store)
    second = rt.store.get("s2")
    assert second.spec == "Sort them faster.\n"
    assert second.meta["skill_store"]["sha256"] != provenance["sha256"]


def test_frontmatter_names_the_skill_definition(rt: Runtime, tmp_path: Path) -> None:
    if "rig-task" not in rt.host.skills.names():
        pytest.skip("the bundled rig plugin (skill rig-task) is not installed")
    store = SkillStore(tmp_path / "skills", use_yaml=False)
    ok(
        store.create(
            "rig", skill_text("rig", "Rig task", "Do the task.\n", skillstate_skill="rig-task")
        )
    )
    rt.initialize_from_skill_store("r1", "rig", skill_store=store)
    record = rt.store.get("r1")
    assert record.skill == "rig-task" and record.meta["adhoc_skill"] is False


def test_missing_or_broken_skill_is_refused_and_creates_nothing(
    rt: Runtime, tmp_path: Path
) -> None:
    store = SkillStore(tmp_path / "skills", use_yaml=False)
    with pytest.raises(InvalidInput, match=r"Skill 'ghost' not found\."):
        rt.initialize_from_skill_store("g1", "ghost", skill_store=store)
    (store.project / "bad").mkdir(parents=True)
    (store.project / "bad" / "SKILL.md").write_text("no frontmatter\n")
    with pytest.raises(InvalidInput, match="has no frontmatter"):
        rt.initialize_from_skill_store("g2", "bad", skill_store=store)
    assert err(store.view("bad")).code == "broken"
    assert [s.id for s in rt.store.list()] == []


def test_the_host_s_skill_store_is_this_package_s(tmp_path: Path) -> None:
    host = host_with_skills(tmp_path / "skills")
    store = host.skill_store()
    assert isinstance(store, SkillStore) and store.project == tmp_path / "skills"
    assert store.user is None and host.skill_store() is store  # asked once per host
    ok(store.create("triage", skill_text("triage", "Triage", "Sort the tickets.\n")))
    runtime = Runtime(host=host)
    runtime.initialize_from_skill_store("s1", "triage")  # no skill_store=: the host's
    assert runtime.store.get("s1").spec == "Sort the tickets.\n"
    assert runtime.store.get("s1").meta["skill_store"]["path"] == str(store.project / "triage")
    host.close()


def test_blocking_the_plugin_takes_the_skill_store_away(tmp_path: Path) -> None:
    ok(SkillStore(tmp_path / "skills").create("triage", skill_text("triage")))
    host = host_with_skills(tmp_path / "skills", disable_plugins=blocking_this_plugin().split(","))
    runtime = Runtime(host=host)
    with pytest.raises(PluginError) as raised:
        runtime.initialize_from_skill_store("s1", "triage")
    assert str(raised.value) == (
        "no skill store: no plugin provides one "
        "(is the 'skill-store' plugin blocked or not installed?)"
    )
    assert [s.id for s in runtime.store.list()] == []
    host.close()
    out = skills_cli(tmp_path, "list", SKILLSTATE_DISABLE_PLUGINS=blocking_this_plugin())
    assert out.returncode == 2 and "invalid choice: 'skills'" in out.stderr, out.stderr
    assert "Traceback" not in out.stderr
