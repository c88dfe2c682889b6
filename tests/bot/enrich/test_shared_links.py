"""A shared link, as a person meets it: the note is saved at once exactly as sent, the
page's text lands after the reply as a second commit, and the person hears how it
went. Real engine, real vault and Postgres, pages served on 127.0.0.1."""

from __future__ import annotations

import asyncio
import json
import os
import sys
import traceback
from datetime import date
from pathlib import Path
from typing import Any

import frontmatter
from aiohttp import web

from app.mcp_wiring import mcp_calls
from app.runtime import Runtime
from storage.db.enrichments import Enrichment, Enrichments
from tests.bot.enrich.pages_server import page_server
from tests.bot.helpers import git_log, message, notes, press
from tests.fakes.brain import Told, running_brain
from tests.fakes.hostile_files import page_of_tiny_elements
from tests.fakes.openai_server import FakeOpenAI, Step, call, say
from tests.scheduler.outbox import Outbox, add_ada

LOCAL = {"BRAINBOT_FETCH_ALLOW_PRIVATE": "true"}


async def told_after(brain: Runtime, text: str, user: str = "U1") -> list[str]:
    """What the person hears after the reply to `text`, once reading is over (from a
    brain that tells a `Told`: `running_brain(..., deliver=Told())`)."""
    told = brain.engine.enricher.deliver
    assert isinstance(told, Told), "running_brain(..., deliver=Told())"
    heard = len(told.messages)
    await brain.engine.handle(message(text, user=user))
    await brain.engine.enricher.wait_idle()
    return told.texts[heard:]


async def test_a_link_is_saved_at_once_then_the_page_lands_as_a_second_commit(
    tmp_path: Path, database_url: str
) -> None:
    told = Told()
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, **LOCAL, deliver=told) as brain,
    ):
        url = f"{site}/compost?utm_source=newsletter"
        (reply,) = await brain.engine.handle(message(f"idea for the balcony {url}"))
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        saved = frontmatter.load(vault / path)
        # Saved exactly as sent before anything was read: the reply did not wait.
        assert saved["url"] == url and "From the page" not in saved.content
        assert path in reply.text
        await brain.engine.enricher.wait_idle()

        note = frontmatter.load(vault / path)
        assert note.content.startswith(f"idea for the balcony {url}")
        assert "## From the page: Composting in small gardens" in note.content
        assert "bokashi bucket" in note.content and "Subscribe" not in note.content
        assert "Home" not in note.content.split("## From the page")[1]  # no navigation
        assert note["site"] == "Garden Notes"
        assert note["author"] == "Mara Lindqvist"
        # A date property, as Obsidian reads one: unquoted YYYY-MM-DD (issue 40).
        assert note["published"] == date(2026, 3, 14)
        assert "\npublished: 2026-03-14\n" in (vault / path).read_text()
        log = git_log(vault)
        assert log[0].startswith("update ") and log[1].startswith("create ")
        hits = (await brain.store.search("bokashi ferment")).hits
        assert [h.path for h in hits] == [path]
        (said,) = told.texts
        assert "Composting in small gardens" in said and "words" in said
        # What was added is a small change like any other: one press takes it back.
        (_, added), *_ = told.messages
        (undone,) = await brain.engine.handle(press(added, "Undo"))
        assert undone.text.startswith("Undone:")
        assert frontmatter.load(vault / path).content == saved.content
        assert "url" in frontmatter.load(vault / path).metadata


