"""Email in, as `brainbot run` starts it: the IMAP folder (adapters.imap) followed,
each mail handed to the filer (bot.mail) through the same gate as chat events, a
person told in their chat when an address of theirs is verified."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence

from adapters.imap import BadMailboxUrl, Mailbox, MailboxError, Taken, mailbox_url
from bot.app.probes import TIMEOUT, Finding
from bot.app.runtime import Runtime
from bot.config import Settings
from bot.events import Conversation, Event, Reply
from bot.mail import MailFiler, MailRules
from bot.people import mailbox_named
from scheduler.delivery import home_conversations

log = logging.getLogger(__name__)

Handle = Callable[[Event], Awaitable[Sequence[Reply]]]
Deliver = Callable[[Conversation, Reply], Awaitable[object]]


def mailbox_of(settings: Settings, *, first_pause: float = 1.0) -> Mailbox | None:
    """The mailbox BRAINBOT_IMAP_URL names (None when email in is off); BadMailboxUrl
    when it cannot be read (load_settings says so before anything starts)."""
    if not settings.imap_url:
        return None
    return Mailbox(
        mailbox_url(settings.imap_url),
        ca_file=settings.imap_ca_file,
        poll_seconds=settings.imap_poll_seconds,
        # A mail carries its files base64-encoded: a third larger than they are.
        max_bytes=settings.max_attachment_bytes * 4 // 3 + 1_000_000,
        first_pause=first_pause,
    )


def filer_for(
    runtime: Runtime, handle: Handle, deliver: Deliver | None, mailbox: Mailbox | None = None
) -> MailFiler:
    """The filer of `runtime`'s mails; `deliver` tells a person their address is verified."""
    settings = runtime.settings
    engine = runtime.engine

    async def tell(user_id: int, text: str) -> bool:
        if deliver is None:
            return False
        for conversation in await home_conversations(runtime.records, user_id):
            try:
                await deliver(conversation, Reply(text))
            except Exception as exc:
                log.info("could not tell person %d in %s: %s", user_id, conversation.platform, exc)
                continue
            return True
        return False

    rules = MailRules(
        trust_unauthenticated=settings.imap_trust_unauthenticated,
        authserv_id=settings.imap_authserv_id,
        mailbox=mailbox_named(settings.imap_url) or "the brain's mailbox",
        max_chars=settings.max_message_chars,
    )
    return MailFiler(
        runtime.records,
        handle,
        rules,
        clock=engine.clock,
        vouch=engine.access.vouch,
        readers=engine.enricher.readers.pool,
        tell=tell,
        on_verified=mailbox.reconsider if mailbox is not None else None,
    )


class MailIn:
    """The mailbox followed in the background while `brainbot run` serves."""

    def __init__(self, mailbox: Mailbox) -> None:
        self.mailbox = mailbox
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @classmethod
    def of(cls, settings: Settings) -> MailIn | None:
        try:
            mailbox = mailbox_of(settings)
        except BadMailboxUrl:
            return None  # load_settings refused it already; nothing to follow
        return None if mailbox is None else cls(mailbox)

    def start(self, runtime: Runtime, handle: Handle, deliver: Deliver | None) -> None:
        filer = filer_for(runtime, handle, deliver, self.mailbox)

        async def on_mail(raw: bytes) -> Taken:
            return Taken(await filer.take(raw))

        self._task = asyncio.create_task(self.mailbox.follow(on_mail, self._stop))

    async def stop(self) -> None:
        """Take no more mail; the one being filed is finished first."""
        self._stop.set()
        if self._task is not None:
            await self._task


async def mail_check(settings: Settings) -> list[Finding]:
    """`brainbot doctor`: can the mailbox be opened, and are its mails checked."""
    mailbox = mailbox_of(settings)
    if mailbox is None:
        return []
    mailbox.timeout = TIMEOUT
    try:
        said = await mailbox.check()
    except MailboxError as exc:
        fix = "check BRAINBOT_IMAP_URL (user, password, server, folder)"
        if "certificate" in str(exc):
            fix = "name the CA that signed it in BRAINBOT_IMAP_CA_FILE"
        return [Finding("problem", "email in", f"{mailbox.url}: {exc}", fix)]
    found = [Finding("ok", "email in", said)]
    if settings.imap_trust_unauthenticated:
        found.append(
            Finding(
                "warning",
                "email in",
                "BRAINBOT_IMAP_TRUST_UNAUTHENTICATED=true: a mail with a forged From line "
                "is filed as that person's",
                "leave it off unless the server adds no Authentication-Results header",
            )
        )
    return found
