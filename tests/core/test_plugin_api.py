"""The plugin API is the one door: plugins import only ``skillstate.plugin…``, the core names none.

- every bundled plugin and every example package imports from skillstate only
  ``skillstate.plugin`` (and its sub-modules); their tests may also import
  ``skillstate_testing``;
- nothing under ``skillstate/`` names ``skillstate_plugins``: the core finds its
  plugins through entry points only;
- every name ``skillstate.plugin`` and its sub-modules export has a docstring, and each
  of the three modules has a tutorial-sized one of its own.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from support import ROOT

PLUGINS = ROOT / "plugins" / "skillstate_plugins"
EXAMPLES = ROOT / "docs" / "examples"


def _python_files(*roots: Path) -> list[Path]:
    return sorted(p for root in roots for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def _is_test(path: Path) -> bool:
    return "tests" in path.parts


def _skillstate_imports(path: Path) -> list[tuple[int, str]]:
    """``(line, module)`` of every import of ``skillstate`` or one of its sub-modules."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        else:
            continue
        for name in names:
            if name == "skillstate" or name.startswith("skillstate."):
                found.append((node.lineno, name))
    return found


def _allowed(module: str, test: bool) -> bool:
    if module == "skillstate.plugin" or module.startswith("skillstate.plugin."):
        return True
    return test and (module == "skillstate_testing" or module.startswith("skillstate_testing."))


@pytest.mark.parametrize(
    "root",
    [
        PLUGINS,
        ROOT / "plugins" / "skillstate-repo",
        ROOT / "plugins" / "skillstate-redis",
        EXAMPLES,
        ROOT / "tests" / "fixtures",
    ],
    ids=lambda p: p.name,
)
def test_plugins_and_examples_import_only_the_plugin_api(root: Path) -> None:
    files = _python_files(root)
    assert len(files) >= 2  # the scan itself found something
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path in files
        for line, module in _skillstate_imports(path)
        if not _allowed(module, _is_test(path))
    ]
    assert not bad, "imports outside skillstate.plugin:\n" + "\n".join(bad)


def test_the_scan_catches_a_forbidden_import(tmp_path: Path) -> None:
    planted = tmp_path / "plugin.py"
    planted.write_text(
        "from skillstate.records import Problem\nimport skillstate.host\n"
        "from skillstate.plugin import hookimpl\n",
        encoding="utf-8",
    )
    modules = [m for _, m in _skillstate_imports(planted) if not _allowed(m, False)]
    assert modules == ["skillstate.records", "skillstate.host"]


BENCH_API = "skillstate_plugins.bench"
"""The one absolute import a plugin may make: the benchmark harness's author API (the
package itself, never its modules), which benchmark plugins import as pytest plugins
import xdist's. The bench package itself imports its own modules relatively."""


def _plugin_import_allowed(module: str, path: Path) -> bool:
    if not module.startswith("skillstate_plugins"):
        return True
    return module == BENCH_API and "bench" != path.relative_to(PLUGINS).parts[0]


def test_plugin_packages_import_their_own_modules_relatively() -> None:
    """So a package can be copied out under another name and still import (see test_liftable)."""
    bad = []
    outside = [ROOT / "plugins" / "skillstate-repo", ROOT / "plugins" / "skillstate-redis"]
    for path in [*_python_files(PLUGINS), *(p for d in outside for p in _python_files(d))]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level == 0:
                modules = [node.module or ""]
            elif isinstance(node, ast.Import):
                modules = [a.name for a in node.names]
            else:
                continue
            inside = path if path.is_relative_to(PLUGINS) else PLUGINS / "repo" / path.name
            if not all(_plugin_import_allowed(m, inside) for m in modules):
                bad.append(f"{path.relative_to(ROOT)}:{node.lineno}: {', '.join(modules)}")
    assert not bad, "absolute imports of skillstate_plugins:\n" + "\n".join(bad)


def test_only_the_bench_author_api_may_be_imported_absolutely() -> None:
    here = PLUGINS / "warehouse" / "x.py"
    assert _plugin_import_allowed("skillstate_plugins.bench", here)
    assert not _plugin_import_allowed("skillstate_plugins.bench.runner", here)
    assert not _plugin_import_allowed("skillstate_plugins.mcp", here)
    assert not _plugin_import_allowed("skillstate_plugins.bench", PLUGINS / "bench" / "x.py")


def _bundled_names() -> set[str]:
    """The bundled plugins' entry-point names, skills and environments: what the core must not name."""
    import tomllib

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    names = set(project["project"]["entry-points"]["skillstate"])
    from skillstate_testing import make_host

    host = make_host()
    names |= set(host.skills.names()) | set(host.environments.names())
    return names | {"nextAction"}


def _code_strings(path: Path) -> list[tuple[int, str]]:
    """String constants in code, not in docstrings (a docstring may give an example)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant):
                docstrings.add(id(body[0].value))
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str)
        if id(node) not in docstrings
    ]


def test_the_core_names_no_plugin() -> None:
    files = _python_files(ROOT / "skillstate")
    assert len(files) > 40
    naming = [
        str(path.relative_to(ROOT))
        for path in files
        if "skillstate_plugins" in path.read_text(encoding="utf-8")
    ]
    assert naming == []
    bundled = _bundled_names()
    assert {"rig", "mock", "warehouse", "rig-task", "file-store"} <= bundled
    in_code = [
        f"{path.relative_to(ROOT)}:{line}: {text!r}"
        for path in files
        for line, text in _code_strings(path)
        if text in bundled
    ]
    assert in_code == [], "the core names a bundled plugin's thing:\n" + "\n".join(in_code)


def test_every_plugin_api_name_is_documented() -> None:
    import skillstate_plugins.bench

    import skillstate.plugin
    import skillstate.plugin.cli
    import skillstate.plugin.runtime

    modules = (
        skillstate.plugin,
        skillstate_plugins.bench,
        skillstate.plugin.cli,
        skillstate.plugin.runtime,
    )
    for module in modules:
        doc = module.__doc__ or ""
        assert len(doc) > 300, module.__name__
        for name in module.__all__:
            value = getattr(module, name)
            documented = bool(getattr(value, "__doc__", None)) or name.isupper()
            assert documented, f"{module.__name__}.{name} has no docstring"
