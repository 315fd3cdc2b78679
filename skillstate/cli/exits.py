"""Exit codes, clean exits and warning lines, shared by ``skillstate`` and ``rig-state``.

The codes, their names and what each means are :data:`EXIT_CODES` (docs/cli.md, "Exit
codes", is generated from it): 0 ok, 1 rejected, 2 usage, 3 error, 4 conflict, 5 bad
file, 130 interrupted, 141 output closed, 143 terminated.

``rig-state`` keeps rig's own codes where rig defines them (a missing run, an unknown
skill, a bad id, an existing run and a missing journal are 2 there); 3 is for what rig
has no code for. No expected failure prints a traceback: :func:`run_guarded` turns
each into one ``prog: message`` line and its code.

Warnings (a plugin that failed to load, a store skipping a damaged run) are one
``prog: warning: …`` line each, each text once per command
(:func:`install_warning_format`), never Python's ``file:line: Category`` format with
a source line. The Python API leaves warnings to Python's :mod:`warnings` machinery.
"""

from __future__ import annotations

import enum
import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

__all__ = [
    "BAD_FILE",
    "CLOSED",
    "CONFLICT",
    "ERROR",
    "EXIT_CODES",
    "INTERRUPT",
    "OK",
    "REJECTED",
    "TERMINATED",
    "USAGE",
    "ExitCode",
    "code_for",
    "install_log_lines",
    "install_warning_format",
    "run_guarded",
]

OK, REJECTED, USAGE, ERROR = 0, 1, 2, 3
CONFLICT = 4
"""``patch --expected-version N``: the run is not at version N; nothing was written."""
BAD_FILE = 5
"""``import FILE``: not a complete, intact export; nothing was written."""
INTERRUPT = 130
CLOSED = 141
TERMINATED = 143
"""SIGTERM on a server (``ui``, ``mcp --http``): shut down, store closed, 128 + 15."""


class ExitCode(enum.IntEnum):
    """The exit codes of ``skillstate`` and ``rig-state`` (:data:`EXIT_CODES`), by name."""

    OK = OK
    REJECTED = REJECTED
    USAGE = USAGE
    ERROR = ERROR
    CONFLICT = CONFLICT
    BAD_FILE = BAD_FILE
    INTERRUPT = INTERRUPT
    CLOSED = CLOSED
    TERMINATED = TERMINATED


EXIT_CODES: tuple[tuple[int, str, str], ...] = (
    (OK, "ok", "accepted, or success"),
    (
        REJECTED,
        "rejected",
        "a patch, seed or check was refused and nothing was written; also invalid JSON "
        "input, `get --field` on a missing path, `verify` or `doctor` finding a problem",
    ),
    (
        USAGE,
        "usage",
        "the command line is wrong: bad syntax or flags, an invalid run id, an unknown run, "
        "skill, key or store scheme, a run that already exists, a read (`list`, `get`, `show`, "
        "`ui`, ...) on a store that does not exist: a read never creates a store, a write "
        "such as `init` does",
    ),
    (
        ERROR,
        "error",
        "the request was fine but something failed: the store cannot be opened, read or "
        "written (unreachable, disk full, read-only), a plugin or configuration file is "
        "broken, an optional extra is missing (`skillstate mcp` without the `mcp` extra), "
        "the HTTP port is taken (`mcp --http`), the output cannot be encoded",
    ),
    (
        CONFLICT,
        "conflict",
        "`patch --expected-version N`: the run is not at version N; nothing was written",
    ),
    (BAD_FILE, "bad file", "`import FILE`: not a complete, intact export; nothing was written"),
    (
        INTERRUPT,
        "interrupted",
        "Ctrl-C (SIGINT); a server (`ui`, `mcp`, `mcp --http`) first shuts down cleanly and "
        "closes its store",
    ),
    (
        CLOSED,
        "closed",
        "the output was closed early (piped into `head`), as for any command stopped by SIGPIPE; "
        "nothing is printed",
    ),
    (
        TERMINATED,
        "terminated",
        "SIGTERM (`kill PID`) on `ui` or `mcp --http`: the server shuts down as for Ctrl-C, "
        "closes its store (pending syncs flushed) and exits 128 + 15, the code a shell shows "
        "for a process the signal ended; on `bench`, the run stops as for Ctrl-C",
    ),
)
"""``(code, name, meaning)`` of every exit code, for the generated CLI reference."""


