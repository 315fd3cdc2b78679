"""An LLM policy: any OpenAI-compatible ``/chat/completions`` endpoint, over the standard library.

Configuration (environment variables, or keyword arguments):

- ``SKILLSTATE_LLM_BASE_URL`` — e.g. ``https://api.openai.com/v1`` (the default) or a
  local server such as ``http://127.0.0.1:8000/v1`` (vLLM, llama.cpp, Ollama);
- ``SKILLSTATE_LLM_MODEL`` — the model name (required);
- ``SKILLSTATE_LLM_API_KEY`` (or ``OPENAI_API_KEY``) — sent as a bearer token, never logged.

Each turn sends the runtime's rendered prompt as one user message with temperature
0.0 and top-p 1.0 (the paper's settings) and returns the reply text with the
reported token usage. HTTP 429/5xx answers and connection errors are retried
``http_retries`` times with exponential backoff; then :class:`PolicyError`. Parsing
the reply and retrying a rejected patch is the runner's job (``--retries``).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from typing import Any

from .policies import PolicyError, Reply, TurnView

__all__ = ["ChatCompletionsPolicy"]

DEFAULT_BASE_URL = "https://api.openai.com/v1"


class ChatCompletionsPolicy:
    """Asks a chat-completions endpoint for every turn."""

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
    ) -> None:
        if not model:
            raise ValueError(
                "the llm policy needs a model: set SKILLSTATE_LLM_MODEL (and SKILLSTATE_LLM_BASE_URL, "
                "SKILLSTATE_LLM_API_KEY for a non-default endpoint)"
            )
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"SKILLSTATE_LLM_BASE_URL must be an http(s) URL, got {base_url!r}")
        self.name = f"llm:{model}"
        self.model = model
        self.url = base_url.rstrip("/") + "/chat/completions"
        self._key = api_key
        self.temperature, self.top_p, self.max_tokens = temperature, top_p, max_tokens
        self.timeout, self.http_retries, self.backoff = timeout, http_retries, backoff

    @classmethod
    def from_environment(cls, **overrides: Any) -> ChatCompletionsPolicy:
        """Build from ``SKILLSTATE_LLM_*`` variables; keyword arguments win."""
        settings: dict[str, Any] = {
            "model": os.environ.get("SKILLSTATE_LLM_MODEL", ""),
            "base_url": os.environ.get("SKILLSTATE_LLM_BASE_URL", DEFAULT_BASE_URL),
            "api_key": os.environ.get("SKILLSTATE_LLM_API_KEY") or os.environ.get("OPENAI_API_KEY"),
        }
        settings.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**settings)

    def _request(self, body: bytes) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self._key:
            headers["Authorization"] = f"Bearer {self._key}"
        request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
        last = ""
        for attempt in range(self.http_retries + 1):
            if attempt:
                time.sleep(self.backoff * 2 ** (attempt - 1))
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    data = json.loads(response.read().decode("utf-8"))
                if not isinstance(data, dict):
                    raise PolicyError(f"{self.url} answered a non-object JSON value")
                return data
            except urllib.error.HTTPError as exc:
                detail = exc.read()[:300].decode("utf-8", "replace")
                last = f"HTTP {exc.code}: {detail}"
                if exc.code != 429 and exc.code < 500:
                    break
            except (urllib.error.URLError, TimeoutError, ConnectionError) as exc:
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except ValueError as exc:
                raise PolicyError(f"{self.url} answered invalid JSON: {exc}") from None
        raise PolicyError(f"chat completion failed at {self.url}: {last}")

    def respond(self, view: TurnView) -> Reply:
        payload: dict[str, Any] = {
            "model": self.model,
            "messages": [{"role": "user", "content": view.prompt}],
            "temperature": self.temperature,
            "top_p": self.top_p,
        }
        if self.max_tokens is not None:
            payload["max_tokens"] = self.max_tokens
        data = self._request(json.dumps(payload).encode("utf-8"))
        try:
            content = data["choices"][0]["message"]["content"]
        except (KeyError, IndexError, TypeError):
            raise PolicyError(
                f"{self.url} answered without choices[0].message.content: {str(data)[:200]}"
            ) from None
        if not isinstance(content, str):
            raise PolicyError(f"{self.url} answered a non-text message content")
        usage = data.get("usage")
        if not isinstance(usage, dict):
            usage = {}
        prompt_tokens = usage.get("prompt_tokens")
        completion_tokens = usage.get("completion_tokens")
        return Reply(
            content,
            prompt_tokens if isinstance(prompt_tokens, int) else None,
            completion_tokens if isinstance(completion_tokens, int) else None,
        )
