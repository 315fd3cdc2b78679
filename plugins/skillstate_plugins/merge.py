"""The default merge: RFC 7396 JSON Merge Patch (``trylast``, so any plugin can replace it)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from skillstate.markers import hookimpl
from skillstate.merge import merge_patch

__all__ = ["skillstate_merge"]


@hookimpl(trylast=True)
def skillstate_merge(state: Mapping[str, Any], patch: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = merge_patch(state, patch)
    return result
