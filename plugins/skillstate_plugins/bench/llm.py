"""An LLM policy: any OpenAI-compatible ``/chat/completions`` endpoint, over the standard library.

Configuration (environment variables, or keyword arguments / ``bench`` options):

- ``SKILLSTATE_LLM_BASE_URL`` — e.g. ``https://api.openai.com/v1`` (the default) or a
  local server such as ``http://127.0.0.1:8000/v1`` (vLLM, llama.cpp, Ollama);
- ``SKILLSTATE_LLM_MODEL`` — the model name (required);
- ``SKILLSTATE_LLM_API_KEY`` (or ``OPENAI_API_KEY``) — sent as a bearer token, never
  written anywhere (:attr:`ChatCompletionsPolicy.endpoint` is the URL without
  credentials or query).

Each turn sends the runtime's prompt as one user message (temperature 0.0 and top-p
1.0 by default: the paper's settings) and returns the reply text with the reported
token usage.

**Endpoint failures are not model failures.** HTTP 408/409/425/429/5xx answers,
refused or reset connections, timeouts and truncated or unreadable bodies are retried
``http_retries`` times — after the server's ``Retry-After`` when it sends one
(seconds or an HTTP date, at most ``max_retry_after``), else with exponential
backoff. What is still failing then, and anything that cannot be a model's answer
or that no retry can mend (another HTTP error such as 400 or 401, an HTML page, JSON
without ``choices[0].message``, a host name that does not resolve, a refused TLS
certificate, an invalid URL), raises :class:`~skillstate_plugins.bench.policies.EndpointError`
with one line saying what the endpoint did (``after N tries`` when it was tried more
than once); the run stops there. A message with no text content (``null``, a
refusal) is the model's: it comes back as an empty reply, which the runner counts as
a parse failure.

**Secrets are never printed.** The base URL may not carry credentials or a query (put
the key in ``SKILLSTATE_LLM_API_KEY``); every error line is passed through
:func:`~skillstate_plugins.bench.redaction.redact_secrets` with the key, so an endpoint that
repeats the ``Authorization`` header in its error body shows ``[REDACTED]``.

**Stopping.** :meth:`ChatCompletionsPolicy.stop_on` gives the policy a stop event (a
sweep's): waits between retries end as soon as it is set, and a call asked for after
that raises :class:`~skillstate_plugins.bench.policies.Interrupted`.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from .policies import EndpointError, Interrupted, Reply, TurnView
from .redaction import redact_secrets

__all__ = [
    "DEFAULT_BASE_URL",
    "ChatCompletionsPolicy",
    "check_base_url",
    "public_endpoint",
    "retry_after",
]

DEFAULT_BASE_URL = "https://api.openai.com/v1"
RETRIED = frozenset({408, 409, 425, 429}) | frozenset(range(500, 600))


def public_endpoint(url: str) -> str:
    """``url`` without user, password, query or fragment (what may be printed and stored)."""
    parts = urllib.parse.urlsplit(url)
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


def retry_after(value: str | None, now: float | None = None) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (delta-seconds or an HTTP date), or ``None``."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when is None:
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def check_base_url(url: str) -> None:
    """Refuse a base URL that cannot be used or would put a secret where it is printed."""
    where = "SKILLSTATE_LLM_BASE_URL (or --llm-base-url)"
    if any(c.isspace() or ord(c) < 32 or ord(c) == 127 for c in url):
        raise ValueError(f"{where} must not contain spaces or control characters")
    parts = urllib.parse.urlsplit(url)
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise ValueError(
            f"{where} must not contain credentials (user:password@): put credentials in "
            "SKILLSTATE_LLM_API_KEY"
        )
    if parts.query or parts.fragment:
        raise ValueError(
            f"{where} must not contain a query or fragment (?…, #…): put credentials in "
            "SKILLSTATE_LLM_API_KEY"
        )
    try:
        parts.port  # noqa: B018 - raises on a port that is not a number from 0 to 65535
    except ValueError:
        raise ValueError(f"{where} has an invalid port: {url!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"SKILLSTATE_LLM_BASE_URL must be an http(s) URL, got {url!r}")


def _not_retried(exc: BaseException) -> str | None:
    """What no retry can mend: a name that does not resolve, a refused certificate, a bad URL."""
    reason = getattr(exc, "reason", None) if isinstance(exc, urllib.error.URLError) else exc
    if isinstance(reason, socket.gaierror):
        return f"could not be reached: its host name does not resolve ({reason})"
    if isinstance(reason, ssl.SSLCertVerificationError):
        return f"could not be reached: its TLS certificate was refused ({reason.verify_message})"
    if isinstance(reason, ssl.SSLError) and not isinstance(
        reason, ssl.SSLEOFError | ssl.SSLZeroReturnError
    ):
        return f"could not be reached: TLS failed ({reason})"
    if isinstance(reason, http.client.InvalidURL):
        return f"is not a URL that can be requested ({reason})"
    return None


def _snippet(data: bytes, secrets: tuple[str | None, ...] = ()) -> str:
    text = redact_secrets(data[:2000].decode("utf-8", "replace"), secrets)
    lowered = text.lower()
    if "<html" in lowered or "<!doctype" in lowered:
        start = lowered.find("<title>")
        end = lowered.find("</title>")
        title = text[start + 7 : end].strip() if 0 <= start < end else ""
        return f"an HTML page{f' ({title})' if title else ''}"
    return " ".join(text.split())[:200] or "an empty body"


class ChatCompletionsPolicy:
    """Asks a chat-completions endpoint for every turn (and, for Memory, every summary)."""

    def __init__(
        self,
        *,
        model: str,
        base_url: str = DEFAULT_BASE_URL,
        api_key: str | None = None,
        temperature: float = 0.0,
        top_p: float = 1.0,
        max_tokens: int | None = None,
        timeout: float = 120.0,
        http_retries: int = 3,
        backoff: float = 1.0,
        max_retry_after: float = 300.0,
    ) -> None:
        if not model:
            raise ValueError(
                "the llm policy needs a model: set SKILLSTATE_LLM_MODEL or --llm-model (and "
                "SKILLSTATE_LLM_BASE_URL, SKILLSTATE_LLM_API_KEY for a non-default endpoint)"
            )
        check_base_url(base_url)
        if temperature < 0 or not 0 < top_p <= 1:
            raise ValueError("--temperature must be ≥ 0 and --top-p from 0 (excluded) to 1")
        if timeout <= 0 or http_retries < 0 or (max_tokens is not None and max_tokens < 1):
            raise ValueError("--timeout must be > 0, --http-retries ≥ 0 and --max-tokens ≥ 1")
        self.name = f"llm:{model}"
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.endpoint = public_endpoint(self.url)
        self._key = api_key
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.timeout, self.http_retries, self.backoff = timeout, http_retries, backoff
        self.max_retry_after = max_retry_after
        self._stop: threading.Event | None = None

    def stop_on(self, event: threading.Event) -> None:
        """Stop waiting (and calling) as soon as ``event`` is set: a sweep's stop signal."""
        self._stop = event

    def redact(self, text: str) -> str:
        """``text`` without the API key or anything shaped like a credential."""
        return redact_secrets(text, (self._key,))

    def _pause(self, delay: float) -> None:
        if self._stop is None:
            time.sleep(delay)
        elif self._stop.wait(delay):
            raise Interrupted

    @classmethod
    def from_environment(cls, **overrides: Any) -> ChatCompletionsPolicy:
        """Build from ``SKILLSTATE_LLM_*`` variables; keyword arguments that are not ``None`` win."""
        settings: dict[str, Any] = {
            "model": os.environ.get("SKILLSTATE_LLM_MODEL", ""),
            "base_url": os.environ.get("SKILLSTATE_LLM_BASE_URL", DEFAULT_BASE_URL),
            "api_key": os.environ.get("SKILLSTATE_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY"),
        }
        settings.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**settings)

    def settings(self) -> dict[str, Any]:
        """What a results file records about the endpoint (never the key)."""
        return {
            "model": self.model,
            "endpoint": self.endpoint,
            "temperature": self.temperature,
            "top_p": self.top_p,
            "max_tokens": self.max_tokens,
            "timeout_s": self.timeout,
            "http_retries": self.http_retries,
        }

    def _fail(self, what: str) -> EndpointError:
        return EndpointError(self.redact(f"the model endpoint {self.endpoint} {what}"))

    def _post(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        secrets = (self._key,)
        last, wait, tries = "", None, 0
        for attempt in range(self.http_retries + 1):
            if self._stop is not None and self._stop.is_set():
                raise Interrupted
            if attempt:
                self._pause(wait if wait is not None else self.backoff * 2 ** (attempt - 1))
            wait = None
            tries += 1
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = response.read()
            except urllib.error.HTTPError as exc:
                try:
                    detail = _snippet(exc.read(), secrets)
                except (OSError, http.client.HTTPException):
                    detail = "an unreadable body"
                last = f"answered HTTP {exc.code}: {detail}"
                if exc.code not in RETRIED:
                    break
                wait = retry_after(exc.headers.get("Retry-After") if exc.headers else None)
                if wait is not None and wait > self.max_retry_after:
                    last += f" (and asks to retry after {wait:.0f} s)"
                    break
                continue
            except (urllib.error.URLError, OSError, http.client.HTTPException) as exc:
                final = _not_retried(exc)
                if final is not None:
                    last = final
                    break
                reason = getattr(exc, "reason", None) or exc
                last = f"could not be read ({type(exc).__name__}: {reason})"
                continue
            try:
                parsed = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                last = f"answered {_snippet(data, secrets)}, not JSON"
                if data.lstrip()[:1] in (b"{", b"["):  # cut off mid-body: worth another try
                    continue
                break
            if not isinstance(parsed, dict):
                last = "answered a JSON value that is not an object"
                break
            return parsed
        raise self._fail(last + (f" after {tries} tries" if tries > 1 else ""))

    def complete(self, prompt: str) -> Reply:
        """One chat completion of ``prompt`` as a single user message."""
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": prompt}],
            "temperature": self.temperature,
            "top_p": self.top_p,
        }
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        data = self._post(json.dumps(payload).encode("utf-8"))
        choices = data.get("choices")
        message = (
            choices[0].get("message")
            if isinstance(choices, list) and choices and isinstance(choices[0], dict)
            else None
        )
        if not isinstance(message, dict):
            error = data.get("error")
            said = f": {_snippet(json.dumps(error).encode(), (self._key,))}" if error else ""
            raise self._fail(f"answered without choices[0].message{said}")
        content = message.get("content")
        text = content if isinstance(content, str) else ""
        found = data.get("usage")
        usage: dict[str, Any] = found if isinstance(found, dict) else {}
        prompt_tokens = usage.get("prompt_tokens")
        completion_tokens = usage.get("completion_tokens")
        return Reply(
            text,
            prompt_tokens if isinstance(prompt_tokens, int) else None,
            completion_tokens if isinstance(completion_tokens, int) else None,
        )

    def respond(self, view: TurnView) -> Reply:
        return self.complete(view.prompt)

    def summarize(self, prompt: str) -> Reply:
        """The Memory runtime's summary update, written by the same model."""
        return self.complete(prompt)
