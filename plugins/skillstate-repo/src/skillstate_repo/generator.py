"""The seeded episode generator: a stream of feature requests and repository events.

``generate(seed, horizon, scenario, drift_at)`` → :class:`Episode` with exactly
``horizon`` events, the same for every runtime and policy (``random.Random(seed)``;
the paper's Algorithm 2 is for the warehouse, this is its analogue). Each feature
request (issue) runs a fixed life cycle, interleaved with the others (at most three
open at once, so Σ stays bounded):

``assign`` → ``open_pr`` → [``ci_failed``, right after it: its first CI run fails] →
[``comment``: a reviewer asks for a test re-run] → ``approve``

and repository events fill the rest: ``release`` (always possible), ``hotfix`` (a
release exists) and ``rollback`` (a live release exists). A feature is only started
when its whole life cycle still fits before the horizon, so every feature can be
merged in time: an oracle scores 1.00 at every T.

A drift scenario takes the first open feature whose next event is its approval, at
or after ``drift_at``: events ``at`` and ``at + 1`` belong to others, ``at + 2`` is the
approval (the follow-up). ``force-push`` and ``flaky-ci`` add a second approval later
(the follow-up's right answer fixes or re-runs CI first); ``pr-closed`` ends the
feature (its PR is closed silently: nobody can merge it).
"""

from __future__ import annotations

import functools
import random

import attrs

__all__ = ["SCENARIOS", "DriftDoesNotFit", "DriftPlan", "Episode", "Event", "Feature", "generate"]

SCENARIOS = ("force-push", "flaky-ci", "pr-closed")
MAX_OPEN = 3
_SLUGS = (
    "export-csv", "dark-mode", "rate-limit", "audit-log", "search-index", "retry-jobs",
    "sso-login", "billing-api", "webhooks", "i18n", "two-factor", "bulk-import",
    "avatar-upload", "api-keys", "email-digest", "saved-filters",
)  # fmt: skip
REVIEWERS = ("alice", "bob", "carol", "dave")


class DriftDoesNotFit(ValueError):
    """A drift scenario that cannot be placed within the horizon (never skipped silently)."""


@attrs.frozen
class Feature:
    """A feature request: issue number, title, branch, file, and whether its first CI run fails."""

    issue: str
    title: str
    branch: str
    file: str
    fails: bool


@attrs.frozen
class Event:
    """One event: ``kind``, the issue it is about (or ``""``), a reviewer, a version, a line."""

    kind: str
    issue: str = ""
    reviewer: str = ""
    version: str = ""
    line: int = 0
    pr: str = ""  # the ground truth's pull request number for the issue


@attrs.frozen
class DriftPlan:
    """``scenario``, its event ``at`` (the drift happens before it is delivered), ``issue``, ``follow_up``."""

    scenario: str
    at: int
    issue: str
    follow_up: int


@attrs.frozen
class Episode:
    events: tuple[Event, ...]
    features: tuple[Feature, ...]
    drift: DriftPlan | None

    def feature(self, issue: str) -> Feature:
        return next(f for f in self.features if f.issue == issue)


class _Plan:
    def __init__(self, feature: Feature, steps: list[str]) -> None:
        self.feature, self.steps = feature, steps


def _feature(rng: random.Random, n: int) -> tuple[Feature, list[str]]:
    slug = _SLUGS[n % len(_SLUGS)] + (f"-{n // len(_SLUGS) + 1}" if n >= len(_SLUGS) else "")
    fails = rng.random() < 0.35
    comment = rng.random() < 0.3
    issue = str(11 + n)
    title = slug.replace("-", " ").capitalize()
    feature = Feature(issue, title, f"feature/{slug}", f"src/{slug.replace('-', '_')}.py", fails)
    steps = [
        "assign",
        "open_pr",
        *(["ci_failed"] if fails else []),
        *(["comment"] if comment else []),
        "approve",
    ]
    return feature, steps


