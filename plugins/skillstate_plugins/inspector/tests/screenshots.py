"""The screenshots in docs/ui.md: a demo store, a real ``skillstate ui``, headless Chromium.

Run: ``.venv/bin/python -m skillstate_plugins.inspector.tests.screenshots docs/img`` (needs
/usr/bin/chromium and playwright, as the browser test does). Writes ui-list.png, ui-run.png, ui-session.png,
ui-diff.png (1280 px wide) and ui-phone.png (390 px).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

from skillstate_testing import make_host

from .support import UiServer

__all__ = ["demo_store", "main"]


def demo_store(url: str) -> None:
    """A few rig runs at different phases, and a session with steps and a rollback."""
    from skillstate.plugin import Change, create_run, transition
    from skillstate.plugin.runtime import Runtime

    host = make_host(url)
    store = host.open_store()
    rig = host.skill("rig-task")
    tasks = {
        "auth-login": ("feat/login", ["red", "green", "refactor"]),
        "billing-retry": ("fix/billing-retry", ["red", "green", "pr-open", "review-loop", "done"]),
        "search-index": ("feat/search", ["red"]),
        "docs-cli": ("docs/cli", []),
    }
    for run_id, (branch, phases) in tasks.items():
        create_run(host, store, rig, run_id, {"branch": branch, "nextAction": "write the spec"})
        for n, phase in enumerate(phases, 1):
            patch = {
                "phase": phase,
                "tests": {
                    "command": "pytest -q",
                    "status": "red" if phase == "red" else "green",
                    "fail": 2 if phase == "red" else 0,
                    "pass": 5 + n,
                },
                "nextAction": {
                    "red": "make the failing tests pass",
                    "green": "refactor the token check",
                    "refactor": "open the PR",
                    "pr-open": "wait for the review",
                    "review-loop": "answer the review",
                    "done": "",
                }[phase],
            }
            if phase == "pr-open":
                patch["pr"] = {"number": 412, "url": "https://example.test/pr/412"}
                patch["review"] = {"p0": 0, "p1": 0}
            outcome = transition(host, store, run_id, Change(patch=patch, label=phase), skill=rig)
            assert outcome.accepted, outcome.problems
    runtime = Runtime(host=host)
    runtime.initialize_skill(
        "triage-7",
        "Triage the failing checkout test.\n1. Reproduce it.\n2. Find the commit.\n"
        "3. Write down the cause in state.findings before proposing a fix.",
        {"goal": "find why test_checkout fails", "findings": [], "attempts": 0},
        state_schema={
            "type": "object",
            "properties": {"attempts": {"type": "integer"}, "findings": {"type": "array"}},
        },
        environment="mock",
    )
    runtime.execute_step(
        "triage-7", "(discarded)", {"attempts": 1}, "pytest tests/test_checkout.py -x"
    )
    runtime.execute_step("triage-7", "(discarded)", {"attempts": "two"}, "git bisect start")
    runtime.execute_step(
        "triage-7",
        "(discarded)",
        {"attempts": 2, "findings": ["fails since 3f2a9c: currency rounding"]},
        {"type": "echo", "message": "bisected to 3f2a9c"},
    )
    runtime.inject_observation("triage-7", "CI: test_checkout failed again on main (build 981)")
    runtime.close()
    host.close()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else "docs/img")
    out.mkdir(parents=True, exist_ok=True)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory(prefix="ui-shots-") as tmp:
        url = f"file:{tmp}/state"
        demo_store(url)
        server = UiServer(url, Path(tmp))
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(
                    executable_path="/usr/bin/chromium", args=["--no-sandbox"]
                )
                page = browser.new_page(viewport={"width": 1280, "height": 800})
                shots = {
                    "ui-list.png": "/",
                    "ui-run.png": "/runs/billing-retry",
                    "ui-session.png": "/runs/triage-7",
                    "ui-diff.png": "/runs/billing-retry/diff/4",
                }
                for name, path in shots.items():
                    page.goto(server.base + path)
                    page.wait_for_selector("main")
                    # show what the page holds: nested values and P opened
                    page.evaluate(
                        "document.querySelectorAll('dl.keys details, details.spec-box')"
                        ".forEach(d => { d.open = true; })"
                    )
                    page.screenshot(path=str(out / name), full_page=True)
                phone = browser.new_page(viewport={"width": 390, "height": 844}, is_mobile=True)
                phone.goto(server.base + "/")
                phone.wait_for_selector("table.runs")
                phone.screenshot(path=str(out / "ui-phone.png"), full_page=True)
                browser.close()
        finally:
            server.stop()
    for name in sorted(out.glob("ui-*.png")):
        print(name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
