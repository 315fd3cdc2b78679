"""The deploy checklist's rules, through the real pipeline and the real CLI.

The fixtures ``skillstate_host`` and ``register_plugin`` come from skillstate's pytest
plugin (``skillstate_testing``), which pytest loads by itself once skillstate is installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from skillstate.plugin import Change, Problem, create_run, hookimpl, transition

CHECKLIST = [{"item": "run migrations", "done": True}, {"item": "notify on-call", "done": False}]


@pytest.fixture
def deploy(skillstate_host):
    """A store with one draft deploy run, 'rel-1', and a helper applying patches to it."""
    store = skillstate_host.open_store()
    seed = {"service": "api", "version": "2.4.0", "author": "bob", "checklist": CHECKLIST}
    outcome = create_run(skillstate_host, store, skillstate_host.skill("deploy"), "rel-1", seed)
    assert outcome.accepted, outcome.problems

    def patch(change, **kw):
        return transition(skillstate_host, store, "rel-1", Change(patch=change, **kw))

    patch.store = store
    return patch


def messages(outcome):
    return [p.message for p in outcome.problems]


def test_the_happy_path_reaches_deployed(deploy):
    done = [{**item, "done": True} for item in CHECKLIST]
    assert deploy({"checklist": done}).accepted
    assert deploy({"phase": "approved", "approved_by": "alice"}).accepted
    outcome = deploy({"phase": "deployed", "deployed_at": "2025-06-01T12:00:00Z"})
    assert outcome.accepted, outcome.problems
    assert outcome.record.state["phase"] == "deployed"
    assert [e.version for e in deploy.store.journal("rel-1")] == [1, 2, 3, 4]


def test_cannot_deploy_without_approved_by_and_nothing_changes(deploy):
    before = deploy.store.get("rel-1")
    outcome = deploy({"phase": "deployed"})
    assert not outcome.accepted
    assert messages(outcome) == [
        "phase 'deployed' requires approved_by",
        "phase 'deployed' can only follow 'approved' (was 'draft')",
    ]
    assert {p.source for p in outcome.problems} == {"deploy-checklist"}
    assert deploy.store.get("rel-1") == before


def test_cannot_skip_approval_even_with_an_approver(deploy):
    outcome = deploy({"phase": "deployed", "approved_by": "alice"})
    assert messages(outcome) == ["phase 'deployed' can only follow 'approved' (was 'draft')"]


def test_approval_needs_every_checklist_item_done(deploy):
    outcome = deploy({"phase": "approved", "approved_by": "alice"})
    assert messages(outcome) == ["checklist item 'notify on-call' is not done"]
    assert outcome.problems[0].path == "checklist[1].done"


def test_the_author_cannot_approve(deploy):
    deploy({"checklist": [{**item, "done": True} for item in CHECKLIST]})
    outcome = deploy({"phase": "approved", "approved_by": "bob"})
    assert messages(outcome) == ["approved_by must differ from the author ('bob')"]


def test_the_approver_is_fixed_once_approved_unless_revoked(deploy):
    deploy({"checklist": [{**item, "done": True} for item in CHECKLIST]})
    assert deploy({"phase": "approved", "approved_by": "alice"}).accepted
    outcome = deploy({"approved_by": "mallory"})
    assert messages(outcome) == ["approved_by cannot change after approval (was 'alice')"]
    assert deploy({"phase": "draft", "approved_by": None}).accepted  # revoking is allowed


def test_deployed_is_terminal(deploy):
    deploy({"checklist": [{**item, "done": True} for item in CHECKLIST]})
    deploy({"phase": "approved", "approved_by": "alice"})
    assert deploy({"phase": "deployed"}).accepted
    outcome = deploy({"phase": "approved"})
    assert not outcome.accepted and outcome.problems[0].code == "terminal"


def test_a_run_cannot_be_created_already_deployed(skillstate_host):
    store = skillstate_host.open_store()
    seed = {"phase": "deployed", "approved_by": "alice", "author": "bob"}
    outcome = create_run(skillstate_host, store, skillstate_host.skill("deploy"), "rel-2", seed)
    assert messages(outcome) == ["phase 'deployed' can only follow 'approved' (was 'draft')"]
    assert not store.exists("rel-2")


class ChangeFreeze:
    """A second, in-test policy plugin: nothing is deployed during a freeze."""

    @hookimpl
    def skillstate_guards(self, skill, before, after):
        if skill.name == "deploy" and after.get("phase") == "deployed":
            return [Problem("guard", "change freeze: no deploys today", "phase", "freeze")]
        return None


def test_another_plugin_can_add_a_rule_for_one_test(deploy, register_plugin):
    deploy({"checklist": [{**item, "done": True} for item in CHECKLIST]})
    deploy({"phase": "approved", "approved_by": "alice"})
    register_plugin(ChangeFreeze(), name="freeze")
    outcome = deploy({"phase": "deployed"})
    assert messages(outcome) == ["change freeze: no deploys today"]


def test_the_cli_enforces_the_same_rules(tmp_path: Path):
    cli = [
        str(Path(sys.executable).with_name("skillstate")),
        "--store",
        f"file:{tmp_path / 'state'}",
    ]

    def run(*args):
        return subprocess.run([*cli, *args], capture_output=True, text=True, timeout=60)

    seed = {"service": "web", "author": "bob", "checklist": [{"item": "smoke test", "done": True}]}
    assert run("init", "deploy", "web-7", "--json", json.dumps(seed)).returncode == 0
    refused = run("patch", "web-7", "--json", '{"phase": "deployed"}')
    assert refused.returncode != 0
    assert "phase 'deployed' requires approved_by" in refused.stdout + refused.stderr
    approved = run("patch", "web-7", "--json", '{"phase": "approved", "approved_by": "alice"}')
    assert approved.returncode == 0, approved.stderr
    assert run("patch", "web-7", "--json", '{"phase": "deployed"}').returncode == 0
    assert run("get", "web-7", "--field", "phase").stdout == "deployed\n"  # strings print raw
