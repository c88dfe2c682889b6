"""One capture path, proved by running the same cases through every door: a `/capture`
in a chat, the HTTP API, MCP and mail in. Each door only translates (what it can say:
a chat names a category by its hint and tags by `#`, mail has neither); the rules are
the one function's (bot.capture): a category given is honoured, one that is none is
refused with the list and nothing is written, tags are tags, the limit counts the
person's own words, a link saved before is one note, files alone are a note titled
after the file that holds its text, and a door with no buttons is not asked to pick.
Real engine, vault, Postgres, HTTP server and MCP calls; pages from a local server."""

from __future__ import annotations

import itertools
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import aiohttp
import frontmatter
import pytest

from app.api import CaptureApi
from app.http import HttpServer
from app.mail import filer_for
from app.mcp_wiring import mcp_calls
from app.runtime import Runtime
from bot.events import Attachment, Conversation, InboundMessage, Reply
from storage.db import Person
from storage.db.email_codes import EMAIL
from storage.db.mcp_tokens import McpTokens
from tests.bot.enrich.pages_server import page_server
from tests.bot.helpers import CHAT, git_log, sender
from tests.fakes.brain import running_brain
from tests.scheduler.outbox import add_ada

LIMIT = 300  # BRAINBOT_MAX_MESSAGE_CHARS, small enough to write out
ADA = "ada@example.org"
CATEGORIES = "people, projects, ideas, admin, inbox"
NOTE_TEXT = b"Feed the starter with rye flour every morning.\n"
_ids = itertools.count(1)


@dataclass
class Said:
    reply: str  # what the door answered ("" where it answers nothing: mail)
    path: str | None  # the note it went to; None when refused


File = tuple[str, bytes, str]  # name, bytes, MIME type


@dataclass
class Doors:
    brain: Runtime
    ada: Person
    vault: Path
    api_url: str
    token: str
    http: aiohttp.ClientSession

    async def chat(
        self, words: str, category: str, tags: tuple[str, ...], files: list[File]
    ) -> Said:
        # A chat says a category by its hint ("ideas: ...") and tags with `#`.
        parts = [f"{category}:" if category else "", words, *(f"#{t}" for t in tags)]
        text = " ".join(p for p in parts if p)
        event_id = f"door{next(_ids)}"
        event = InboundMessage(
            event_id,
            CHAT,
            sender("U1"),
            f"/capture {text}" if text else "",
            datetime.now(UTC),
            attachments=tuple(Attachment("document", d, n, m) for n, d, m in files),
        )
        said = " ".join(r.text for r in await self.brain.engine.handle(event))
        saved = re.search(r"Saved to (\S+?\.md)|saved this link before: .*\((\S+?\.md)\)", said)
        return Said(said, next(p for p in saved.groups() if p) if saved else None)

    async def api(
        self, words: str, category: str, tags: tuple[str, ...], files: list[File]
    ) -> Said:
        headers = {"Authorization": f"Bearer {self.token}"}
        options: dict[str, Any] = {"json": {"text": words, "category": category, "tags": tags}}
        if files:
            form = aiohttp.FormData()
            for name, data, mime in files:  # the README's Shortcut: a `file` and nothing else
                form.add_field("file", data, filename=name, content_type=mime)
            options = {"data": form}
        async with self.http.post(
            f"{self.api_url}/api/v1/capture", headers=headers, **options
        ) as response:
            body = await response.json()
            if response.status == 201:
                return Said(body["reply"], body["path"])
            return Said(body["error"], None)

    async def mcp(
        self, words: str, category: str, tags: tuple[str, ...], files: list[File]
    ) -> Said:
        assert not files, "MCP sends no files"
        calls = mcp_calls(self.brain, _nobody)
        arguments: dict[str, Any] = {"text": words}
        if category:
            arguments["category"] = category
        if tags:
            arguments["tags"] = list(tags)
        result = await calls.call(self.ada.id, "capture", arguments)
        text = " ".join(getattr(c, "text", "") for c in result.content)
        if result.isError:
            return Said(text, None)
        data = result.structuredContent or {}
        return Said(text, (data.get("saved") or data.get("saved_before"))["path"])

    async def mail(
        self, words: str, category: str, tags: tuple[str, ...], files: list[File]
    ) -> Said:
        assert not category and not tags, "a mail names neither"
        message = EmailMessage()
        message["From"] = f"Ada Lovelace <{ADA}>"
        message["To"] = "brain@example.net"
        message["Message-ID"] = f"<door{next(_ids)}@example.org>"
        if words:
            message.set_content(words)
        for name, data, mime in files:
            main, sub = mime.split("/")
            message.add_attachment(data, maintype=main, subtype=sub, filename=name)
        filer = filer_for(self.brain, self.brain.engine.handle, None)
        assert await filer.take(bytes(message)) == "seen"
        key = f"email:{self.ada.id}/{message['Message-ID'].strip('<>')}"
        found = self.brain.engine.filed_by(key)
        return Said("", found[0] if found else None)

    def notes(self) -> list[str]:
        return sorted(
            p.relative_to(self.vault).as_posix()
            for p in self.vault.rglob("*.md")
            if ".git" not in p.parts and "daily" not in p.parts
        )


