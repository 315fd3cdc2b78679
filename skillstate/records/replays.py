"""What a replay of a journal answers (:func:`skillstate.journal.replay`).

A module of its own, so that its attrs class is built only when a journal is replayed
(``verify``, ``log``, a store's history): a read or a patch does not build it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["Replay"]


@attrs.frozen
class Replay:
    """What a journal says the run should be: its state, version, status and turn."""

    state: Mapping[str, Any]
    version: int
    status: str | None
    turn: int | None
