"""The options every serving command shares, and the settings they resolve to.

:func:`add_serve_options` adds ``--host --port --allowed-host --token --token-file
--allow-no-token --max-connections --header-timeout`` to a command's parser;
:meth:`ServeSettings.from_args` turns what was given into checked settings. One
definition, so no two servers (``skillstate ui``, ``skillstate mcp --http``) can drift
in how an address, a port, a token or a limit is given, or in the messages that refuse
one; each command names its own default port, token variable and what an open server
would expose.

A token file (:func:`read_token_file`) holds the token alone: the whole file, with
the whitespace around it (a final newline) stripped. An empty file, a token with a
space or line break inside, a token holding a control character (:func:`unsendable_token`),
a file over 64 KiB, an unreadable or non-UTF-8 file is refused with one line, the same
for every command (exit 2).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
from collections.abc import Mapping, Sequence

import attrs

from skillstate.plugin import InvalidInput
from skillstate_serving.guard import allowed_names

__all__ = [
    "DEFAULT_MAX_CONNECTIONS",
    "TOKEN_FILE_HELP",
    "ServeSettings",
    "TokenFileError",
    "add_serve_options",
    "is_loopback",
    "port_number",
    "read_token_file",
    "unsendable_token",
]

DEFAULT_MAX_CONNECTIONS = 64
DEFAULT_HEADER_TIMEOUT = 10.0

TOKEN_FILE_LIMIT = 64 * 1024
TOKEN_FILE_HELP = "the whole file, whitespace around it stripped"
"""How a token file is read, for each command's ``--token-file`` help text."""


class TokenFileError(InvalidInput):
    """``--token-file FILE`` cannot be used: unreadable, empty, not one token (exit 2)."""


def read_token_file(path: str) -> str:
    """The token in ``path``: the whole file, the whitespace around it stripped.

    Raises :class:`TokenFileError` (one line naming the file by its base name, so a
    directory is not shown) when the file cannot be read, is not UTF-8, is over
    64 KiB, is empty or blank, its token holds whitespace (a second line, a space) or a
    control character no client could send (:func:`unsendable_token`): a file meant to
    hold a token and holding something else is refused, never half-used.
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
    if problem := unsendable_token(token):
        raise TokenFileError(f"{name}: {problem}")
    return token


def unsendable_token(token: str) -> str | None:
    """Why no client could send ``token`` in an ``Authorization`` header, or ``None``.

    A control character is refused: C0 (a line break, ESC), DEL and C1 (U+0080-U+009F,
    such as U+009B, which a terminal reads as the start of an escape sequence).
    """
    if any(ord(character) < 32 or 127 <= ord(character) < 160 for character in token):
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


def port_number(text: str) -> int:
    """An argparse type: a port number, 0 (any free port) to 65535."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a port number, got {text!r}") from None
    if not 0 <= value < 65536:
        raise argparse.ArgumentTypeError(f"a port is 0-65535 (0 = any free port), got {value}")
    return value


def _positive(text: str) -> int:
    """An argparse type: a whole number >= 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a whole number >= 1, got {value}")
    return value


def _seconds(text: str) -> float:
    """An argparse type: a number of seconds, more than 0 and at most an hour."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of seconds, got {text!r}") from None
    if not 0 < value <= 3600:
        raise argparse.ArgumentTypeError(f"expected 0 < seconds <= 3600, got {text}")
    return value


@attrs.frozen
class _Defaults:
    """What :func:`add_serve_options` was told, kept in the parsed namespace for
    :meth:`ServeSettings.from_args` (``args.serve_defaults``)."""

    port: int
    port_env: str | None
    token_env: str
    exposes: str


def add_serve_options(
    parser: argparse.ArgumentParser,
    *,
    port: int,
    token_env: str,
    exposes: str,
    port_env: str | None = None,
) -> None:
    """Add the address, token and limit options to ``parser`` (see the module docs).

    ``port`` is the default port (``$port_env`` first, when given and set; a value that
    is not a port is refused by :meth:`ServeSettings.from_args`);
    ``token_env`` the variable the token comes from when no option gives one;
    ``exposes`` says what anyone could do with a server open to them ("read every
    run"), in the refusal to serve a public address without a token. Every option
    defaults to ``None`` (or ``[]``, ``False``), so a command can tell whether one
    was given.
    """
    port_default = f"${port_env} or {port}" if port_env else str(port)
    parser.add_argument(
        "--host", default="127.0.0.1", help="bind address (default 127.0.0.1, loopback only)"
    )
    parser.add_argument(
        "--port",
        type=port_number,
        default=None,
        help=f"port (default {port_default}; 0 = any free port)",
    )
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name (and its Origins); repeatable",
    )
    parser.add_argument(
        "--token",
        default=None,
        help=f"require 'Authorization: Bearer TOKEN' on every request (default ${token_env}); "
        f"prefer ${token_env} or --token-file, since any user can read a command line (ps)",
    )
    parser.add_argument(
        "--token-file",
        metavar="FILE",
        default=None,
        help=f"read the token from FILE ({TOKEN_FILE_HELP})",
    )
    parser.add_argument(
        "--allow-no-token",
        action="store_true",
        help=f"serve an address other than loopback without a token (anyone who can reach "
        f"it could {exposes})",
    )
    parser.add_argument(
        "--max-connections",
        type=_positive,
        default=None,
        metavar="N",
        help=f"most connections open at once; more get 503 (default {DEFAULT_MAX_CONNECTIONS})",
    )
    parser.add_argument(
        "--header-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="drop a connection whose request headers are not complete in time "
        f"(default {DEFAULT_HEADER_TIMEOUT:g})",
    )
    parser.set_defaults(serve_defaults=_Defaults(port, port_env, token_env, exposes))


