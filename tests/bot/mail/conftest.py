"""Email in as a person meets it: a real IMAP server (pymap, tests.fakes.imap_server),
a real runtime (vault, Postgres), the mailbox followed the way `brainbot run` follows
it, mail put in with IMAP APPEND, notes read from the vault."""

from __future__ import annotations

import asyncio
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest

from adapters.imap import Mailbox, Taken
from app.mail import filer_for, mailbox_of
from app.runtime import Runtime
from bot.events import Conversation, Reply
from bot.mail import MailFiler
from storage.db.email_codes import EMAIL
from storage.db.people import Person
from tests.bot.helpers import message
from tests.fakes.brain import Clock, running_brain
from tests.fakes.imap_server import ImapServer
from tests.scheduler.outbox import add_ada

ADA = "ada@example.org"
MX = "mx.example.net"
_ids = itertools.count(1)


def mail(
    text: str = "",
    *,
    subject: str = "A thought",
    sender: str = f"Ada Lovelace <{ADA}>",
    results: tuple[str, ...] = (f"{MX}; dkim=pass header.d=example.org; spf=pass",),
    html: str | None = None,
    files: tuple[Path, ...] = (),
    message_id: str | None = None,
) -> EmailMessage:
    """A mail as the receiving server stores it: its Authentication-Results on top."""
    msg = EmailMessage()
    for line in results:
        msg["Authentication-Results"] = line
    msg["From"] = sender
    msg["To"] = "brain@example.net"
    msg["Subject"] = subject
    msg["Message-ID"] = message_id or f"<m{next(_ids)}.{id(msg)}@example.org>"
    if text:
        msg.set_content(text)
    if html is not None:
        if text:
            msg.add_alternative(html, subtype="html")
        else:
            msg.set_content(html, subtype="html")
    for path in files:
        msg.add_attachment(
            path.read_bytes(), maintype="application", subtype="pdf", filename=path.name
        )
    return msg


@dataclass
class MailIn:
    brain: Runtime
    imap: ImapServer
    ada: Person
    clock: Clock
    vault: Path
    told: list[tuple[Conversation, str]] = field(default_factory=list)
    tasks: list[tuple[asyncio.Event, asyncio.Task[None]]] = field(default_factory=list)

    async def deliver(self, conversation: Conversation, reply: Reply) -> None:
        self.told.append((conversation, reply.text))

    def filer(self, mailbox: Mailbox | None = None) -> MailFiler:
        return filer_for(self.brain, self.brain.engine.handle, self.deliver, mailbox)

    def follow(self, **options: Any) -> Mailbox:
        """Start following the mailbox (as `brainbot run` does); stopped at the end."""
        mailbox = mailbox_of(self.brain.settings, first_pause=0.2)
        assert mailbox is not None
        for name, value in options.items():
            setattr(mailbox, name, value)
        filer = self.filer(mailbox)

        async def on_mail(raw: bytes) -> Taken:
            return Taken(await filer.take(raw))

        stop = asyncio.Event()
        self.tasks.append((stop, asyncio.create_task(mailbox.follow(on_mail, stop))))
        return mailbox

    async def verify(self, address: str = ADA) -> None:
        """Ada verified `address` before (the identity the verification leaves)."""
        await self.brain.records.people.add_identity(
            self.ada.id, EMAIL, address, "Ada", self.clock()
        )

    async def say(self, text: str) -> str:
        """Ada, in her chat."""
        replies = await self.brain.engine.handle(message(text))
        return " ".join(r.text for r in replies)

    def notes(self) -> list[str]:
        return sorted(
            p.relative_to(self.vault).as_posix()
            for p in self.vault.rglob("*.md")
            if ".git" not in p.parts
        )


async def until(check: Callable[[], bool | Awaitable[bool]], seconds: float = 20.0) -> None:
    """Wait for what a person would see, at most `seconds`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while True:
        done = check()
        if not isinstance(done, bool):
            done = await done
        if done:
            return
        if loop.time() > deadline:
            raise AssertionError("not within the time")
        await asyncio.sleep(0.2)


@pytest.fixture
def imap(tmp_path: Path) -> Iterator[ImapServer]:
    root = tmp_path / "imap"
    root.mkdir()
    server = ImapServer(root, tls=True)
    server.start()
    try:
        yield server
    finally:
        server.stop()


@asynccontextmanager
async def mail_in(
    tmp_path: Path, database_url: str, imap: ImapServer, **settings: Any
) -> AsyncIterator[MailIn]:
    clock = Clock()
    values = {
        "BRAINBOT_IMAP_URL": imap.url,
        "BRAINBOT_IMAP_CA_FILE": imap.ca_file,
        "BRAINBOT_IMAP_POLL_SECONDS": "0.5",
        "BRAINBOT_IMAP_AUTHSERV_ID": MX,
        "BRAINBOT_RATE_LIMIT": "0",
        **settings,
    }
    async with running_brain(tmp_path, database_url, clock=clock, **values) as brain:
        ada = await add_ada(brain, platform="test", user_id="U1", chat_id="chat-1")
        vault = Path(brain.vaults.root(await brain.vaults.of_person(ada.id, ada.name)))
        box = MailIn(brain, imap, ada, clock, vault)
        try:
            yield box
        finally:
            for stop, _ in box.tasks:
                stop.set()
            await asyncio.gather(*(task for _, task in box.tasks))
            await brain.engine.enricher.wait_idle()


@pytest.fixture
async def inbox(tmp_path: Path, database_url: str, imap: ImapServer) -> AsyncIterator[MailIn]:
    async with mail_in(tmp_path, database_url, imap) as box:
        yield box