async def _nobody(conversation: Conversation, reply: Reply) -> None:
    return None


Send = Callable[[str, str, tuple[str, ...], list[File]], Awaitable[Said]]


@pytest.fixture
async def doors(tmp_path: Path, database_url: str) -> AsyncIterator[Doors]:
    settings = {
        "BRAINBOT_FETCH_ALLOW_PRIVATE": "true",
        "BRAINBOT_RATE_LIMIT": "0",
        "BRAINBOT_MAX_MESSAGE_CHARS": str(LIMIT),
        "BRAINBOT_IMAP_TRUST_UNAUTHENTICATED": "true",
    }
    async with running_brain(tmp_path, database_url, **settings) as brain:
        ada = await add_ada(brain, platform="test", user_id="U1")
        await brain.records.people.add_identity(ada.id, EMAIL, ADA, "Ada", brain.engine.clock())
        _, token = await McpTokens(brain.database.engine).create(
            ada.id, "phone", brain.engine.clock()
        )
        vault = Path(brain.vaults.root(await brain.vaults.of_person(ada.id, ada.name)))
        api = CaptureApi()
        http = HttpServer("127.0.0.1", 0, max_body=brain.settings.max_attachment_bytes + 1_000_000)
        api.mount(http.app)
        await http.start()
        api.start(brain)
        try:
            async with aiohttp.ClientSession() as session:
                url = f"http://127.0.0.1:{http.port}"
                yield Doors(brain, ada, vault, url, token, session)
        finally:
            api.stop()
            await http.stop()
            await brain.engine.after.wait_idle()


DOORS = ["chat", "api", "mcp", "mail"]
NAMES_A_CATEGORY = {"chat", "api", "mcp"}
SENDS_FILES = {"chat", "api", "mail"}
NO_BUTTONS = {"api", "mcp"}


@pytest.mark.parametrize("door", DOORS)
async def test_every_capture_rule_holds_through_each_door(door: str, doors: Doors) -> None:
    send: Send = getattr(doors, door)
    vault = doors.vault

    async def capture(
        words: str, category: str = "", tags: tuple[str, ...] = (), files: list[File] | None = None
    ) -> Said:
        return await send(words, category, tags, files or [])

    if door in NAMES_A_CATEGORY:
        # A category given is honoured: never sent to the inbox for want of confidence.
        said = await capture("Plant garlic before the first frost", "ideas")
        assert said.path is not None and said.path.startswith("ideas/"), said
        if door != "chat":  # a chat's hint is its words; no other door's name is one
            notes, commits = doors.notes(), len(git_log(vault))
            said = await capture("x", "nonsense")
            assert said.path is None and CATEGORIES in said.reply, said
            assert doors.notes() == notes and len(git_log(vault)) == commits
            # Named elsewhere, words that name someone are a note, not their new page.
            said = await capture("[person] Priya Raman - a rain barrel for the allotment", "ideas")
            assert said.path is not None and said.path.startswith("ideas/"), said
            assert frontmatter.load(vault / said.path)["title"] != "Priya Raman"

        # Tags are tags: in the note's properties, not glued to the words.
        said = await capture("Compost the autumn leaves", tags=("garden",))
        assert said.path is not None, said
        note = frontmatter.load(vault / said.path)
        assert "garden" in note["tags"]
        if door != "chat":  # a chat's `#garden` is the person's own words
            assert "#garden" not in note.content
            assert "#garden" not in str(note.get("original_text", ""))

        # The limit counts the person's own words, nothing the door wraps them in.
        exact = ("word " * LIMIT)[: LIMIT - 1] + "x"
        said = await capture(exact)
        assert said.path is not None, said
        said = await capture(exact + "y")
        assert said.path is None and f"at most {LIMIT}" in said.reply, said

    if door in NO_BUTTONS:
        # Where nothing can be pressed, nothing asks to pick; the inbox on request.
        said = await capture("Something to sort out later", "inbox")
        assert said.path is not None and said.path.startswith("inbox/"), said
        assert "Pick a category" not in said.reply and "not sure" not in said.reply
        said = await capture("Something vague")
        assert said.path is not None and "Pick a category" not in said.reply, said

    async with page_server() as site:
        # A link sent twice is one note, its page fetched once.
        link = f"{site}/compost"
        first = await capture(f"for the balcony {link}")
        await doors.brain.engine.after.wait_idle()
        again = await capture(f"for the balcony {link}")
        assert first.path is not None and again.path == first.path, (first, again)
        if door != "mail":
            assert "saved this link before" in again.reply
        holding = [p for p in doors.notes() if link in (vault / p).read_text()]
        assert holding == [first.path]

    if door in SENDS_FILES:
        # Files alone: a note titled after the file, that holds its text once read.
        commits = len(git_log(vault))
        said = await capture("", files=[("starter-notes.txt", NOTE_TEXT, "text/plain")])
        assert said.path is not None, said
        await doors.brain.engine.after.wait_idle()
        note = frontmatter.load(vault / said.path)
        assert note["title"] == "starter-notes.txt"
        assert "Feed the starter with rye flour" in note.content
        attached = git_log(vault)[: len(git_log(vault)) - commits]
        assert not any(line.startswith("attach ") for line in attached), attached
