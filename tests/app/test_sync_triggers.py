"""What starts a sync with the git remote and what the person sees: `/sync` in the
chat, `POST /api/v1/sync` (a git server's push webhook), and a conflict told in the
chat with a button for each version, which settles it in one commit."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
import pytest

from app.api import CaptureApi
from app.backups import Backups, conflict_notifier
from app.http import HttpServer
from app.runtime import Runtime
from bot.events import Conversation, NoRoute, Reply
from storage.db.mcp_tokens import McpTokens
from storage.db.people import new_identity
from tests.bot.helpers import git_log, message, press
from tests.fakes.brain import running_brain
from tests.scheduler.outbox import add_ada
from tests.storage.vault.sync_support import DEVICE, Device, bare_remote, run_git

NOTE = "ideas/garden-plan.md"
COPY_PREFIX = "ideas/garden-plan (conflict "
LAPTOP_BUTTON = f"Keep {DEVICE}'s version"


@pytest.fixture
async def brain(tmp_path: Path, database_url: str) -> AsyncIterator[Runtime]:
    remote = bare_remote(tmp_path / "remote.git")
    async with running_brain(
        tmp_path, database_url, BRAINBOT_GIT_REMOTE=str(remote), BRAINBOT_RATE_LIMIT="0"
    ) as runtime:
        yield runtime


async def conflicting_edits(brain: Runtime, tmp_path: Path) -> Device:
    """The bot and the laptop change the same line of the garden plan."""
    await brain.store.create("ideas", "Garden plan", "Dig the beds\nSow the beans")
    assert (await brain.store.sync_remote(str(tmp_path / "remote.git"))).outcome == "pushed"
    laptop = Device(tmp_path / "remote.git", tmp_path / "laptop")
    laptop.write(NOTE, laptop.read(NOTE).replace("Sow the beans", "Sow the broad beans"))
    laptop.commit()
    laptop.push()
    await brain.store.update(NOTE, body="Dig the beds\nSow the runner beans")
    return laptop


async def test_sync_in_the_chat_tells_of_a_conflict_and_its_buttons_settle_it(
    brain: Runtime, tmp_path: Path
) -> None:
    (said,) = await brain.engine.handle(message("/sync"))
    assert said.text == "The remote was empty; it now has your notes."
    laptop = await conflicting_edits(brain, tmp_path)

    said, conflict = await brain.engine.handle(message("/sync"))

    assert said.text.startswith("Merged what your devices pushed")
    copy = next(p for p in brain.store.vault.note_paths("ideas") if p.startswith(COPY_PREFIX))
    assert conflict.text == (
        f"⚠️ {NOTE} was changed here and on {DEVICE} at the same lines. Nothing is lost: "
        f"{NOTE} holds the bot's version, {copy} holds {DEVICE}'s. Which one should the note "
        "keep? (The other is removed; git keeps it.)"
    )
    assert [b.label for b in conflict.buttons] == ["Keep the bot's version", LAPTOP_BUTTON]

    (settled,) = await brain.engine.handle(press(conflict, LAPTOP_BUTTON))

    assert settled.text == f"✓ {NOTE} keeps {DEVICE}'s version; {copy} is removed."
    assert "Sow the broad beans" in (await brain.store.read(NOTE)).body
    assert not (brain.store.vault.root / copy).exists()
    assert git_log(brain.store.vault.root)[0] == f"resolve {NOTE}"
    assert [h.path for h in (await brain.store.search("runner")).hits] == []
    assert await brain.engine.handle(press(conflict, "Keep the bot's version")) == []
    (said,) = await brain.engine.handle(message("/sync"))
    laptop.pull()
    assert "Sow the broad beans" in laptop.read(NOTE) and not (laptop.root / copy).exists()


async def test_sync_without_a_remote_says_how_to_set_one(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        (said,) = await brain.engine.handle(message("/sync"))
    assert "BRAINBOT_GIT_REMOTE" in said.text


async def test_a_push_webhook_syncs_the_vault_and_tells_of_conflicts(
    brain: Runtime, tmp_path: Path
) -> None:
    told: list[tuple[Conversation, Reply]] = []

    async def deliver(conversation: Conversation, reply: Reply) -> None:
        if conversation.platform == "console":  # not running in this process
            raise NoRoute(conversation.platform)
        told.append((conversation, reply))

    backups = Backups(
        str(tmp_path / "remote.git"), notify=conflict_notifier(brain.vaults, brain.records, deliver)
    )
    api = CaptureApi()
    http = HttpServer("127.0.0.1", 0, max_body=1_000_000)
    api.mount(http.app)
    await http.start()
    api.start(brain, None, backups)
    # Ada started in the terminal, then linked Telegram: the terminal is not running.
    ada = await add_ada(brain, platform="console", user_id="ada", chat_id="console")
    async with brain.database.engine.begin() as conn:
        await conn.execute(new_identity(ada.id, "test", "U1", "Ada", "chat-1", datetime.now(UTC)))
    _, token = await McpTokens(brain.database.engine).create(ada.id, "gitea", brain.engine.clock())
    url = f"http://127.0.0.1:{http.port}/api/v1/sync"
    bearer = {"Authorization": f"Bearer {token}"}
    gitea_push = {"ref": "refs/heads/main", "commits": [{"message": "vault backup"}]}
    try:
        async with aiohttp.ClientSession() as session:
            async with session.post(url, json=gitea_push) as response:
                assert response.status == 401
            async with session.post(url, json=gitea_push, headers=bearer) as response:
                assert response.status == 200
                assert (await response.json())["outcome"] == "empty-remote"
            await conflicting_edits(brain, tmp_path)

            async with session.post(url, json=gitea_push, headers=bearer) as response:
                answer = await response.json()
    finally:
        api.stop()
        await http.stop()

    assert response.status == 200 and answer["outcome"] == "merged"
    [conflict] = answer["conflicts"]
    assert conflict["path"] == NOTE and conflict["copy"].startswith(COPY_PREFIX)
    assert answer["head"] == brain.store.vault.head()
    [(where, reply)] = told
    assert where == Conversation("test", "chat-1")
    assert reply.text.startswith(f"⚠️ {NOTE} was changed here and on {DEVICE}")
    assert [b.label for b in reply.buttons] == ["Keep the bot's version", LAPTOP_BUTTON]
    hits = [h.path for h in (await brain.store.search("broad beans")).hits]
    assert hits == [conflict["copy"]]


async def test_a_vault_whose_remote_fails_never_stops_another(
    tmp_path: Path, database_url: str
) -> None:
    remotes = tmp_path / "brains"
    remotes.mkdir()
    template = str(remotes / "{person}.git")
    async with running_brain(tmp_path, database_url, BRAINBOT_GIT_REMOTE=template) as brain:
        ada = await add_ada(brain)
        bob = await brain.records.people.add(
            platform="test",
            platform_user_id="U2",
            name="Bob",
            timezone=None,
            home_chat_id="chat-2",
            now=brain.engine.clock(),
        )
        ada_vault = await brain.vaults.of_person(ada.id, ada.name)
        bob_vault = await brain.vaults.of_person(bob.id, bob.name)
        bare_remote(remotes / f"{bob_vault.name}.git")  # Ada's remote does not exist
        backups = Backups(template)
        for vault in (ada_vault, bob_vault):
            await backups.opened(vault, await brain.vaults.store(vault))
        bob_store = await brain.vaults.store(bob_vault)
        await bob_store.create("ideas", "Bob's idea", "pushed despite Ada's remote")

        rounds = await backups.sync()

        assert rounds[ada_vault.id].outcome == "failed"
        # "pushed" by the round, or "nothing-new" when its pusher was quicker.
        assert rounds[bob_vault.id].outcome in {"pushed", "nothing-new"}
        bob_remote = remotes / f"{bob_vault.name}.git"
        assert run_git(bob_remote, "rev-parse", "main").stdout.strip() == bob_store.vault.head()
        problems = await backups.problems()
        assert problems is not None and problems.startswith(f"{ada_vault.name}: ")
        assert bob_vault.name not in problems
        await backups.stop(push_within=5)