async def test_with_a_model_the_page_is_summarised_without_tools_and_hostile_text_stays_data(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    async with page_server() as site:
        url = f"{site}/soup"
        openai_fake.script = [
            call(
                "capture",
                category="ideas",
                title="Lentil soup",
                body=f"try this soup {url}",
                confidence=0.9,
                tags=["food"],
                fields=[],
            ),
        ]
        summaries: list[dict[str, Any]] = []

        def summary(body: dict[str, Any]) -> Step:
            summaries.append(body)
            return say("A quick red lentil soup with cumin and lemon, served with flatbread.")

        openai_fake.responder = summary
        async with running_brain(tmp_path, database_url, openai_fake, **LOCAL) as brain:
            await brain.engine.handle(message(f"try this soup {url}"))
            await brain.engine.enricher.wait_idle()
            vault = brain.settings.vault_dir
            note = frontmatter.load(vault / "ideas/lentil-soup.md")
            assert note.content.index("## Summary") < note.content.index("## From the page")
            assert "red lentil soup with cumin" in note.content
            # The page's links and tags are shown, not followed: no link, no tag.
            assert "[[Passwords" not in note.content and "Passwords" in note.content
            assert note["tags"] == ["food"]
            assert await brain.store.backlinks("Passwords.md") == []
            assert notes(vault) == ["ideas/lentil-soup.md"]  # nothing deleted, nothing new
        (asked,) = summaries
        assert "tools" not in asked
        assert "ignore all previous instructions" in json.dumps(asked)


async def test_a_page_that_cannot_be_fetched_leaves_the_note_as_sent_and_says_why(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, **LOCAL, deliver=Told()) as brain,
    ):
        (said,) = await told_after(brain, f"read later {site}/missing")
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        assert frontmatter.load(vault / path).content == f"read later {site}/missing"
        assert git_log(vault)[0].startswith("create ")
        assert said.startswith("Couldn't fetch the page 127.0.0.1/missing: 404")


async def test_a_page_that_hangs_is_given_up_within_the_time_cap(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        page_server() as site,
        running_brain(
            tmp_path, database_url, BRAINBOT_FETCH_TIMEOUT="1", **LOCAL, deliver=Told()
        ) as brain,
    ):
        (said,) = await told_after(brain, f"slow one {site}/hangs")
        assert "Couldn't fetch the page" in said and "1 s" in said
        assert git_log(brain.settings.vault_dir)[0].startswith("create ")


def _reading_anywhere() -> list[str]:
    """What is still reading a page: a thread of this process in the extractor, or a
    reader process this process started that has not ended."""
    busy = [
        f"thread {ident}"
        for ident, frame in sys._current_frames().items()
        if any("trafilatura" in f.f_code.co_filename for f, _ in traceback.walk_stack(frame))
    ]
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == os.getpid() and fields[0] != "Z" and b"bot.readers" in command:
            busy.append(f"reader process {stat.parent.name}")
    return busy


async def test_when_reading_a_page_runs_out_of_time_the_reading_stops(
    tmp_path: Path, database_url: str
) -> None:
    page = page_of_tiny_elements(4_000_000)  # ~10 s of extraction on a quiet machine

    async def heavy(request: web.Request) -> web.Response:
        return web.Response(body=page, content_type="text/html")

    async with (
        page_server({"/heavy": heavy}) as site,
        running_brain(
            tmp_path, database_url, BRAINBOT_ENRICH_TIMEOUT="2", **LOCAL, deliver=Told()
        ) as brain,
    ):
        (said,) = await told_after(brain, f"heavy page {site}/heavy")
        assert said.startswith("Reading what you shared took longer than 2 s")
        # Once the person is told, nothing goes on reading (a killed reader may take a
        # moment to end; the old reading thread went on for many seconds).
        for _ in range(100):
            if not (busy := _reading_anywhere()):
                break
            await asyncio.sleep(0.02)
        assert busy == []
        assert git_log(brain.settings.vault_dir)[0].startswith("create ")


async def test_the_same_link_again_adds_the_new_words_to_the_note_that_has_it(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, **LOCAL) as brain,
    ):
        await brain.engine.handle(message(f"compost guide {site}/compost"))
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        # The same page, shared again from another app: tracking and a fragment added.
        (again,) = await brain.engine.handle(
            message(f"ask Sam about the trench {site}/compost/?utm_medium=share#top")
        )
        assert notes(vault) == [path]
        assert "saved this link before" in again.text and path in again.text
        assert [b.label for b in again.buttons] == ["Undo"], again
        assert "ask Sam about the trench" in frontmatter.load(vault / path).content
        (only_link,) = await brain.engine.handle(message(f"{site}/compost"))
        assert "Nothing new to add" in only_link.text and notes(vault) == [path]


async def test_links_are_not_fetched_when_fetching_is_off(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        page_server() as site,
        running_brain(
            tmp_path, database_url, BRAINBOT_FETCH="false", **LOCAL, deliver=Told()
        ) as brain,
    ):
        texts = await told_after(brain, f"later {site}/compost")
        assert texts == [] and git_log(brain.settings.vault_dir)[0].startswith("create ")