@functools.lru_cache(maxsize=64)
def generate(seed: int, horizon: int, scenario: str | None = None, drift_at: int = 0) -> Episode:
    """The episode for ``seed`` and ``horizon`` (``len(events) == horizon``), cached."""
    rng = random.Random(seed)
    events: list[Event] = []
    features: list[Feature] = []
    open_: list[_Plan] = []
    prs: dict[str, str] = {}
    next_pr = 1
    releases: list[str] = []
    live: list[str] = []
    merged_since = 0
    drift: DriftPlan | None = None
    frozen: _Plan | None = None

    def emit(plan: _Plan) -> None:
        nonlocal next_pr, merged_since
        feature = plan.feature
        kind = plan.steps.pop(0)
        pr = prs.get(feature.issue, "")
        if kind == "open_pr":
            pr = prs[feature.issue] = str(next_pr)
            next_pr += 1
        reviewer = rng.choice(REVIEWERS) if kind in ("comment", "approve") else ""
        events.append(Event(kind, feature.issue, reviewer, line=rng.randint(3, 240), pr=pr))
        if kind == "open_pr" and plan.steps and plan.steps[0] == "ci_failed":
            events.append(Event(plan.steps.pop(0), feature.issue, line=rng.randint(3, 240), pr=pr))
        if not plan.steps and plan in open_:
            open_.remove(plan)
            merged_since += 1

    def repo_event() -> None:
        nonlocal merged_since
        choices = ["release"]
        if releases:
            choices.append("hotfix")
        if len(live) > 1:
            choices.append("rollback")
        kind = rng.choice(choices)
        if kind == "release":
            version = f"v0.{len(releases) + 1}"
            releases.append(version)
            live.append(version)
            merged_since = 0
        elif kind == "hotfix":
            version = rng.choice(releases)
        else:
            version = live.pop()
        events.append(Event(kind, version=version))

    def need() -> int:
        return sum(len(p.steps) for p in open_)

    while len(events) < horizon:
        i = len(events)
        left = horizon - i
        if drift is not None and frozen is not None and i == drift.follow_up:
            emit(frozen)
            if frozen.steps:
                open_.append(frozen)
            frozen = None
            continue
        if scenario and drift is None and i >= drift_at:
            ready = [p for p in open_ if p.steps == ["approve"]]
            extra = 1 if scenario != "pr-closed" else 0
            if ready and need() + 2 + extra <= left:
                frozen = ready[0]
                open_.remove(frozen)
                frozen.steps = ["approve", "approve"] if extra else ["approve"]
                drift = DriftPlan(scenario, i, frozen.feature.issue, i + 2)
        busy = need() + (len(frozen.steps) if frozen else 0)
        slack = left - busy
        options: dict[str, int] = {}  # choice -> weight
        if open_:
            options["advance"] = 4
        if slack > 0:
            new_feature, steps = _feature(rng, len(features))
            if len(open_) + (1 if frozen else 0) < MAX_OPEN and len(steps) + 1 <= slack:
                options["start"] = 3
            options["repo"] = 1
        if not options:
            options["repo"] = 1
        elif slack <= 0 and open_:
            options = {"advance": 1}
        choice = rng.choices(list(options), weights=list(options.values()))[0]
        if (
            drift is not None
            and frozen is not None
            and i + 1 == drift.follow_up
            and choice == "advance"
        ):
            # the slot before the follow-up: a pair (open_pr + ci_failed) would run into it
            pairs = [p for p in open_ if p.steps[:2] == ["open_pr", "ci_failed"]]
            if pairs and len(pairs) == len(open_):
                choice = "repo"
        if choice == "start":
            features.append(new_feature)
            plan = _Plan(new_feature, steps)
            open_.append(plan)
            emit(plan)
        elif choice == "advance":
            candidates = open_
            if drift is not None and frozen is not None and i + 1 == drift.follow_up:
                candidates = [p for p in open_ if p.steps[:2] != ["open_pr", "ci_failed"]] or open_
            emit(rng.choice(candidates))
        else:
            repo_event()
    if scenario and drift is None:
        raise DriftDoesNotFit(
            f"repo scenario {scenario} does not fit: it needs a pull request awaiting approval at "
            f"or after drift_at={drift_at} and 3 more events before the horizon ({horizon}); use "
            "a smaller drift_at or a longer horizon"
        )
    return Episode(tuple(events[:horizon]), tuple(features), drift)
