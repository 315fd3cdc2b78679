"""``RunCommands``: the run commands of ``skillstate`` for a command line of its own."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from skillstate.cli.reads import do_get, do_journal, do_list, do_show
from skillstate.cli.runs import RunContext, do_init, do_patch, do_rm

__all__ = ["RunCommands"]


class RunCommands:
    """The run commands of ``skillstate`` for a command line of its own (``rig-state``).

    Each method prints and exits exactly as the ``skillstate`` command of its name
    (messages on ``ctx.err`` as ``prog: …``, the state on ``ctx.out``) and returns the
    exit code. ``allowed`` restricts ``init`` and ``patch`` to some skills.
    """

    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx

    def init(
        self, skill: str, run_id: str, seed: str | None, *, allowed: Sequence[str] | None = None
    ) -> int:
        return do_init(self.ctx, skill, run_id, seed, allowed=allowed)

    def patch(
        self,
        run_id: str,
        patch: str | None,
        label: str | None = None,
        force: bool = False,
        *,
        allowed: Sequence[str] | None = None,
    ) -> int:
        return do_patch(self.ctx, run_id, patch, label, force, allowed=allowed)

    def get(self, run_id: str, field: str | None = None) -> int:
        return do_get(self.ctx, run_id, field)

    def show(self, run_id: str) -> int:
        return do_show(self.ctx, run_id)

    def list(self, skill: str | None = None) -> int:
        return do_list(self.ctx, skill)

    def journal(self, run_id: str) -> int:
        return do_journal(self.ctx, run_id)

    def rm(self, run_id: str) -> int:
        return do_rm(self.ctx, run_id)

    def doctor(self, root: Any, *, fix: bool = False) -> int:
        """``doctor``'s findings for the project at ``root`` (``fix``: apply the autofixes)."""
        from pathlib import Path

        from skillstate.cli.doctor_cmd import doctor_report, open_store_problem

        store, problem = open_store_problem(self.ctx)
        return doctor_report(
            self.ctx,
            Path(root).resolve(),
            store,
            fix=fix,
            store_problem=problem,
        )
