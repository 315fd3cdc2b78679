"""Issue 16, class 12: SKILL.md frontmatter reads the same in every install (PyYAML is declared).

Before the fix PyYAML was used only when it happened to be installed: a wheel installed
without it read ``description: >`` as ``>``, and the write path refused a spec-valid
``metadata:`` map.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from .. import SkillStore, parse_frontmatter
from .skills_support import err, ok

FOLDED = """---
name: folded
description: >
  Fill PDF forms. Use when the user
  asks to fill or sign a PDF.
metadata:
  author: someone
  version: "1.0"
---
# Steps
Do it.
"""


def test_pyyaml_is_a_core_dependency_of_the_distribution() -> None:
    requires = importlib.metadata.requires("skillstate") or []
    core = [r for r in requires if "extra ==" not in r]
    assert any(r.lower().startswith("pyyaml") for r in core), core


def test_a_folded_description_and_a_metadata_map_are_written_and_read(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "skills")
    ok(store.create("folded", FOLDED))
    view = store.view("folded")
    assert not hasattr(view, "code"), view
    assert (
        view.description
        == "Fill PDF forms. Use when the user asks to fill or sign a PDF.\n".strip()
    )  # type: ignore[union-attr]
    assert view.frontmatter["metadata"] == {"author": "someone", "version": "1.0"}  # type: ignore[union-attr]
    assert [s.description for s in store.list().skills] == [view.description]  # type: ignore[union-attr]


def test_broken_yaml_still_falls_back_to_the_flat_parser() -> None:
    broken = "---\nname: a\ndescription: use it: when: [x\n---\nbody\n"
    assert parse_frontmatter(broken)[0] == {"name": "a", "description": "use it: when: [x"}


def test_nested_lines_that_are_not_yaml_are_refused_on_write(tmp_path: Path) -> None:
    store = SkillStore(tmp_path / "skills")
    error = err(store.create("a", "---\nname: a\ndescription: d\n  child: x\n---\nbody\n"))
    assert error.message.startswith("Frontmatter line 4 is not a 'key: value' pair (YAML: ")
    assert not (tmp_path / "skills" / "a").exists()