def code_for(exc: BaseException) -> int:
    """The exit code of a :class:`~skillstate.errors.SkillstateError` (by its ``kind``)."""
    return USAGE if getattr(exc, "kind", "error") == "usage" else ERROR


def _silence_stdout() -> None:
    """After a closed pipe: point stdout at /dev/null so the interpreter's last flush is quiet."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # no real stdout (tests): nothing to flush
        pass


def _encoding_message(exc: UnicodeEncodeError) -> str:
    stream = getattr(sys.stdout, "encoding", None) or exc.encoding
    character = exc.object[exc.start : exc.start + 1]
    shown = f"U+{ord(character):04X}" if character else "a character"
    if 0xD800 <= ord(character or "a") <= 0xDFFF:
        return f"cannot write the output: it holds a lone surrogate ({shown}), which is not text"
    return (
        f"cannot write the output: the output stream's encoding ({stream}) cannot encode "
        f"{shown}; use a UTF-8 locale or set PYTHONIOENCODING=utf-8"
    )


def run_guarded(body: Callable[[], int], error: Callable[[str], None]) -> int:
    """``body()``'s exit code; an expected failure becomes one ``error(message)`` line and a code.

    ``SkillstateError`` → its message and :func:`code_for`; a closed pipe → silence and
    :data:`CLOSED`; text the output stream cannot encode, or an operating-system error
    (a full disk writing a file, a vanished terminal) → the reason and :data:`ERROR`;
    Ctrl-C → :data:`INTERRUPT`. Standard output is flushed inside the guard, so a pipe
    closed at the very end is caught too. (A server's SIGTERM is its own to turn into
    :data:`TERMINATED`: :func:`skillstate_serving.server.serve` returns it.)
    """
    from skillstate.errors import SkillstateError

    try:
        code = body()
        sys.stdout.flush()
        return code
    except SkillstateError as exc:
        error(str(exc))
        return code_for(exc)
    except BrokenPipeError:
        _silence_stdout()
        return CLOSED
    except UnicodeEncodeError as exc:
        error(_encoding_message(exc))
        return ERROR
    except KeyboardInterrupt:
        return INTERRUPT
    except SystemExit:  # argparse's --help and usage errors: their output is flushed here
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _silence_stdout()
            return CLOSED
        raise
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        error(f"{exc.strerror or exc}{where}")
        return ERROR


_SHOWN: set[str] = set()
"""The warning texts this process printed (each is printed once)."""


def _warning_line(prog: str, text: str) -> None:
    if text in _SHOWN:
        return
    _SHOWN.add(text)
    try:
        from skillstate.display import printable
        from skillstate.masking import mask_written_urls

        print(f"{prog}: warning: {printable(mask_written_urls(text))}", file=sys.stderr)
    except (OSError, ValueError):
        pass


def install_warning_format(prog: str, *, quiet: bool = False) -> None:
    """Show every warning of this process as one ``prog: warning: …`` line, each text once.

    skillstate's own categories (plugin, store, observer warnings) print their message
    alone; any other category is named before it (``prog: warning: ResourceWarning: …``).
    ``quiet`` (``skillstate -q``): no warning is shown.
    """

    def show(message: Any, category: type[Warning], *args: Any, **kwargs: Any) -> None:
        if quiet:
            return
        text = " ".join(str(message).split())
        if not getattr(category, "__module__", "").startswith("skillstate"):
            text = f"{category.__name__}: {text}"
        _warning_line(prog, text)

    warnings.showwarning = show


def install_log_lines(prog: str) -> None:
    """A library's logged warnings (a database driver's retries) as the same one-line form.

    Installed when a command line starts (:meth:`CliContext.run
    <skillstate.cli.context.HostContext.run>`), before any library configures logging
    its own way; a program that configured logging itself keeps its own handlers.
    """
    import logging

    root = logging.getLogger()
    if root.handlers:
        return

    class _LogLine(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            _warning_line(prog, " ".join(record.getMessage().split()))

    root.addHandler(_LogLine(logging.WARNING))
