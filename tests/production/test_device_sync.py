"""A device and a real `brainbot run` edit the same vault through its git remote: the
laptop pushes a note while the person captures in Telegram; the interval's sync
brings the laptop's note in (searchable in the chat) and the capture out."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest

from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.gitremote import bare_remote, remote_head
from tests.production.process import Brainbot
from tests.storage.vault.sync_support import Device

pytestmark = pytest.mark.slow  # starts a brainbot process


@pytest.mark.slow(seconds=5)
async def test_a_note_pushed_from_a_laptop_is_found_in_the_chat(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    env = fakes.env(
        tmp_path,
        database_url,
        slack=None,
        BRAINBOT_GIT_REMOTE=str(remote),
        BRAINBOT_GIT_PULL_INTERVAL="1",
    )
    updates = Updates()
    bot = await Brainbot(tmp_path, env).start()
    try:
        await bot.wait_ready()
        deadline = time.monotonic() + 20
        while remote_head(remote) is None:  # the first round fills the empty remote
            assert time.monotonic() < deadline, bot.log()
            await asyncio.sleep(0.1)
        laptop = Device(remote, tmp_path / "laptop")
        laptop.write("ideas/Quokka census.md", "# Quokka census\n\nCount the quokkas by the lake\n")
        laptop.commit("notes from the train")
        fakes.telegram.queue_update(updates.message("Call the plumber about the sink"))
        assert laptop.push().returncode == 0
        await fakes.telegram.wait_for("sendMessage", within=20)

        found = False
        for asked in range(2, 30):
            fakes.telegram.queue_update(updates.message("/search quokkas"))
            sent = await fakes.telegram.wait_for("sendMessage", asked, within=20)
            found = "Quokka census" in str(sent[-1].get("text", ""))
            if found:
                break
            await asyncio.sleep(0.5)
        assert found, bot.log()

        deadline = time.monotonic() + 20
        while True:  # the capture reaches the remote
            laptop.pull()
            if any(laptop.root.glob("*/call-the-plumber*.md")):
                break
            assert time.monotonic() < deadline, bot.log()
            await asyncio.sleep(0.5)
    finally:
        assert await bot.stop() == 0, bot.log()
