"""A person's notes are theirs: two people share a bot (and even a chat), and no
tool, command, search, digest, approval or button of one reaches the other's vault."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text

from app.runtime import Runtime
from bot.events import ButtonPress, Reply
from bot.tools.registry import ToolContext
from tests.bot.helpers import CHAT, git_log, message, notes, press, sender, vault_of
from tests.fakes.brain import running_brain

ALICE, BOB = "U1", "U2"
SECRET = "projects/secret-launch-plan.md"


async def _ctx(brain: Runtime, user: str) -> ToolContext:
    event = message("(context)", user=user)
    now = brain.engine.clock()
    return await brain.engine.context(event, now)


async def _call(brain: Runtime, user: str, tool: str, **args: Any) -> dict[str, Any]:
    # Strict tool schemas: every argument is sent, null when not meant.
    spec = brain.engine.runner.tools[tool]
    args = dict.fromkeys(spec.arguments.model_fields) | args
    outcome = await brain.engine.runner.call(await _ctx(brain, user), tool, args)
    data: dict[str, Any] = json.loads(outcome.content)
    return data


async def _alice_has_a_secret(brain: Runtime) -> Path:
    (saved,) = await brain.engine.handle(message("project: Secret launch plan", user=ALICE))
    assert SECRET in saved.text
    await brain.engine.handle(message("idea: Budget", user=ALICE))
    # Alice is the first person: the owner, whose vault is the runtime's first store.
    await brain.store.update(SECRET, body="Launch in May. See [[Budget]].")
    return await vault_of(brain, "test", ALICE)


async def test_each_person_files_into_their_own_git_vault(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        alice = await _alice_has_a_secret(brain)
        await brain.engine.handle(message("idea: Bob's own thought", user=BOB))
        bob = await vault_of(brain, "test", BOB)
        assert alice == brain.settings.vault_dir  # the first person owns the configured vault
        assert bob.parent == brain.settings.data_dir / "vaults" and (bob / ".git").is_dir()
        assert notes(alice) == ["ideas/budget.md", SECRET]
        assert notes(bob) == ["ideas/bob-s-own-thought.md"]
        assert not any("Secret" in line for line in git_log(bob))


async def test_no_tool_reads_or_changes_another_persons_vault(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        alice = await _alice_has_a_secret(brain)
        before = (alice / SECRET).read_text()
        commits = git_log(alice)
        found = await _call(brain, BOB, "search_entries", query="secret launch plan")
        assert found["results"] == [], found
        assert (await _call(brain, BOB, "list_entries"))["entries"] == []
        for tool in ("get_entry", "list_backlinks", "delete_entry"):
            assert "no entry" in (await _call(brain, BOB, tool, path=SECRET))["error"]
        assert "no entry" in (await _call(brain, BOB, "list_backlinks", path="Budget"))["error"]
        assert (
            "no entry"
            in (await _call(brain, BOB, "update_entry", path=SECRET, body="mine now"))["error"]
        )
        assert (
            "no entry"
            in (await _call(brain, BOB, "move_entry", path=SECRET, category="ideas"))["error"]
        )
        # Alice's commit is not in Bob's history: he cannot undo it.
        alice_commit = (await brain.store.history(SECRET))[0].commit
        undone = await _call(brain, BOB, "undo", change=alice_commit)
        assert undone["error"] == f"no change {alice_commit!r} in the vault's history"
        # "Undo the latest change" is Bob's latest: his vault has none to undo.
        latest = await _call(brain, BOB, "undo")
        assert latest["error"] == "the vault's first commit cannot be undone"
        # Naming her vault or a path out of his own does not reach it either.
        for trick in (f"vault:{SECRET}", f"../vault/{SECRET}", str(alice / SECRET)):
            assert "error" in await _call(brain, BOB, "get_entry", path=trick)
        digest = await _call(brain, BOB, "generate_digest", kind="daily")
        assert "Secret" not in digest["digest"]
        await _call(brain, BOB, "capture", category="ideas", title="Mine", body="Bob's")
        assert (alice / SECRET).read_text() == before and git_log(alice) == commits
        assert notes(alice) == ["ideas/budget.md", SECRET]
        # Alice still finds hers, and not Bob's.
        hits = (await _call(brain, ALICE, "search_entries", query="secret launch"))["results"]
        assert [h["path"] for h in hits] == [SECRET]
        assert (await _call(brain, ALICE, "search_entries", query="Mine"))["results"] == []


async def test_commands_in_a_shared_chat_see_only_the_senders_notes(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _alice_has_a_secret(brain)
        for command in ("/search secret", "/list", "/backlinks Budget"):
            (reply,) = await brain.engine.handle(message(command, user=BOB))
            assert "Secret launch plan" not in reply.text and SECRET not in reply.text, command
        (reply,) = await brain.engine.handle(message(f"/get {SECRET}", user=BOB))
        assert reply.text.startswith("I found no note") and "Launch in May" not in reply.text
        (digest, *_) = await brain.engine.handle(message("/digest", user=BOB))
        assert "Secret" not in digest.text


async def test_nobody_presses_another_persons_approval_or_buttons(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        alice = await _alice_has_a_secret(brain)
        card = _card(await brain.engine.handle(message(f"/delete {SECRET}", user=ALICE)))
        for label in ("Approve", "Reject"):
            (refused,) = await brain.engine.handle(press(card, label, user=BOB))
            assert refused.text.startswith("Only the person who asked")
        assert (alice / SECRET).exists()
        # A low-confidence capture's category buttons are Alice's alone too.
        (inbox,) = await brain.engine.handle(message("hmm", user=ALICE))
        assert inbox.buttons  # a thought the classifier cannot place: pick a category
        (refused,) = await brain.engine.handle(press(inbox, "ideas", user=BOB))
        assert refused.text.startswith("Only the person who captured")
        assert (alice / "inbox/hmm.md").exists()
        # Alice's own press still works, in her vault.
        (done,) = await brain.engine.handle(press(card, "Approve", user=ALICE))
        assert done.text.startswith("Approved") and not (alice / SECRET).exists()


async def test_nobody_presses_another_persons_undo(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        alice = await _alice_has_a_secret(brain)
        (appended,) = await brain.engine.handle(
            message(f"/append {SECRET} Budget: 10k", user=ALICE)
        )
        assert [b.label for b in appended.buttons] == ["Undo"]
        after, commits = (alice / SECRET).read_text(), git_log(alice)
        (refused,) = await brain.engine.handle(press(appended, "Undo", user=BOB))
        assert refused.text.startswith("Only the person who made this change")
        # Nor with the button's record forged in his name: it is for Alice's vault.
        async with brain.database.engine.begin() as conn:
            await conn.execute(
                text(
                    "UPDATE button_actions SET user_id = (SELECT user_id FROM identities"
                    " WHERE platform_user_id = :bob) WHERE id = :id"
                ),
                {"bob": BOB, "id": appended.buttons[0].value},
            )
        (refused,) = await brain.engine.handle(press(appended, "Undo", user=BOB))
        assert refused.text.startswith("Only the person who made this change")
        assert (alice / SECRET).read_text() == after and git_log(alice) == commits


async def test_an_approval_runs_in_the_vault_it_was_made_for(
    tmp_path: Path, database_url: str
) -> None:
    """A forged press whose approval names another vault changes nothing there."""
    async with running_brain(tmp_path, database_url) as brain:
        alice = await _alice_has_a_secret(brain)
        await brain.engine.handle(message(f"idea: {Path(SECRET).stem}", user=BOB))
        card = _card(await brain.engine.handle(message(f"/delete {SECRET}", user=ALICE)))
        approval_id = card.buttons[0].value
        async with brain.database.engine.begin() as conn:
            await conn.execute(
                text(
                    "UPDATE approvals SET user_id = (SELECT user_id FROM identities"
                    " WHERE platform_user_id = :bob) WHERE id = :id"
                ),
                {"bob": BOB, "id": approval_id},
            )
        forged = ButtonPress("forged", CHAT, sender(BOB), "approve", approval_id, datetime.now(UTC))
        (refused,) = await brain.engine.handle(forged)
        assert refused.text.startswith("Only the person who asked")
        assert (alice / SECRET).exists()


def _card(replies: list[Reply] | tuple[Reply, ...] | Any) -> Reply:
    (card,) = [r for r in replies if r.buttons]
    return card
