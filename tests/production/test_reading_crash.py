"""kill -9 while a shared link's page is being read: the note is already saved as sent;
the next start reads the page into it once, and the person hears of it once."""

from __future__ import annotations

import asyncio
import signal
import subprocess
from pathlib import Path

import pytest
from aiohttp import web

from tests.bot.enrich.pages_server import ARTICLE, page_server
from tests.bot.helpers import notes_by_vault
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes


class Site:
    """A page that hangs until `released`, and says when it was asked."""

    def __init__(self) -> None:
        self.released = asyncio.Event()
        self.asked = asyncio.Event()

    async def page(self, request: web.Request) -> web.Response:
        self.asked.set()
        await self.released.wait()
        return web.Response(text=ARTICLE, content_type="text/html")


def git_log(vault: Path) -> list[str]:
    return subprocess.run(
        ["git", "-C", str(vault), "log", "--format=%s"], capture_output=True, text=True, check=True
    ).stdout.splitlines()


@pytest.mark.slow(seconds=8)
async def test_a_page_being_read_at_kill_9_is_read_once_after_the_restart(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    site = Site()
    env = fakes.env(tmp_path, database_url, slack=None, BRAINBOT_FETCH_ALLOW_PRIVATE="true")
    async with page_server({"/slow": site.page}) as base:
        url = f"{base}/slow"
        first = await Brainbot(tmp_path, env, name="first").start()
        try:
            await first.wait_ready()
            fakes.telegram.queue_update(Updates().message(f"compost idea {url}"))
            (saved,) = await fakes.telegram.wait_for("sendMessage", within=30)
            await asyncio.wait_for(site.asked.wait(), 30)  # the page is being read
        finally:
            first.signal(signal.SIGKILL)
            assert await first.wait() == -signal.SIGKILL
        ((name, (path,)),) = [(n, f) for n, f in notes_by_vault(tmp_path / "data").items() if f]
        vault = tmp_path / "data" / ("vault" if name == "vault" else f"vaults/{name}")
        assert path in saved["text"]
        note = (vault / path).read_text()
        assert "From the page" not in note and url in note  # saved as sent

        site.released.set()
        second = await Brainbot(tmp_path, env, name="second").start()
        try:
            await second.wait_ready()
            _, added = await fakes.telegram.wait_for("sendMessage", 2, within=60)
            assert "Composting in small gardens" in added["text"]
        finally:
            assert await second.stop() == 0, second.log()
    note = (vault / path).read_text()
    assert note.count("## From the page: Composting in small gardens") == 1
    log = git_log(vault)
    assert [line.split()[0] for line in log[:2]] == ["update", "create"]
    assert len(fakes.telegram.calls("sendMessage")) == 2
    assert "Traceback" not in second.log()
