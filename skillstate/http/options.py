"""The options every serving command shares: ``--host --port --allowed-host --token
--token-file --allow-no-token`` (``skillstate ui``, ``skillstate mcp --http``).

One definition, so the two servers cannot drift in how an address, a port or a
token is given; each command passes its own defaults and help texts.

A token file (:func:`read_token_file`) holds the token alone: the whole file, with
the whitespace around it (a final newline) stripped. An empty file, a token with a
space or line break inside, a file over 64 KiB, an unreadable or non-UTF-8 file is
refused with one line, the same for both commands (exit 2).
"""

from __future__ import annotations

import argparse
import contextlib
import ipaddress
import os
import signal
from collections.abc import Iterator

from skillstate.errors import SkillstateError

__all__ = [
    "TOKEN_FILE_HELP",
    "TokenFileError",
    "add_serve_options",
    "is_loopback",
    "port",
    "read_token_file",
    "sigint_heard",
    "unsendable_token",
]

TOKEN_FILE_LIMIT = 64 * 1024
TOKEN_FILE_HELP = "the whole file, whitespace around it stripped"
"""How a token file is read, for each command's ``--token-file`` help text."""


class TokenFileError(SkillstateError):
    """``--token-file FILE`` cannot be used: unreadable, empty, not one token (exit 2)."""

    kind = "usage"


def read_token_file(path: str) -> str:
    """The token in ``path``: the whole file, the whitespace around it stripped.

    Raises :class:`TokenFileError` (one line naming the file by its base name, so a
    directory is not shown) when the file cannot be read, is not UTF-8, is over
    64 KiB, is empty or blank, or its token holds whitespace (a second line, a space):
    a file meant to hold a token and holding something else is refused, never half-used.
    """
    if not path:  # what --token-file "$FILE" becomes when the variable is unset
        raise TokenFileError(
            '--token-file is empty (is the variable in --token-file "$FILE" unset?)'
        )
    name = f"--token-file {os.path.basename(path) or path}"
    try:
        with open(path, encoding="utf-8-sig") as handle:  # a byte-order mark is dropped
            text = handle.read(TOKEN_FILE_LIMIT + 1)
    except OSError as exc:
        raise TokenFileError(
            f"{name}: cannot read it ({exc.strerror or type(exc).__name__})"
        ) from None
    except UnicodeDecodeError:
        raise TokenFileError(f"{name}: not UTF-8 text") from None
    if len(text) > TOKEN_FILE_LIMIT:
        raise TokenFileError(f"{name}: over 64 KiB; it must hold the token alone")
    token = text.strip()
    if not token:
        raise TokenFileError(f"{name} is empty; write the token into it")
    if any(character.isspace() for character in token):
        raise TokenFileError(
            f"{name}: the token holds whitespace or a line break; the file must hold the "
            "token alone (one word; whitespace around it is ignored)"
        )
    return token


def unsendable_token(token: str) -> str | None:
    """Why no client could send ``token`` in an ``Authorization`` header, or ``None``."""
    if any(ord(character) < 32 or ord(character) == 127 for character in token):
        return "the token holds a line break or a control character, which a client cannot send"
    return None


def is_loopback(host: str) -> bool:
    """Whether ``host`` is a loopback address or ``localhost`` (reachable from this machine only)."""
    name = host.strip("[]").lower()
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def port(text: str) -> int:
    """An argparse type: a port number, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"a port is 0-65535 (0 = any free port), got {value}")
    return value


def add_serve_options(
    parser: argparse.ArgumentParser,
    *,
    port_default: int | None,
    host_help: str,
    port_help: str,
    token_help: str,
    token_file_help: str,
    allow_no_token_help: str,
    exclusive_token: bool = False,
) -> None:
    """Add the address and token options; ``exclusive_token`` lets argparse refuse
    ``--token`` with ``--token-file`` (otherwise the command checks it)."""
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--port", type=port, default=port_default, help=port_help)
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name (and its Origins); repeatable",
    )
    token: argparse._ActionsContainer = (
        parser.add_mutually_exclusive_group() if exclusive_token else parser
    )
    token.add_argument("--token", default=None, help=token_help)
    token.add_argument("--token-file", metavar="FILE", default=None, help=token_file_help)
    parser.add_argument("--allow-no-token", action="store_true", help=allow_no_token_help)


@contextlib.contextmanager
def sigint_heard() -> Iterator[None]:
    """Around a server (main thread only): SIGINT is a ``KeyboardInterrupt`` (exit 130)
    even when the parent ignored it (``skillstate ui &`` in a script, then ``kill -INT``).

    uvicorn stops on SIGINT whatever its handler was, then raises it again with the
    handler it found: an ignored SIGINT stopped the server and the command exited 0.
    """
    try:
        found = signal.getsignal(signal.SIGINT)
    except ValueError:  # not the main thread
        found = None
    if found is not signal.SIG_IGN:
        yield
        return
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
