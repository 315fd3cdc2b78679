"""The serving kit's request checks (``skillstate_serving.check_request``): the Host,
Origin and bearer-token refusals every local HTTP surface gives, and their JSON answer."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from skillstate_serving import ServeSettings, check_request, guard


def _scope(**headers: str) -> dict[str, Any]:
    return {
        "type": "http",
        "method": "GET",
        "path": "/",
        "headers": [
            (k.replace("_", "-").encode(), v.encode("latin-1")) for k, v in headers.items()
        ],
    }


def test_host_names_match_without_their_port_and_case() -> None:
    names = guard.allowed_names("0.0.0.0", ["Ui.Example.test", "[::2]", "Proxy.test:8443", "::3"])
    assert guard.host_allowed("proxy.test:8443", names)  # a port in --allowed-host
    assert guard.host_allowed("[::3]:80", names)
    assert guard.host_allowed("ui.example.test:8080", names)
    assert guard.host_allowed("[::2]:1", names) and guard.host_allowed("[::1]", names)
    assert not guard.host_allowed("0.0.0.0", names) and not guard.host_allowed(None, names)
    assert not guard.host_allowed("localhost:8o", names)
    assert not guard.host_allowed("localhost:\u0661", names)  # an Arabic-Indic digit
    assert guard.origin_allowed(None, names) and guard.origin_allowed("https://localhost:3", names)
    assert not guard.origin_allowed("null", names)
    assert not guard.origin_allowed("http://evil.test", names)
    assert guard.bearer_matches("bearer  tok ", b"tok")
    assert not guard.bearer_matches("Basic tok", b"tok")
    assert not guard.bearer_matches("Bearer ", b"")


def test_a_concrete_bind_address_is_allowed_and_any_address_is_not() -> None:
    assert "10.0.0.5" in ServeSettings(host="10.0.0.5").allowed_names
    assert "0.0.0.0" not in ServeSettings(host="0.0.0.0").allowed_names
    assert ServeSettings(allowed_hosts=["a.test"]).allowed_names >= {"a.test", "localhost"}


def test_check_request_refuses_in_order_host_origin_token() -> None:
    open_one = ServeSettings()
    assert check_request(open_one, _scope(host="127.0.0.1:9")) is None
    assert check_request(open_one, _scope(host="localhost", origin="http://localhost:9")) is None
    refused = check_request(open_one, _scope(host="evil.test", origin="http://evil.test"))
    assert refused is not None and refused.status == 421  # Host before Origin
    refused = check_request(open_one, _scope(host="127.0.0.1", origin="http://evil.test"))
    assert refused is not None and refused.status == 403
    assert check_request(open_one, _scope()).status == 421  # type: ignore[union-attr]

    locked = ServeSettings(token="s3cret")
    refused = check_request(locked, _scope(host="evil.test", authorization="Bearer s3cret"))
    assert refused is not None and refused.status == 421  # Host before the token
    for authorization in (None, "Bearer wrong", "Basic s3cret", "Bearer"):
        headers = {"host": "127.0.0.1"} | (
            {"authorization": authorization} if authorization else {}
        )
        refused = check_request(locked, _scope(**headers))
        assert refused is not None and refused.status == 401, authorization
        assert (b"www-authenticate", b'Bearer realm="skillstate"') in refused.headers
    assert check_request(locked, _scope(host="127.0.0.1", authorization="bearer s3cret")) is None


def test_a_refusal_answers_itself_as_json() -> None:
    refusal = check_request(ServeSettings(token="t"), _scope(host="127.0.0.1"))
    assert refusal is not None
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return {"type": "http.request"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    asyncio.run(refusal(_scope(), receive, send))
    start, body = sent
    assert start["status"] == 401
    headers = dict(start["headers"])
    assert headers[b"content-type"] == b"application/json"
    assert int(headers[b"content-length"]) == len(body["body"])
    assert json.loads(body["body"]) == {
        "error": "missing or wrong bearer token (send Authorization: Bearer <token>)"
    }
