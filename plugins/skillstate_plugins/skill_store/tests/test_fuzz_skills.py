"""Fuzz: the skill store with hostile names, support paths and contents.

Every operation returns a result or a ``SkillError`` (never raises), and a refused one
leaves every byte under the skills roots as it was.
"""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, strategies as st

from .. import SkillError, SkillStore
from .skills_support import FUZZ, hostile_text, skill_text, tree_hash

pytestmark = pytest.mark.fuzz


@pytest.fixture(scope="module")
def store() -> Iterator[SkillStore]:
    root = Path(tempfile.mkdtemp(prefix="skillstate-fuzz-skills-"))
    skills = SkillStore(root / "project", root / "user")
    assert not isinstance(skills.create("pdf", skill_text("pdf")), SkillError)
    yield skills


NAMES = st.one_of(
    st.just("pdf"),  # the existing skill, and a new one: most operations reach the disk
    st.just("new-one"),
    st.sampled_from(["PDF", "a" * 65, "..", "a/b", ""]),
    hostile_text,
)
PATHS = st.one_of(
    st.builds(
        lambda top, name: f"{top}/{name}", st.sampled_from(["references", "assets"]), hostile_text
    ),
    st.sampled_from(
        [
            "references/a.md",
            "assets/x",
            "scripts/../SKILL.md",
            "/etc/passwd",
            "references/",
            "SKILL.md",
        ]
    ),
    hostile_text,
    st.lists(st.sampled_from(["references", "assets", "..", ".", "", "a", "b.md"]), max_size=4).map(
        "/".join
    ),
)
TEXTS = st.one_of(
    hostile_text,
    st.builds(skill_text, st.sampled_from(["pdf", "new-one"]), hostile_text, hostile_text),
    st.sampled_from(
        ["---\nname: pdf\ndescription: >\n  folded\nmetadata:\n  a: b\n---\nbody\n", "---\n---\n"]
    ),
)


@FUZZ
@given(
    operation=st.sampled_from(
        ["create", "edit", "patch", "write_file", "remove_file", "read", "view", "delete"]
    ),
    name=NAMES,
    path=PATHS,
    text=TEXTS,
    other=hostile_text,
)
def test_every_skill_operation_answers_and_a_refusal_changes_nothing(
    store: SkillStore, operation: str, name: str, path: str, text: str, other: str
) -> None:
    root = store.project.parent
    before = tree_hash(root)
    if operation == "create":
        result = store.create(name, text)
    elif operation == "edit":
        result = store.edit(name, text)
    elif operation == "patch":
        result = store.patch(name, other or "x", text, path if other.startswith("r") else None)
    elif operation == "write_file":
        result = store.write_file(name, path, text)
    elif operation == "remove_file":
        result = store.remove_file(name, path)
    elif operation == "read":
        result = store.read(name, path)
    elif operation == "view":
        result = store.view(name)
    else:
        result = store.delete("zz-never" if name == "pdf" else name)
    if isinstance(result, SkillError):
        result.message.encode("utf-8")
        assert tree_hash(root) == before, (operation, result)
