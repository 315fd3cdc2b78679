"""What every command shares: the parsed global flags, then config, host and store on demand."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, TextIO

from skillstate.display import one_line
from skillstate.masking import mask_secrets, url_secrets

if TYPE_CHECKING:
    import argparse

    from skillstate.config import Config
    from skillstate.host import Host
    from skillstate.records import Problem
    from skillstate.store import Store

__all__ = ["MAX_REASONS", "CliContext", "HostContext"]

MAX_REASONS = 100
"""A rejection lists at most this many reasons, then how many more there were."""


class HostContext:
    """The host and store of one command, built from :attr:`config` on first use.

    Subclasses say where the configuration comes from (``skillstate``'s flags, or
    ``rig-state``'s ``.rig/state``); both CLIs report errors as ``prog: message``.
    """

    prog: str
    out: TextIO
    err: TextIO

    @property
    def config(self) -> Config:
        raise NotImplementedError

    @cached_property
    def host(self) -> Host:
        from skillstate.host import Host

        return Host.from_config(self.config)

    @cached_property
    def store(self) -> Store:
        return self.host.open_store()

    def existing_store(self) -> Store:
        """:attr:`store`, refused when nothing is at its location yet (``Store.found``).

        What a read uses: a mistyped path says so in one line (``StoreNotFound``, exit 2)
        instead of starting a new, empty store there. Writes that create (``init``,
        ``import``) use :attr:`store`, which creates it on the first write.
        """
        store = self.store
        if not store.found():
            from skillstate.errors import StoreNotFound
            from skillstate.masking import mask_url

            raise StoreNotFound(
                f"no store at {mask_url(getattr(store, 'url', '') or self.config.store)}: "
                "nothing was created (check the URL; a write such as 'skillstate init' "
                "creates the store)"
            )
        return store

    def read_document(self, text: str | None, what: str = "patch") -> Any:
        """The JSON document ``text`` (standard input when ``None`` or ``-``), at most the
        ``max_input_bytes`` setting; else :class:`~skillstate.errors.InvalidInput` (exit 1)
        naming ``what`` (``--state is not valid JSON: …``)."""
        from skillstate.cli.runs import read_document

        return read_document(text, limit=self.host.config.max_input_bytes, what=what)

    def run(self, body: Callable[[], int]) -> int:
        """``body()``'s exit code, every expected failure one ``prog: message`` line.

        Warnings print as one ``prog: warning: …`` line each, a :class:`SkillstateError`
        becomes its message and exit code, a closed pipe exits 141, Ctrl-C 130 — never a
        traceback (``skillstate.cli.exits.run_guarded``). A command line of its own
        (``rig-state``) runs its body this way.
        """
        from skillstate.cli.exits import install_log_lines, install_warning_format, run_guarded

        quiet = bool(getattr(getattr(self, "args", None), "quiet", False))
        install_warning_format(self.prog, quiet=quiet)
        install_log_lines(self.prog)  # a library's logged warnings: one line each too
        return run_guarded(body, self.error)

    def error(self, message: str) -> None:
        """Print ``prog: message`` on stderr, one line: the credentials of every store URL
        the command was given, configured or quotes masked, control characters escaped
        (``\\x1b``), a newline in a value written ``\\n``."""
        self._say(one_line(message))

    def reasons(self, title: str, problems: Sequence[Problem]) -> None:
        """One error: ``prog: title:`` and a ``  - reason`` line per problem, at most
        :data:`MAX_REASONS` (then how many more), and the line of a check that stopped
        early (a problem of code ``more``) last, as every refusal is printed. A reason
        stays on its line (a newline in a value is written ``\\n``)."""
        stopped = [p for p in problems if p.code == "more"]
        listed = [p for p in problems if p.code != "more"]
        lines = "".join(f"\n  - {one_line(p.message)}" for p in listed[:MAX_REASONS])
        if len(listed) > MAX_REASONS:
            lines += f"\n  - … and {len(listed) - MAX_REASONS:,} more"
        lines += "".join(f"\n  - {one_line(p.message)}" for p in stopped[:1])
        self._say(f"{one_line(title)}:{lines}")

    def _say(self, text: str) -> None:
        from skillstate.display import printable
        from skillstate.masking import mask_written_urls

        try:
            text = printable(mask_written_urls(mask_secrets(text, self._secrets())))
            print(f"{self.prog}: {text}", file=self.err)
        except (OSError, ValueError):  # stderr is closed too: nothing left to tell
            pass

    def _secrets(self) -> tuple[str, ...]:
        """Credentials of the store URLs this command knows: configured, or given as any
        argument (``--store``, ``migrate --from``/``--to``, a plugin's own)."""
        args = getattr(self, "args", None)
        values = list(vars(args).values()) if args is not None else []
        values += [v for vs in values if isinstance(vs, list | tuple) for v in vs]  # repeated
        urls = [v for v in values if isinstance(v, str)]
        try:
            urls.append(self.config.store)
        except Exception:  # a broken configuration: its own message is being printed
            pass
        return tuple(secret for url in urls for secret in url_secrets(url))


class CliContext(HostContext):
    """Lazily built configuration, host and store for one command invocation.

    With ``check_commands`` (the default), building the host also builds the registry
    of plugin commands, so a plugin taking a command name the core or another plugin
    uses stops the command with that conflict instead of being shadowed silently.
    Nothing is loaded for a command that never needs the host (``--help``, ``config``).
    """

    def __init__(
        self, args: argparse.Namespace, prog: str = "skillstate", check_commands: bool = True
    ) -> None:
        self.args = args
        self.prog = prog
        self.check_commands = check_commands
        self.out: TextIO = sys.stdout
        self.err: TextIO = sys.stderr

    @cached_property
    def host(self) -> Host:
        from skillstate.host import Host

        host = Host.from_config(self.config)
        if self.check_commands:
            host.commands  # noqa: B018 - raises PluginConflictError naming both
        return host

    @cached_property
    def store(self) -> Store:
        store = self.host.open_store()
        if getattr(self.args, "verbose", False):  # -v: which store, and why that one
            from skillstate.masking import mask_url

            config = self.config
            self._say(  # masked and escaped as every line on stderr
                f"store {mask_url(config.store)} (from {config.source('store')}; "
                f"project directory {config.root})"
            )
        return store

    @cached_property
    def config(self) -> Config:
        from skillstate.config import load_config

        overrides = {}
        if getattr(self.args, "store", None) is not None:  # --store '': refused, not the default
            overrides["store"] = self.args.store
        extra = tuple(getattr(self.args, "disable_plugin", None) or ())
        config = load_config(overrides=overrides)
        if extra:
            config = load_config(
                overrides={**overrides, "disable_plugins": config.disable_plugins + extra}
            )
        return config
