"""The options every serving command shares: ``--host --port --allowed-host --token
--token-file --allow-no-token`` (``skillstate ui``, ``skillstate mcp --http``).

One definition, so the two servers cannot drift in how an address, a port or a
token is given; each command passes its own defaults and help texts.
"""

from __future__ import annotations

import argparse
import ipaddress

__all__ = ["add_serve_options", "is_loopback", "port"]


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
