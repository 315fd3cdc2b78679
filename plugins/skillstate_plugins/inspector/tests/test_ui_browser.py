"""The inspector in a real browser: Debian's headless Chromium driven by Playwright.

Opens the list, clicks a run and sees its timeline; runs ``skillstate patch`` in
another process and sees the new version appear without a reload; opens a diff;
checks that the XSS canaries planted in states, labels, observations, P and a skill
name never run (the flag an injected script would set stays unset, no dialog opens);
and saves screenshots (laptop and phone widths) under ``tmp/artifacts/ui/`` of the
directory the tests run in.

Needs ``/usr/bin/chromium`` (``apt-get install chromium chromium-driver``) and the
``playwright`` package (the test extra); never ``playwright install``. Skipped with
the reason when either is missing, failed under ``CI=true``.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
from pathlib import Path

import pytest
from skillstate_testing import make_host, require_service

from skillstate.plugin.runtime import Runtime

from .support import IMG, SID, UiServer, drive_session, run_skillstate, seed

CHROMIUM = os.environ.get("SKILLSTATE_TEST_CHROMIUM", "/usr/bin/chromium")
ARTIFACTS = Path("tmp") / "artifacts" / "ui"
WAIT_MS = 20_000


_INJECTED = """() => document.querySelectorAll(
  'img, iframe, object, embed, [onerror], [onload], [onclick], script:not([src$="/static/live.js"])'
).length"""
"""How many elements an agent's strings made (0: every one stayed text). The CSP
keeps injected handlers from running, so the canary flag alone cannot show an
escaping bug; this count does."""


def _browser_missing() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install playwright; it is in the test extra)"
    if not (Path(CHROMIUM).exists() or shutil.which(CHROMIUM)):
        return f"no Chromium at {CHROMIUM} (apt-get install -y chromium chromium-driver)"
    return None


@pytest.fixture
def browser():
    reason = _browser_missing()
    require_service(reason is None, reason or "")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-dev-shm-usage"]
        )
        try:
            yield launched
        finally:
            launched.close()


def test_list_run_live_diff_and_no_xss_in_a_real_browser(browser, tmp_path: Path) -> None:
    url = f"file:{tmp_path}/state"
    facts = seed(url)
    rig, head = facts["rig"], facts["rig_head"]
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = UiServer(url, tmp_path)
    dialogs: list[str] = []
    errors: list[str] = []
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        page = context.new_page()
        page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        page.on("pageerror", lambda e: errors.append(str(e)))

        page.goto(server.base + "/")
        page.wait_for_selector("table.runs")
        assert page.locator("a.run-link").count() == 3
        # the hostile skill name is shown as text, in the table and the filter
        assert "<script>window.__pwned = 1</script>skill" in page.inner_text("table.runs")
        page.screenshot(path=str(ARTIFACTS / "list.png"), full_page=True)

        page.click(f"a.run-link:text-is('{rig}')")
        page.wait_for_selector("#timeline tbody tr")
        rows = page.locator("#timeline tbody tr")
        assert rows.count() == head
        assert rows.first.get_attribute("data-version") == str(head)
        # a label an agent wrote is text, not markup
        assert '"><img src=x onerror="window.__pwned = 1">' in rows.first.inner_text()
        page.screenshot(path=str(ARTIFACTS / "run.png"), full_page=True)

        page.evaluate("window.__sameDocument = 'yes'")  # gone if the page were reloaded
        assert page.inner_text("#run-phase") == "green"
        done = run_skillstate(
            "--store",
            url,
            "patch",
            rig,
            "--step",
            f"written-live {IMG}",
            "--json",
            '{"tests": {"fail": 7, "pass": 1}, "phase": "red"}',
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        new = page.locator(f'#timeline tr[data-version="{head + 1}"]')
        new.wait_for(timeout=WAIT_MS)  # no reload: the page's script polled for it
        assert "written-live" in new.inner_text() and "tests" in new.inner_text()
        # the row the script built holds the hostile label as text; CSP would stop the
        # handler from running, so look at the DOM itself: no element an agent wrote
        assert IMG in new.inner_text()
        assert page.evaluate(_INJECTED) == 0
        assert page.inner_text("#run-version") == str(head + 1)
        # the header and the diff inputs follow too, not only the table
        assert page.inner_text("#run-phase") == "red"
        assert page.inner_text("#version-count") == f"{head + 1} versions"
        assert page.input_value("#diff-to") == str(head + 1)
        assert page.input_value("#diff-from") == str(head)
        assert page.get_attribute("#diff-to", "max") == str(head + 1)
        assert page.evaluate("window.__sameDocument") == "yes"
        assert page.is_visible("#stale")
        page.screenshot(path=str(ARTIFACTS / "run-live.png"), full_page=True)

        new.locator("a:text-is('diff')").click()
        page.wait_for_selector("table.diff")
        assert f"Version {head} → {head + 1}" in page.inner_text("h1")
        assert "tests.fail" in page.inner_text("table.diff")
        page.screenshot(path=str(ARTIFACTS / "diff.png"), full_page=True)

        page.goto(server.base + "/runs/sess-1")
        page.wait_for_selector("#timeline")
        # open every <details>, so that the text inside is rendered too
        page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
        text = page.inner_text("main")
        assert "<script>window.__pwned = 1</script>" in text  # a state key / value, as text
        assert "observed <script>" in text
        page.screenshot(path=str(ARTIFACTS / "session.png"), full_page=True)

        # a step the environment rejects appears live with its attempt and its reason
        version = int(page.get_attribute("#timeline", "data-head") or 0)
        host = make_host(url)
        runtime = Runtime(host=host)
        attempt = {"type": "fail", "reason": f"refused {IMG}", "reject_transition": True}
        answer = runtime.execute_step("sess-1", "r", {"count": 3}, attempt)
        runtime.close()
        host.close()
        assert answer["meta"]["rolled_back"] is True, answer
        live = page.locator(f'#timeline tr[data-version="{version + 1}"]')
        live.wait_for(timeout=WAIT_MS)
        cell = live.locator('td[data-label="Action"]').inner_text()
        assert "rejected (" in cell and "reject_transition" in cell, cell
        assert f"refused {IMG}" in cell, cell
        assert page.evaluate(_INJECTED) == 0

        page.goto(server.base + "/runs/sess-1/diff?from=1&to=4")
        page.wait_for_selector("table.diff")

        narrow = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        phone = narrow.new_page()
        phone.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
        phone.goto(server.base + "/")
        phone.wait_for_selector("table.runs")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 2, f"the list scrolls sideways on a phone ({width}px)"
        phone.screenshot(path=str(ARTIFACTS / "list-narrow.png"), full_page=True)
        phone.goto(server.base + f"/runs/{rig}")
        phone.wait_for_selector("#timeline")
        width = phone.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 2, f"the run page scrolls sideways on a phone ({width}px)"
        phone.screenshot(path=str(ARTIFACTS / "run-narrow.png"), full_page=True)

        for each in (page, phone):
            assert each.evaluate("typeof window.__pwned") == "undefined"
            assert each.evaluate(_INJECTED) == 0
        assert dialogs == []
        assert errors == []
        narrow.close()
        context.close()
    finally:
        server.stop()
    for name in ("list", "run", "run-live", "diff", "session", "list-narrow", "run-narrow"):
        assert (ARTIFACTS / f"{name}.png").stat().st_size > 5000, name


_UNISOLATED = """() => {
  const found = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walk.nextNode(); node; node = walk.nextNode()) {
    if (!/[\\u202a-\\u202e\\u2066-\\u2069]/.test(node.data)) continue;
    const style = getComputedStyle(node.parentElement).unicodeBidi;
    if (!['isolate', 'isolate-override', 'plaintext'].includes(style)) {
      found.push(node.parentElement.tagName + ' ' + style + ': ' + node.data.slice(0, 40));
    }
  }
  return found;
}"""
"""The text nodes holding a bidi override whose element does not isolate them."""


def test_bidi_overrides_an_agent_wrote_are_isolated_in_a_real_browser(
    browser, tmp_path: Path
) -> None:
    """A U+202E in a next action, a step label, a state key and value, a skill name:
    before, shown unisolated (it could reorder the text after it on the line); now every
    element holding one is ``unicode-bidi: isolate``, on every page and in a live row."""
    url = f"file:{tmp_path}/state"
    seed(url)
    rlo = "\u202egnp.exe"
    done = run_skillstate(
        "--store",
        url,
        "init",
        "rig-task",
        "bidi-1",
        "--json",
        json.dumps({"nextAction": rlo}),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    patch = {"decisions": [f"keep {rlo} here"], "nextAction": f"{rlo} then"}
    done = run_skillstate(
        "--store",
        url,
        "patch",
        "bidi-1",
        "--step",
        f"label {rlo}",
        "--json",
        json.dumps(patch),
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    server = UiServer(url, tmp_path)
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        for path in ("/", "/runs/bidi-1", "/runs/bidi-1/at/1", "/runs/bidi-1/diff/2"):
            page.goto(server.base + path)
            page.wait_for_selector("main")
            page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
            assert "\u202e" in page.inner_text("main"), path  # shown, as the agent wrote it
            assert page.evaluate(_UNISOLATED) == [], path
        page.goto(server.base + "/runs/bidi-1")
        page.wait_for_selector("#timeline tbody tr")
        done = run_skillstate(
            "--store",
            url,
            "patch",
            "bidi-1",
            "--step",
            f"live {rlo}",
            "--json",
            json.dumps({"decisions": [rlo]}),
            cwd=tmp_path,
        )
        assert done.returncode == 0, done.stderr
        page.locator('#timeline tr[data-version="3"]').wait_for(timeout=WAIT_MS)
        assert page.evaluate(_UNISOLATED) == []
    finally:
        server.stop()


_PROMPT = "() => document.getElementById('prompt').textContent"
_PARTS = """() => Array.from(document.querySelectorAll('#prompt [data-part]'))
  .map(n => [n.dataset.part, n.textContent])"""


def test_the_prompt_page_shows_what_the_model_saw_in_a_real_browser(
    browser, tmp_path: Path
) -> None:
    """The prompt page of each version (a schema rollback and an environment rejection
    among them) is, character for character, the prompt the runtime rendered then; Copy
    puts the exact text on the clipboard (the CR the page shows escaped included); a new
    step's live row links its prompt."""
    from skillstate.plugin import excerpt

    url = f"file:{tmp_path}/state"
    seen = drive_session(url)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    server = UiServer(url, tmp_path)
    errors: list[str] = []
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.base)
        page = context.new_page()
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(server.base + f"/runs/{SID}")
        page.click('#timeline tr[data-version="3"] a.prompt-link')  # the schema rollback
        page.wait_for_selector("#prompt")
        for version in (3, 4, 5, 6, 7):
            assert f"at version {version} of 7" in page.inner_text("h1")
            shown = page.evaluate(_PROMPT)
            assert shown == excerpt(seen[version]["paper"], 10**6), version
            if version < 6:  # no control character in it: the very text
                assert shown == seen[version]["paper"], version
            parts = dict(page.evaluate(_PARTS))
            assert list(parts) == ["P", "Σ", "O"] and parts["P"] == "Count <b>up</b> & keep a log."
            if version < 7:
                page.click("#prompt-next")
                page.wait_for_url(f"**/prompt?v={version + 1}")
        assert page.locator("#prompt-next").count() == 0
        page.click("#prompt-styles a:text-is('turn')")
        page.wait_for_url("**style=turn")
        assert page.evaluate(_PROMPT) == excerpt(seen[7]["turn"], 10**6)
        page.click("#prompt-prev")
        page.wait_for_url("**/prompt?v=6&style=turn")
        page.click("#copy-prompt")
        # a function, not an expression: Playwright polls an expression through eval(),
        # which the page's CSP (script-src 'self') refuses when the first check is false
        page.wait_for_function("() => document.getElementById('copy-state').textContent !== ''")
        assert page.inner_text("#copy-state") == "copied"
        assert page.evaluate("navigator.clipboard.readText()") == seen[6]["turn"]
        assert "\r\n" in seen[6]["turn"] and page.is_visible("#escaped")
        page.screenshot(path=str(ARTIFACTS / "prompt.png"), full_page=True)

        # a live session: the row the script adds links the new version's prompt
        host = make_host(url)
        runtime = Runtime(host=host)
        runtime.initialize_skill("live-p", "Say hi.", {"n": 0})
        page.goto(server.base + "/runs/live-p")
        page.wait_for_selector("#timeline")
        runtime.execute_step("live-p", "r", {"n": 1}, "hi")
        expected = runtime.paper_prompt("live-p")
        runtime.close()
        host.close()
        row = page.locator('#timeline tr[data-version="2"]')
        row.wait_for(timeout=WAIT_MS)
        row.locator("a.prompt-link").click()
        page.wait_for_selector("#prompt")
        assert page.evaluate(_PROMPT) == expected

        phone = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
        small = phone.new_page()
        small.goto(server.base + f"/runs/{SID}/prompt?v=2&style=paper-pretty")
        small.wait_for_selector("#prompt")
        width = small.evaluate("document.documentElement.scrollWidth")
        assert width <= 390 + 2, f"the prompt page scrolls sideways on a phone ({width}px)"
        small.screenshot(path=str(ARTIFACTS / "prompt-narrow.png"), full_page=True)
        assert errors == []
        phone.close()
        context.close()
    finally:
        server.stop()
