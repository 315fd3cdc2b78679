"""The light entry-point scanner agrees with importlib.metadata."""

from __future__ import annotations

import sys
from importlib.metadata import entry_points as stdlib_entry_points
from pathlib import Path

from skillstate.entrypoints import entry_points


def as_set(group: str, path: list[str]) -> set[tuple[str, str, str, str]]:
    return {
        (ep.name, ep.value, ep.dist.name.lower().replace("_", "-"), ep.dist.version)
        for ep in entry_points(group, path)
    }


def stdlib_set(group: str, path: list[str]) -> set[tuple[str, str, str, str]]:
    from importlib.metadata import distributions

    out = set()
    seen = set()
    for dist in distributions(path=path):
        key = dist.metadata["Name"].lower().replace("_", "-")
        if key in seen:
            continue
        seen.add(key)
        for ep in dist.entry_points:
            if ep.group == group:
                out.add((ep.name, ep.value, key, dist.version))
    return out


def test_agrees_with_importlib_metadata_on_this_environment() -> None:
    for group in ("skillstate", "console_scripts", "pytest11"):
        assert as_set(group, sys.path) == stdlib_set(group, sys.path), group
    names = {ep.name for ep in stdlib_entry_points(group="skillstate")}
    assert {ep.name for ep in entry_points("skillstate")} == names
    assert {"memory-store", "file-store", "rig", "warehouse"} <= names
    assert not {"merge", "schema", "budgets"} & names  # the core's essentials, not entry points


def test_reads_a_distribution_added_to_the_path(tmp_path: Path) -> None:
    info = tmp_path / "my_plugin-2.0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: my_plugin\nVersion: 2.0.1\n", encoding="utf-8"
    )
    (info / "entry_points.txt").write_text(
        "[console_scripts]\nx = y:z\n\n[skillstate]\n# a comment\nmine = my_plugin.hooks:plugin\n",
        encoding="utf-8",
    )
    (tmp_path / "my_plugin").mkdir()
    (tmp_path / "my_plugin" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "my_plugin" / "hooks.py").write_text(
        "class plugin:\n    answer = 42\n", encoding="utf-8"
    )
    found = entry_points("skillstate", [str(tmp_path)])
    assert [(e.name, e.value, e.dist.name, e.dist.version) for e in found] == [
        ("mine", "my_plugin.hooks:plugin", "my-plugin", "2.0.1")
    ]
    assert as_set("skillstate", [str(tmp_path)]) == stdlib_set("skillstate", [str(tmp_path)])
    sys.path.insert(0, str(tmp_path))
    try:
        assert found[0].load().answer == 42
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("my_plugin.hooks", None)
        sys.modules.pop("my_plugin", None)
