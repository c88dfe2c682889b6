"""A document any chat member may send must not stop the vault: `evil.md` holding
`hello\\0world` (NUL is valid UTF-8, and Postgres text cannot hold it) is kept as an
attachment, and the vault goes on: the capture answers as usual, a later hand edit is
found by search, a later capture answers as usual. Fake Bot API → real PTB
Application → real engine (temporary vault, fresh database, no model)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from adapters.telegram.app import TelegramAdapter
from app.commands.doctor_database import skipped_this_week
from app.runtime import Runtime
from app.watch import sync_store
from bot.engine import FAILED, FAILED_KEPT
from tests.adapters.telegram.conftest import make_adapter
from tests.bot.helpers import notes
from tests.fakes.brain import running_brain
from tests.fakes.telegram_api import FakeTelegram
from tests.fakes.telegram_updates import Updates


@pytest.fixture
async def brain(tmp_path: Path, database_url: str) -> AsyncIterator[Runtime]:
    async with running_brain(tmp_path, database_url, BRAINBOT_FETCH=False) as runtime:
        yield runtime


@pytest.fixture
async def telegram(brain: Runtime, fake: FakeTelegram) -> AsyncIterator[TelegramAdapter]:
    adapter = make_adapter(fake)
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    yield adapter
    await adapter.stop()


async def said(fake: FakeTelegram, updates: Updates, text: str) -> str:
    """Send `text` in the chat; the bot's answer."""
    before = len(fake.calls("sendMessage"))
    fake.queue_update(updates.message(text))
    await fake.wait_for("sendMessage", before + 1, within=15)
    return str(fake.calls("sendMessage")[before]["text"])


async def test_a_document_holding_nul_is_an_attachment_and_the_vault_goes_on(
    brain: Runtime, telegram: TelegramAdapter, fake: FakeTelegram
) -> None:
    vault = brain.settings.vault_dir
    updates = Updates()
    fake.add_file("evil1", b"hello\x00world")
    document = {"file_id": "evil1", "file_unique_id": "e1", "file_name": "evil.md"}
    document["mime_type"] = "text/markdown"
    fake.queue_update(updates.message(document=document, caption="minutes of the board"))
    await fake.wait_for("sendMessage", within=15)

    answer = str(fake.calls("sendMessage")[0]["text"])
    assert answer not in (FAILED, FAILED_KEPT) and "went wrong" not in answer
    assert (vault / "attachments/evil.md").read_bytes() == b"hello\x00world"
    (note,) = [path for path in notes(vault) if not path.startswith("attachments/")]
    assert "![[attachments/evil.md]]" in (vault / note).read_text()

    # A note saved by hand afterwards is indexed by the sync (what the watcher and the
    # 30 s sync run) and found by search.
    (vault / "ideas" / "heron.md").write_text("---\ntitle: Heron\n---\nA grey heron fishing.\n")
    await sync_store(brain.store, "changed on disk", brain.skips)
    found = await said(fake, updates, "/search heron")
    assert "Heron" in found and "went wrong" not in found
    # The attachment is no note of its own: search does not offer it.
    assert "evil" not in await said(fake, updates, "/search hello")

    later = await said(fake, updates, "remember to water the ferns")
    assert "went wrong" not in later
    assert await skipped_this_week(brain.database) == []
