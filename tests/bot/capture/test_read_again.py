"""`/reread NOTE` reads a note's link again when its reading never succeeded (issue 40:
a link whose first reading failed could never be read), and says so; a link read
already is left alone. Real engine, vault and Postgres; the page from a local server."""

from __future__ import annotations

from pathlib import Path

from aiohttp import web

from tests.bot.enrich.pages_server import ARTICLE, page_server
from tests.bot.helpers import message
from tests.fakes.brain import running_brain


async def test_reread_reads_a_link_whose_reading_failed_and_only_then(
    tmp_path: Path, database_url: str
) -> None:
    asked: list[str] = []

    async def flaky(request: web.Request) -> web.Response:
        asked.append(request.path)
        if len(asked) == 1:  # the site is down the first time
            return web.Response(status=503, text="down")
        return web.Response(text=ARTICLE, content_type="text/html")

    settings = {"BRAINBOT_FETCH_ALLOW_PRIVATE": "true"}
    async with (
        page_server({"/bokashi": flaky}) as site,
        running_brain(tmp_path, database_url, **settings) as brain,
    ):
        (saved,) = await brain.engine.handle(message(f"bokashi for the balcony {site}/bokashi"))
        await brain.engine.after.wait_idle()
        path = saved.text.split("Saved to ", 1)[1].split(",")[0].split(" ")[0].rstrip(".")
        note = brain.settings.vault_dir / path
        assert "bokashi bucket" not in note.read_text()

        (reply,) = await brain.engine.handle(message("/reread bokashi for the balcony"))
        assert "never read" in reply.text and "reading it again now" in reply.text, reply.text
        await brain.engine.after.wait_idle()
        assert "bokashi bucket" in note.read_text()

        (reply,) = await brain.engine.handle(message(f"/reread {path}"))
        assert "read into" in reply.text and "already" in reply.text, reply.text
        await brain.engine.after.wait_idle()
    assert asked == ["/bokashi", "/bokashi"]
