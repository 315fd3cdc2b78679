"""TRANSITIONAL (issue 25): the MCP plugin's old serve options (:mod:`skillstate.http.options`).

Not API. It goes when the MCP plugin serves through :mod:`skillstate.plugin.http`,
whose ``add_serve_options`` writes the help texts itself and adds the limits too.
"""

from __future__ import annotations

import argparse

from skillstate.http.options import (
    TOKEN_FILE_HELP,
    TokenFileError,
    is_loopback,
    port_number,
    read_token_file,
    unsendable_token,
)
from skillstate.http.server import sigint_heard

__all__ = [
    "TOKEN_FILE_HELP",
    "TokenFileError",
    "add_serve_options",
    "is_loopback",
    "read_token_file",
    "sigint_heard",
    "unsendable_token",
]


def add_serve_options(
    parser: argparse.ArgumentParser,
    *,
    port_default: int | None,
    host_help: str,
    port_help: str,
    token_help: str,
    token_file_help: str,
    allow_no_token_help: str,
) -> None:
    """The address and token options with the caller's help texts (the old signature)."""
    parser.add_argument("--host", default="127.0.0.1", help=host_help)
    parser.add_argument("--port", type=port_number, default=port_default, help=port_help)
    parser.add_argument(
        "--allowed-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also accept this Host name (and its Origins); repeatable",
    )
    parser.add_argument("--token", default=None, help=token_help)
    parser.add_argument("--token-file", metavar="FILE", default=None, help=token_file_help)
    parser.add_argument("--allow-no-token", action="store_true", help=allow_no_token_help)
