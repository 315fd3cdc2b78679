"""A session started from a stored skill: P is the SKILL.md body, its hash is recorded."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from skills_support import err, ok, skill_text

from skillstate.runtime import Runtime
from skillstate.runtime.errors import SessionInputError
from skillstate_plugins.skill_store import SkillStore


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
    with pytest.raises(SessionInputError, match=r"Skill 'ghost' not found\."):
        rt.initialize_from_skill_store("g1", "ghost", skill_store=store)
    (store.project / "bad").mkdir(parents=True)
    (store.project / "bad" / "SKILL.md").write_text("no frontmatter\n")
    with pytest.raises(SessionInputError, match="has no frontmatter"):
        rt.initialize_from_skill_store("g2", "bad", skill_store=store)
    assert err(store.view("bad")).code == "broken"
    assert [s.id for s in rt.store.list()] == []
