"""Every name a package exports lazily resolves, and unknown names fail clearly."""

from __future__ import annotations

import importlib

import pytest


@pytest.mark.parametrize(
    "package",
    [
        "skillstate",
        "skillstate.runtime",
        "skillstate.mcp",
        "skillstate.plugin",
        "skillstate.plugin.cli",
        "skillstate.plugin.runtime",
        "skillstate.plugin.bench",
    ],
)
def test_every_exported_name_resolves(package: str) -> None:
    module = importlib.import_module(package)
    for name in module.__all__:
        assert getattr(module, name) is not None, f"{package}.{name}"
    with pytest.raises(AttributeError, match=f"module '{package}' has no attribute 'no_such_name'"):
        module.no_such_name  # noqa: B018
