"""The ``redis:`` / ``rediss:`` store plugin: registers the schemes.

:mod:`skillstate_redis.store` is the store (its guarantees, its keys), with
:mod:`skillstate_redis.url` (URLs and their options) and :mod:`skillstate_redis.scripts`
(the Lua scripts every write is); they and redis-py are imported only when a Redis URL
is opened.
"""

from __future__ import annotations

from collections.abc import Callable

from skillstate.plugin import Store, StoreSpec, hookimpl

__all__ = ["open_store", "skillstate_register_stores"]


def open_store(url: str) -> Store:
    """The factory: opens a :class:`~skillstate_redis.store.RedisStore`."""
    from .store import RedisStore

    return RedisStore(url)


@hookimpl
def skillstate_register_stores(register: Callable[[StoreSpec], None]) -> None:
    for scheme, what in (("redis", "Redis"), ("rediss", "Redis over TLS")):
        register(
            StoreSpec(
                scheme=scheme,
                factory=open_store,
                description=f"{what} (redis-py): shared by many processes and machines",
            )
        )
