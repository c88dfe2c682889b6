"""Files of a vault that are not read as notes (what a message shared, a daily-note
template) are read through the Store too, held to a note's rules: a checked path,
only a regular file inside the vault, never more than the cap."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from storage.errors import EntryNotFound, EntryTooLarge, NotAFile, UnsafePath
from tests.storage.index.index_support import opened_store
from tests.storage.vault.vault_support import ANN


async def test_a_shared_file_is_read_whole_up_to_the_cap(tmp_path: Path, database_url: str) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        (path,) = await store.write_attachments([("menu.pdf", b"%PDF-1.4 soup")], author=ANN)
        assert await store.read_file(path, 100) == b"%PDF-1.4 soup"
        with pytest.raises(EntryTooLarge):
            await store.read_file(path, 5)
        with pytest.raises(EntryNotFound):
            await store.read_file("attachments/gone.pdf", 100)


async def test_what_leads_out_of_the_vault_or_is_no_file_is_refused(
    tmp_path: Path, database_url: str
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("the neighbour's password")
    async with opened_store(tmp_path / "vault", database_url) as store:
        root = store.vault.root
        (root / "attachments").mkdir(exist_ok=True)
        (root / "attachments/link.txt").symlink_to(outside)
        os.mkfifo(root / "attachments/pipe.txt")
        for path in ("../secret.txt", "attachments/link.txt", ".git/config"):
            with pytest.raises(UnsafePath):
                await store.read_file(path, 1000)
        with pytest.raises(NotAFile):
            await store.read_file("attachments/pipe.txt", 1000)  # would block a plain read
        with pytest.raises(UnsafePath):
            await store.read_file("attachments/menu.pdf", 1000, note=True)


async def test_the_vault_says_where_its_daily_notes_are(tmp_path: Path, database_url: str) -> None:
    async with opened_store(tmp_path / "vault", database_url) as store:
        assert await store.daily_notes("auto") is None  # no Obsidian settings
        assert await store.daily_notes("off") is None
        (store.vault.root / ".obsidian").mkdir()
        settings = {"folder": "Daily", "format": "D MMM YYYY", "template": "Templates/Day"}
        (store.vault.root / ".obsidian/daily-notes.json").write_text(json.dumps(settings))
        notes = await store.daily_notes("auto")
        assert notes is not None and notes.folder == "Daily" and notes.template == "Templates/Day"
        journal = await store.daily_notes("journal")
        assert journal is not None and journal.folder == "journal"
