"""The inspector's gate: every request is checked here before any page is built.

In this order:

1. **Method**: ``GET`` and ``HEAD`` only; anything else is 405 (the inspector is
   read-only: no page, form or endpoint writes).
2. **Host** must be an allowed name (421), and **Origin**, when sent, an allowed
   origin (403) — protection against DNS rebinding and cross-site reads. Allowed: the
   loopback names (``127.0.0.1``, ``localhost``, ``[::1]``, any port), the bind
   address when it is a concrete one, and each ``--allowed-host``.
3. **Token** (when configured): ``Authorization: Bearer <token>``, or the session
   cookie a browser gets by opening any page once with ``?token=<token>`` (then
   redirected to the same page without it, so the token does not stay in the address
   bar or the history). Anything else is 401. Compared in constant time.

The session cookie is this server's alone and expires:

- its value is ``<issued>.<signature>``: the time it was issued and an HMAC-SHA256 of
  it under a key drawn at random when the server starts (:func:`secrets.token_bytes`),
  so it is derived from nothing a client knows (not the token), no two servers accept
  each other's, and a restart ends every session;
- it is accepted for :data:`SESSION_SECONDS` (12 hours) after it was issued, which the
  server checks itself, and the browser is told the same (``Max-Age``);
- its name carries the server's port (``skillstate_ui_3212``): browsers send a
  cookie to every port of a host, so a cookie named the same on two servers would be
  overwritten by, and sent to, the other; ``HttpOnly`` and ``SameSite=Strict``.

The Host, Origin and bearer-token checks are :func:`skillstate_serving.check_request`,
the same code as the MCP HTTP server's gate; the cookie is the inspector's own.

Every answer carries a Content-Security-Policy allowing only the inspector's own
script and style (no inline script can run, even if an escaping bug let one in),
``X-Content-Type-Options: nosniff``, ``Referrer-Policy: no-referrer`` and
``X-Frame-Options: DENY``.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import secrets
import time
import urllib.parse
from collections.abc import Sequence
from http.cookies import SimpleCookie
from typing import Any

from skillstate_serving import ServeSettings, check_request
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["COOKIE", "SESSION_SECONDS", "UiGate", "security_headers"]

COOKIE = "skillstate_ui"
"""The session cookie's name, before the server's port (``skillstate_ui_3212``)."""
SESSION_SECONDS = 12 * 3600
"""How long a session cookie opens the inspector after it was issued."""

CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)


def security_headers() -> list[tuple[bytes, bytes]]:
    """The headers every answer of the inspector carries."""
    return [
        (b"content-security-policy", CSP.encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"referrer-policy", b"no-referrer"),
        (b"x-frame-options", b"DENY"),
    ]


async def _plain(
    send: Send, status: int, text: str, headers: Sequence[tuple[bytes, bytes]] = ()
) -> None:
    body = json.dumps({"error": text}).encode()
    await send(
        {
            "type": "http.response.start",
            "status": status,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                *security_headers(),
                *headers,
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})


def _cookie_name(scope: Scope) -> str:
    """The session cookie's name on the port this request reached (``skillstate_ui_3212``)."""
    server: Any = scope.get("server")
    port = server[1] if isinstance(server, tuple | list) and len(server) == 2 else None
    return f"{COOKIE}_{port if isinstance(port, int) else 0}"


def _same(given: str, expected: bytes) -> bool:
    """``given`` (surrounding blanks ignored) equals ``expected``, in constant time."""
    return hmac.compare_digest(given.strip().encode("utf-8"), expected)


class UiGate:
    """ASGI middleware: method, Host/Origin and token checks, then security headers."""

    def __init__(
        self,
        app: ASGIApp,
        *,
        bind: str = "127.0.0.1",
        allowed_hosts: Sequence[str] = (),
        token: str | None = None,
        cookie_path: str = "/",
    ) -> None:
        self.app = app
        self.settings = ServeSettings(host=bind, allowed_hosts=tuple(allowed_hosts), token=token)
        self.token = token.encode("utf-8") if token else None
        self.session_key = secrets.token_bytes(32)  # this server's; never derived from the token
        self.cookie_path = cookie_path or "/"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            if scope["type"] == "lifespan":
                await self.app(scope, receive, send)
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _plain(
                send,
                405,
                "the inspector is read-only: GET and HEAD only",
                [(b"allow", b"GET, HEAD")],
            )
            return
        refusal = check_request(self.settings, scope)
        if refusal is not None and refusal.status != 401:  # Host 421, Origin 403
            await refusal(scope, receive, self._with_headers(send))
            return
        if self.token is not None:
            query = urllib.parse.parse_qs(scope.get("query_string", b"").decode("latin-1"))
            given = query.get("token")
            if given:
                if _same(given[-1], self.token):
                    await self._login(scope, send, query)
                else:
                    await self._refuse(send)
                return
            if refusal is not None and not self._cookie_matches(scope):
                await self._refuse(send)
                return
        await self.app(scope, receive, self._with_headers(send))

    def _signature(self, issued: str) -> str:
        return hmac.new(self.session_key, issued.encode("ascii"), hashlib.sha256).hexdigest()

    def _session_value(self) -> str:
        issued = str(int(time.time()))
        return f"{issued}.{self._signature(issued)}"

    def _cookie_matches(self, scope: Scope) -> bool:
        """Whether the request carries a session cookie of this server, not expired (a
        bearer token is checked before)."""
        sent = [v.decode("latin-1") for k, v in scope["headers"] if k == b"cookie"]
        cookies: SimpleCookie = SimpleCookie()
        try:
            cookies.load("; ".join(sent))
        except Exception:  # a malformed Cookie header: as if none was sent
            return False
        morsel = cookies.get(_cookie_name(scope))
        if morsel is None:
            return False
        issued, _, signature = morsel.value.partition(".")
        if not (issued.isascii() and issued.isdigit() and len(issued) <= 12):
            return False
        if not _same(signature, self._signature(issued).encode()):
            return False
        return 0 <= time.time() - int(issued) < SESSION_SECONDS

    async def _refuse(self, send: Send) -> None:
        await _plain(
            send,
            401,
            "missing or wrong token: send Authorization: Bearer <token>, or open this page "
            "once with ?token=<token>",
            [(b"www-authenticate", b'Bearer realm="skillstate-ui"')],
        )

    async def _login(self, scope: Scope, send: Send, query: dict[str, list[str]]) -> None:
        assert self.token is not None
        rest = {k: v for k, v in query.items() if k != "token"}
        # one leading slash: "//host/…" would send the browser to another site
        target = "/" + (scope.get("root_path", "") + scope["path"]).lstrip("/")
        if rest:
            target += "?" + urllib.parse.urlencode(rest, doseq=True)
        cookie = (
            f"{_cookie_name(scope)}={self._session_value()}; Path={self.cookie_path}; "
            f"Max-Age={SESSION_SECONDS}; HttpOnly; SameSite=Strict"
        )
        await send(
            {
                "type": "http.response.start",
                "status": 303,
                "headers": [
                    (b"location", urllib.parse.quote(target, safe="/?=&%:").encode()),
                    (b"set-cookie", cookie.encode("utf-8")),
                    (b"content-length", b"0"),
                    (b"cache-control", b"no-store"),
                    *security_headers(),
                ],
            }
        )
        await send({"type": "http.response.body", "body": b""})

    def _with_headers(self, send: Send) -> Send:
        async def wrapped(message: Message) -> None:
            if message["type"] == "http.response.start":
                extra: Any = security_headers()
                message = {**message, "headers": [*message.get("headers", []), *extra]}
            await send(message)

        return wrapped