async def test_a_restart_reads_what_a_crash_left_and_never_applies_a_job_twice(
    tmp_path: Path, database_url: str
) -> None:
    async with page_server() as site:
        async with running_brain(tmp_path, database_url, **LOCAL) as brain:
            enricher = brain.engine.enricher
            enricher.start_after = 60.0  # the process "dies" before it reads the page
            await brain.engine.handle(message(f"compost {site}/compost"))
            vault = brain.settings.vault_dir
            (path,) = notes(vault)
            ledger = Enrichments(brain.database.engine)
            (job,) = await ledger.waiting()
        assert "From the page" not in (vault / path).read_text()

        told = Told()
        async with running_brain(tmp_path, database_url, **LOCAL, deliver=told) as restarted:
            assert await restarted.engine.enricher.resume(restarted.liveness.is_alive) == 1
            await restarted.engine.enricher.wait_idle()
            assert "## From the page" in (vault / path).read_text()
            assert len(git_log(vault)) == 3 and len(told.texts) == 1
            # The commit landed, then the process died before marking the job done:
            ledger = Enrichments(restarted.database.engine)
            assert (await ledger.get(job.id)).status == Enrichment.DONE  # type: ignore[union-attr]
            await ledger.finish(job.id, Enrichment.WAITING, job.created_at)

        told = Told()
        async with running_brain(tmp_path, database_url, **LOCAL, deliver=told) as again:
            assert await again.engine.enricher.resume(again.liveness.is_alive) == 1
            await again.engine.enricher.wait_idle()
            assert len(git_log(vault)) == 3 and told.texts == []
            text = (vault / path).read_text()
            assert text.count("## From the page") == 1
            ledger = Enrichments(again.database.engine)
            assert (await ledger.get(job.id)).status == Enrichment.DONE  # type: ignore[union-attr]


async def test_a_pdf_behind_a_link_is_read_as_a_document(tmp_path: Path, database_url: str) -> None:
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, **LOCAL) as brain,
    ):
        await brain.engine.handle(message(f"the soil survey {site}/survey.pdf"))
        await brain.engine.enricher.wait_idle()
        vault = brain.settings.vault_dir
        (path,) = notes(vault)
        note = frontmatter.load(vault / path)
        assert "## From the page: survey.pdf" in note.content
        assert note["site"] == "127.0.0.1"
        hits = (await brain.store.search("earthworm")).hits
        assert [h.path for h in hits] == [path]


async def test_by_default_a_link_into_the_machine_s_own_network_is_not_fetched(
    tmp_path: Path, database_url: str
) -> None:
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, deliver=Told()) as brain,
    ):
        # (A redirect into it is refused the same way: tests/bot/enrich/test_fetch.py.)
        (said,) = await told_after(brain, f"admin page {site}/compost")
        assert said.endswith("the address points into a private network.")
        assert "## From the page" not in "".join(
            (brain.settings.vault_dir / p).read_text() for p in notes(brain.settings.vault_dir)
        )


async def test_a_link_captured_over_mcp_is_read_as_in_chat(
    tmp_path: Path, database_url: str
) -> None:
    told = Told()
    async with (
        page_server() as site,
        running_brain(tmp_path, database_url, **LOCAL, deliver=told) as brain,
    ):
        ada = await add_ada(brain)
        calls = mcp_calls(brain, Outbox(brain.engine.clock))
        arguments = {
            "category": "ideas",
            "title": "Balcony compost",
            "body": f"bokashi for the balcony {site}/compost",
            "confidence": 0.9,
            "tags": [],
            "fields": [],
        }
        result = await calls.call(ada.id, "capture", arguments)
        assert not result.isError
        await brain.engine.enricher.wait_idle()
        vault = Path(brain.vaults.root(await brain.vaults.of_person(ada.id, ada.name)))
        note = frontmatter.load(vault / "ideas/balcony-compost.md")
        assert note["url"] == f"{site}/compost" and note["author"] == "Mara Lindqvist"
        assert "## From the page: Composting in small gardens" in note.content
        assert told.texts == []  # an MCP client is not sent chat messages
