"""The ``redis:`` store's connection: opened on first use, checked, every call guarded.

redis-py's pool, with redis-py's own retries off (a write is never sent twice blindly).
A read that meets a dead connection is retried once on a fresh one; so is a write,
after looking its journal entry up (if it is there, the write had landed). Every
failure is one :class:`~skillstate.plugin.StoreError` line naming the URL, its password
masked. At ``full`` the server must run ``appendonly yes`` with ``appendfsync always``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, TypeVar

from skillstate.plugin import JournalEntry, StoreError, compact, mask_url

from .scripts import COMMIT, CREATE, DELETE
from .url import bad_url, parse_redis_url

if TYPE_CHECKING:
    import redis

__all__ = ["RedisConnection", "one_line"]

T = TypeVar("T")


def one_line(exc: BaseException) -> str:
    """``exc``'s text on one line (redis-py's and the server's may have line breaks)."""
    return " ".join(str(exc).split()) or type(exc).__name__


class RedisConnection:
    """The client of one store URL, its scripts, and :meth:`_run` (the guard of every call)."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client_url, options = parse_redis_url(url)
        self.prefix: str = options["prefix"]
        self.durability: str = options["durability"]
        self.check_aof: bool = options["check_aof"]
        self.shown = mask_url(url)
        self._index = f"{self.prefix}runs"
        self._client: redis.Redis | None = None
        self._scripts: dict[str, Any] = {}
        self._lock = threading.Lock()
        self._closed = False

    def _keys(self, run_id: str) -> list[str]:
        p = self.prefix
        return [f"{p}run:{run_id}", f"{p}journal:{run_id}", f"{p}snapshots:{run_id}"]

    def _open(self) -> redis.Redis:
        client = self._client
        if client is not None:
            return client
        with self._lock:
            if self._client is not None:
                return self._client
            if self._closed:
                raise StoreError(f"store {self.shown} is closed")
            import redis
            from redis.backoff import NoBackoff
            from redis.retry import Retry

            try:
                client = redis.Redis.from_url(
                    self.client_url, decode_responses=True, retry=Retry(NoBackoff(), 0)
                )
            except (TypeError, ValueError) as exc:
                raise bad_url(f"bad Redis URL '{self.shown}': {one_line(exc)}") from None
            try:
                client.ping()
                if self.durability == "full" and self.check_aof:
                    self._check_full(client)
            except redis.RedisError as exc:
                client.close()
                reason = one_line(exc)
                if "NOAUTH" in reason or "already authenticated" in reason:
                    reason = f"the server asks for a password and the URL gives none ({reason})"
                raise StoreError(f"cannot connect to Redis at {self.shown}: {reason}") from None
            except (TypeError, ValueError) as exc:  # an option redis-py does not take
                client.close()
                raise bad_url(f"bad Redis URL '{self.shown}': {one_line(exc)}") from None
            except StoreError:
                client.close()
                raise
            self._scripts = {
                name: client.register_script(text)
                for name, text in (("commit", COMMIT), ("create", CREATE), ("delete", DELETE))
            }
            self._client = client
            return client

    def _check_full(self, client: redis.Redis) -> None:
        """``full`` needs ``appendonly yes`` and ``appendfsync always``; refuse it otherwise."""
        import redis

        try:
            config = {**client.config_get("appendonly"), **client.config_get("appendfsync")}
        except redis.ResponseError as exc:
            raise StoreError(
                f"{self.shown}: durability=full needs CONFIG GET to check the server's "
                f"append-only file, and the server refused it ({one_line(exc)}); "
                "use durability=process, or check_aof=no if the server fsyncs each write"
            ) from None
        appendonly, appendfsync = config.get("appendonly"), config.get("appendfsync")
        if appendonly != "yes" or appendfsync != "always":
            raise StoreError(
                f"{self.shown}: durability=full needs the server to run appendonly yes with "
                f"appendfsync always (it has appendonly {appendonly}, appendfsync "
                f"{appendfsync}); configure the server so or use durability=process"
            )

    def _run(
        self, what: str, work: Callable[[redis.Redis], T], landed: Callable[[], bool] | None = None
    ) -> T:
        """Run ``work``; on a dead connection, retry once (a write: unless it ``landed``)."""
        client = self._open()
        import redis

        for attempt in (1, 2):
            try:
                if attempt == 2 and landed is not None and landed():
                    return None  # type: ignore[return-value]  # writes return None
                return work(client)
            except redis.AuthenticationError as exc:
                raise StoreError(f"cannot {what}: Redis at {self.shown}: {one_line(exc)}") from None
            except redis.ConnectionError as exc:
                if attempt == 2:
                    raise StoreError(
                        f"cannot {what}: the connection to Redis at {self.shown} failed "
                        f"({one_line(exc)})"
                        + ("; nothing was changed unless a re-read shows it" if landed else "")
                    ) from None
            except redis.TimeoutError as exc:
                raise StoreError(
                    f"cannot {what}: Redis at {self.shown} did not answer in time "
                    f"({one_line(exc)})"
                    + ("; nothing was changed unless a re-read shows it" if landed else "")
                ) from None
            except redis.RedisError as exc:
                raise StoreError(f"cannot {what}: Redis error: {one_line(exc)}") from None
        raise AssertionError("unreachable")

    def _entry_landed(self, run_id: str, entry: JournalEntry) -> Callable[[], bool]:
        text = compact(entry.to_dict())
        journal = self._keys(run_id)[1]

        def landed() -> bool:
            return bool(self._open().hget(journal, str(entry.version)) == text)

        return landed

    def close(self) -> None:
        with self._lock:
            self._closed = True
            client, self._client = self._client, None
        if client is not None:
            client.close()
