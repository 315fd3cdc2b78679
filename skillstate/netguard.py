"""TRANSITIONAL (issue 25): the MCP plugin's old import path of :mod:`skillstate.http.guard`.

Not API. It goes when the MCP plugin serves through :mod:`skillstate.plugin.http`.
"""

from skillstate.http.guard import (
    ANY_ADDRESS,
    LOOPBACK,
    allowed_names,
    bearer_matches,
    bind,
    host_allowed,
    host_name,
    origin_allowed,
    origin_name,
    token_matches,
)

__all__ = [
    "ANY_ADDRESS",
    "LOOPBACK",
    "allowed_names",
    "bearer_matches",
    "bind",
    "host_allowed",
    "host_name",
    "origin_allowed",
    "origin_name",
    "token_matches",
]
