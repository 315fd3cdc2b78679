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
(another HTTP error such as 400 or 401, an HTML page, JSON without
``choices[0].message``), raises :class:`~skillstate.bench.policies.EndpointError`
with one line saying what the endpoint did; the run stops there. A message with no
text content (``null``, a refusal) is the model's: it comes back as an empty reply,
which the runner counts as a parse failure.
"""

from __future__ import annotations

import email.utils
import http.client
import json
import os
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any

from skillstate.bench.policies import EndpointError, Reply, TurnView

__all__ = ["DEFAULT_BASE_URL", "ChatCompletionsPolicy", "public_endpoint", "retry_after"]

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


def _snippet(data: bytes) -> str:
    text = data[:2000].decode("utf-8", "replace")
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
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"SKILLSTATE_LLM_BASE_URL must be an http(s) URL, got {public_endpoint(base_url)!r}"
            )
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
        self.sleep = time.sleep

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
        return EndpointError(f"the model endpoint {self.endpoint} {what}")

    def _post(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        last, wait = "", None
        for attempt in range(self.http_retries + 1):
            if attempt:
                delay = wait if wait is not None else self.backoff * 2 ** (attempt - 1)
                self.sleep(delay)
            wait = None
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = response.read()
            except urllib.error.HTTPError as exc:
                try:
                    detail = _snippet(exc.read())
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
                reason = getattr(exc, "reason", None) or exc
                last = f"could not be read ({type(exc).__name__}: {reason})"
                continue
            try:
                parsed = json.loads(data.decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                last = f"answered {_snippet(data)}, not JSON"
                if data.lstrip()[:1] in (b"{", b"["):  # cut off mid-body: worth another try
                    continue
                break
            if not isinstance(parsed, dict):
                last = "answered a JSON value that is not an object"
                break
            return parsed
        tries = f" after {self.http_retries + 1} tries" if self.http_retries else ""
        raise self._fail(last + tries)

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
            said = f": {_snippet(json.dumps(error).encode())}" if error else ""
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
