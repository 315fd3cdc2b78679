"""Every name a package exports lazily resolves, and unknown names fail clearly."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "package",
    [
        "skillstate",
        "skillstate.runtime",
        "skillstate_plugins.mcp",
        "skillstate.plugin",
        "skillstate.plugin.cli",
        "skillstate.plugin.runtime",
        "skillstate_plugins.bench",
    ],
)
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018


LAZY_PACKAGES = [
    "skillstate",
    "skillstate.plugin",
    "skillstate.plugin.cli",
    "skillstate.plugin.runtime",
]


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_the_three_lists_of_a_lazy_package_agree(package: str) -> None:
    """``__all__`` (for readers and type checkers), the ``TYPE_CHECKING`` imports (for mypy)
    and ``_LAZY`` (what is imported at run time) name the same things from the same places."""
    import ast
    import inspect

    module = importlib.import_module(package)
    lazy = dict(module._LAZY)
    assert set(module.__all__) - {"__version__"} == set(lazy), package
    tree = ast.parse(inspect.getsource(module))
    typed: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                if isinstance(stmt, ast.ImportFrom) and stmt.module:
                    for alias in stmt.names:
                        typed[alias.asname or alias.name] = stmt.module
    assert typed == lazy, package