def _tuple(values: Sequence[str]) -> tuple[str, ...]:
    return tuple(values)


@attrs.frozen
class ServeSettings:
    """Where a server listens, whom it lets in, and how it bounds its connections.

    ``host`` and ``port`` (0: any free port) are the address; ``token`` the bearer
    token every request must carry (``None``: none); ``allowed_hosts`` the Host names
    accepted besides loopback and ``host`` itself (``allowed_names`` is the whole set,
    what :func:`~skillstate_serving.guard.check_request` matches). The limits: at most
    ``max_connections`` open at once (more get 503); a request's headers complete
    within ``header_timeout`` seconds; an idle keep-alive connection closed after
    ``keep_alive`` seconds; headers at most ``max_header_bytes``.
    """

    host: str = "127.0.0.1"
    port: int = 0
    token: str | None = None
    allowed_hosts: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    max_connections: int = DEFAULT_MAX_CONNECTIONS
    header_timeout: float = DEFAULT_HEADER_TIMEOUT
    keep_alive: float = 5.0
    max_header_bytes: int = 64 * 1024
    allowed_names: frozenset[str] = attrs.field(init=False, eq=False, repr=False)

    @allowed_names.default
    def _names(self) -> frozenset[str]:
        return allowed_names(self.host, self.allowed_hosts)

    @classmethod
    def from_args(
        cls, args: argparse.Namespace, environ: Mapping[str, str] | None = None
    ) -> ServeSettings:
        """The settings from the options :func:`add_serve_options` added, checked.

        The token comes from ``--token``, else ``--token-file``, else the command's
        variable (an empty one counts as unset). Raises
        :class:`~skillstate.plugin.InvalidInput` (one line; exit 2) for ``--token ""``
        (what ``--token "$TOKEN"`` becomes when the variable is unset: it must not turn
        authentication off), for both ``--token`` and ``--token-file``, for a token
        file :func:`read_token_file` refuses, for a token no client could send, for a
        port variable (without ``--port``) that is not a port, and for a non-loopback
        ``--host`` without a token unless ``--allow-no-token`` is given.
        """
        defaults = getattr(args, "serve_defaults", None)
        if not isinstance(defaults, _Defaults):
            raise TypeError("ServeSettings.from_args needs a parser set up by add_serve_options")
        environ = os.environ if environ is None else environ
        token = _token(args, environ, defaults.token_env)
        if token is None and not is_loopback(args.host) and not args.allow_no_token:
            raise InvalidInput(
                f"refusing to serve on {args.host} without a token: anyone who can reach it "
                f"could {defaults.exposes}; set ${defaults.token_env} or --token-file FILE, or "
                "pass --allow-no-token to serve it open"
            )
        return cls(
            host=args.host,
            port=args.port if args.port is not None else _port(environ, defaults),
            token=token,
            allowed_hosts=args.allowed_host,
            max_connections=DEFAULT_MAX_CONNECTIONS
            if args.max_connections is None
            else args.max_connections,
            header_timeout=DEFAULT_HEADER_TIMEOUT
            if args.header_timeout is None
            else args.header_timeout,
        )


def _token(args: argparse.Namespace, environ: Mapping[str, str], variable: str) -> str | None:
    """The token the options or ``$variable`` give (surrounding blanks stripped), checked."""
    if args.token is not None and args.token_file is not None:
        raise InvalidInput("give --token or --token-file, not both")
    if args.token is not None:
        if not args.token.strip():
            raise InvalidInput(
                '--token is empty (is the variable in --token "$TOKEN" unset?); give a '
                f"token, or use --token-file FILE or ${variable}"
            )
        token, source = args.token.strip(), "--token"
    elif args.token_file is not None:
        return read_token_file(args.token_file)
    else:
        token, source = environ.get(variable, "").strip(), f"${variable}"
    if token and (problem := unsendable_token(token)):
        raise InvalidInput(f"{source}: {problem}")
    return token or None


def _port(environ: Mapping[str, str], defaults: _Defaults) -> int:
    """The port ``$port_env`` gives (the values ``--port`` takes; an empty variable counts
    as unset), else the default. Anything else (``abc``, ``99999``, ``-1``, `` 3215 ``)
    raises :class:`~skillstate.plugin.InvalidInput` naming the variable and the value:
    a server never listens somewhere other than where it was told."""
    if not defaults.port_env:
        return defaults.port
    text = environ.get(defaults.port_env, "")
    if not text:
        return defaults.port
    if text.isascii() and text.isdigit() and len(text) <= 5 and int(text) < 65536:
        return int(text)
    shown = repr(text) if len(text) <= 40 else f"{text[:40]!r}… ({len(text):,} characters)"
    raise InvalidInput(
        f"${defaults.port_env}: expected a port number 0-65535 (0 = any free port), got {shown}"
    )
