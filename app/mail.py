"""Email in, as `brainbot run` starts it: the IMAP folder (adapters.imap) followed,
each mail handed to the filer (bot.mail) through the same gate as chat events, a
person told in their chat when an address of theirs is verified."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from adapters.imap import BadMailboxUrl, Mailbox, MailboxError, Taken, mailbox_url
from adapters.platform import PROBE_TIMEOUT, Finding
from bot.config import Settings
from bot.events import Deliver, EventHandler, Reply
from bot.mail import TOPMOST, MailFiler, MailRules, authserv_id_of
from bot.people import mailbox_named
from scheduler.delivery import home_conversations

if TYPE_CHECKING:  # `brainbot doctor` checks the mailbox without the engine
    from app.runtime import Runtime

log = logging.getLogger(__name__)


UNVOUCHED = (
    "BRAINBOT_IMAP_URL is set, but BRAINBOT_IMAP_AUTHSERV_ID is not, so email in does not "
    "start: without the name of the receiving server, an Authentication-Results header "
    "the sender wrote would vouch for a forged From line"
)
NAME_THE_SERVER = (
    "set BRAINBOT_IMAP_AUTHSERV_ID to the name your mail server writes first in the "
    "Authentication-Results header it adds ({seen}); or, only for a server that adds none, "
    "BRAINBOT_IMAP_TRUST_UNAUTHENTICATED=true (then anyone's From line is believed)"
)


def refusal(settings: Settings) -> str | None:
    """Why email in may not start with these settings; None when it may."""
    s = settings
    if not s.imap_url or s.imap_authserv_id or s.imap_trust_unauthenticated:
        return None
    seen = "`brainbot doctor` shows the names in the mailbox's newest mails"
    return f"{UNVOUCHED}. Fix: {NAME_THE_SERVER.format(seen=seen)}"


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
    runtime: Runtime, handle: EventHandler, deliver: Deliver | None, mailbox: Mailbox | None = None
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

    def start(self, runtime: Runtime, handle: EventHandler, deliver: Deliver | None) -> None:
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
    mailbox.timeout = PROBE_TIMEOUT
    try:
        checked = await mailbox.check("Authentication-Results")
    except MailboxError as exc:
        fix = "check BRAINBOT_IMAP_URL (user, password, server, folder)"
        if "certificate" in str(exc):
            fix = "name the CA that signed it in BRAINBOT_IMAP_CA_FILE"
        return [Finding("problem", "email in", f"{mailbox.url}: {exc}", fix)]
    return [Finding("ok", "email in", checked.said), *_trust(settings, checked.headers)]


def _trust(settings: Settings, headers: list[list[str]]) -> list[Finding]:
    """Whose Authentication-Results count, said against the servers the newest mails
    name in their topmost header."""
    named = [authserv_id_of(h[0]) for h in headers if h]
    names = list(dict.fromkeys(name for name in named if name))
    seen = f"the newest mails name {', '.join(names)}" if names else "no mail shows it yet"
    if None in named:
        seen += f"; a header that names no server is Microsoft 365's kind: {TOPMOST}"
    wanted = settings.imap_authserv_id
    if settings.imap_trust_unauthenticated:
        return [
            Finding(
                "warning",
                "email in",
                "BRAINBOT_IMAP_TRUST_UNAUTHENTICATED=true: a mail with a forged From line "
                "is filed as that person's",
                "leave it off unless the server adds no Authentication-Results header",
            )
        ]
    if wanted is None:
        return [Finding("problem", "email in", UNVOUCHED, NAME_THE_SERVER.format(seen=seen))]
    if wanted.lower() == TOPMOST:
        return [
            Finding(
                "warning",
                "email in",
                "BRAINBOT_IMAP_AUTHSERV_ID=topmost: the topmost Authentication-Results "
                "header counts, whoever wrote it",
                "right only for a server that adds one to every mail without naming itself "
                f"(Microsoft 365); otherwise name the server ({seen})",
            )
        ]
    if names and wanted.lower().rstrip(".") not in {n.lower().rstrip(".") for n in names}:
        return [
            Finding(
                "warning",
                "email in",
                f"BRAINBOT_IMAP_AUTHSERV_ID={wanted}, but {seen}: their mail is left unread",
                "set BRAINBOT_IMAP_AUTHSERV_ID to the name your server writes",
            )
        ]
    return []
