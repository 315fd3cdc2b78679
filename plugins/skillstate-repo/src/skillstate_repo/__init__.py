"""``skillstate-repo``: the SKILL.state paper's Software Repository environment as a plugin.

A third-party-style distribution: it imports only the plugin API
(``skillstate.plugin``, ``skillstate_plugins.bench``) and registers

- the environment ``repo`` (``skillstate_register_environments``): one private
  repository per session, a seeded stream of feature requests, CI, pull requests and
  releases (:mod:`.environment`, :mod:`.world`, :mod:`.generator`, :mod:`.noise`);
- the benchmark ``repo`` (``skillstate_register_benchmarks``, the bench plugin's hook,
  implemented ``optionalhook=True``): ``skillstate bench repo`` on the bench harness,
  with a scripted oracle (:mod:`.benchmark`, :mod:`.oracle`).

See the README for the commands, texts, figures and every choice the paper leaves open.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from skillstate.plugin import EnvironmentSpec, hookimpl

__all__ = [
    "create_environment",
    "skillstate_register_benchmarks",
    "skillstate_register_environments",
]

__version__ = "0.1.0"


def create_environment(options: Mapping[str, Any], snapshot: Any) -> Any:
    """The factory: imports the environment only when a session uses it."""
    from .environment import RepoEnvironment

    return RepoEnvironment(options, snapshot)


@hookimpl
def skillstate_register_environments(register: Callable[[EnvironmentSpec], None]) -> None:
    register(
        EnvironmentSpec(
            name="repo",
            factory=create_environment,
            description="software repository: branches, commits, pull requests, CI and releases "
            "(the paper's environment 2), seeded episodes with noise and drift",
        )
    )


@hookimpl(optionalhook=True)  # the bench plugin's hook: absent when bench is blocked
def skillstate_register_benchmarks(register: Callable[[Any], None]) -> None:
    from .benchmark import REPO_BENCHMARK

    register(REPO_BENCHMARK)
