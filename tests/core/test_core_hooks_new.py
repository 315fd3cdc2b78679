"""The hooks that let plugins host plugins (``skillstate_addhooks``) and provide the skill
store (``skillstate_skill_store``)."""

from __future__ import annotations

from typing import Any

import pytest
from skillstate_testing import make_host

from skillstate import hookimpl, hookspec
from skillstate.errors import PluginError


class _Specs:
    @hookspec
    def skillstate_tickets(self, queue: Any) -> None:
        """A hook of a plugin's own."""


def test_hook_addhooks() -> None:
    host = make_host("memory:")
    seen: list[Any] = []

    class Early:  # registered before the host plugin adds the spec
        @hookimpl
        def skillstate_tickets(self, queue: Any) -> str:
            seen.append(queue)
            return "early"

    class HostPlugin:
        @hookimpl
        def skillstate_addhooks(self, pluginmanager: Any) -> None:
            pluginmanager.add_hookspecs(_Specs)

    host.pm.register(Early(), name="early")
    host.pm.register(HostPlugin(), name="host-plugin")
    assert host.pm.hook.skillstate_tickets(queue="q") == ["early"]
    assert seen == ["q"]
    host.close()


def test_hook_skill_store() -> None:
    host = make_host("memory:")
    mine = object()

    class Skills:
        @hookimpl(tryfirst=True)
        def skillstate_skill_store(self, config: Any) -> Any:
            assert config is host.config
            return mine

    host.pm.register(Skills(), name="my-skills")
    assert host.skill_store() is mine
    host.close()


def test_no_skill_store_is_one_clear_error() -> None:
    host = make_host("memory:", disable_plugins=("skill-store",))
    with pytest.raises(PluginError, match="no skill store: no plugin provides one"):
        host.skill_store()
    host.close()
