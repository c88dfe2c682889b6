"""What becomes of one mail: filed as its sender's note, taken as the proof of an
address being verified, or left alone.

A mail counts as a person's only when its From address is one they verified and the
receiving server vouches for it (bot.mail.trust). A mail from anyone else is left
unread and nothing of it is stored. A person's mail goes the way a chat message
does: recorded first as an event (`email` + the person + its Message-ID, so a mail is
filed once across restarts and processes), then a typed capture (SUBJECT and TEXT,
bot.events.CaptureRequest) on the one capture path every door shares (bot.capture).
A capture files whatever its words are, so a mail's text is always a note, never a
command or an instruction.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from bot.events import (
    Attachment,
    CaptureRequest,
    Conversation,
    EventHandler,
    InboundMessage,
    Sender,
)
from bot.mail.as_note import Mail, read_mail
from bot.mail.trust import Verdict, authenticated
from bot.readers import ReaderPool, Unreadable
from storage.db import EMAIL, Person, Records, normal_code

log = logging.getLogger(__name__)

Taken = Literal["seen", "leave", "later"]
Tell = Callable[[int, str], Awaitable[bool]]  # (person id, text) -> told in a chat
# Every 8 letters or digits in two fours, overlapping ("code ABCD-EFGH" holds
# "code ABCD" and "ABCD-EFGH").
_CODE = re.compile(r"(?=\b([A-Z0-9]{4}[- ]?[A-Z0-9]{4})\b)", re.I)
WHOLE_MAIL = "mail.md"
VERIFIED = (
    "Verified: mail from {address} is now filed as your notes. Send or forward a mail to "
    "{mailbox} and its subject becomes the title, its text and files the note."
)


@dataclass(frozen=True, slots=True)
class MailRules:
    """Which mails count as a person's (those the receiving server `authserv_id`
    vouches for, or with `trust_unauthenticated` any), and how long a mail's text may be."""

    trust_unauthenticated: bool = False
    authserv_id: str | None = None
    mailbox: str = "the brain's mailbox"
    max_chars: int = 20_000


class MailFiler:
    """Takes one raw mail at a time (`take`), as app.mail hands them over."""

    def __init__(
        self,
        records: Records,
        handle: EventHandler,
        rules: MailRules,
        *,
        clock: Callable[[], datetime],
        vouch: Callable[[Sender], None],
        readers: ReaderPool,
        tell: Tell | None = None,
        on_verified: Callable[[], None] | None = None,
    ) -> None:
        self.records = records
        self.readers = readers  # an HTML-only mail's HTML is read there
        self.handle = handle
        self.rules = rules
        self.clock = clock
        self.vouch = vouch
        self.tell = tell
        self.on_verified = on_verified

    async def take(self, raw: bytes) -> Taken:
        """ "seen" once the mail was filed (or proved an address), "leave" when it is
        nobody's, "later" when the bot could not take it now."""
        try:
            # Parsed in a thread: a large mail must not hold up the chats.
            mail = await asyncio.to_thread(read_mail, raw)
        except Exception:
            log.exception("a mail of %d bytes could not be read: left unread", len(raw))
            return "leave"
        if mail.sender is None:
            log.info("mail %s names no single sender: left unread", mail.message_id)
            return "leave"
        person = await self.records.people.person_for(EMAIL, mail.sender)
        pending = (
            []
            if person is not None
            else await self.records.email_codes.pending(mail.sender, self.clock())
        )
        if person is None and not pending:
            log.info("mail from %s, an address nobody verified: left unread", mail.sender)
            return "leave"
        if not self.rules.trust_unauthenticated:
            verdict = self._verdict(mail)
            if not verdict.trusted:
                log.warning(
                    "mail said to be from %s left unread: %s (a From line can be forged)",
                    mail.sender,
                    verdict.why,
                )
                return "leave"
        mail = await self._read_html(mail)
        if person is None:
            return await self._verify(mail, {normal_code(p.code): p.user_id for p in pending})
        return await self._file(mail, person)

    def _verdict(self, mail: Mail) -> Verdict:
        assert mail.sender is not None
        if self.rules.authserv_id is None:  # mail in refuses to start so (app.mail)
            return Verdict(False, "BRAINBOT_IMAP_AUTHSERV_ID is not set")
        results = [str(h) for h in mail.headers.get_all("Authentication-Results") or []]
        return authenticated(results, mail.sender, authserv_id=self.rules.authserv_id)

    async def _read_html(self, mail: Mail) -> Mail:
        """An HTML-only mail with its text read from the HTML, as Markdown, in a reader
        process: a newsletter of tiny elements took ~100 s and ~1 GB in this one."""
        if not mail.html:
            return mail
        try:
            text = await self.readers.markdown(mail.html)
        except Unreadable as exc:
            log.warning("the HTML of mail %s could not be read: %s", mail.message_id, exc)
            text = f"(The text of this mail could not be read: {exc}.)"
        return dataclasses.replace(mail, text=text, html="")

    async def _verify(self, mail: Mail, codes: dict[str, int]) -> Taken:
        """The mail that carries a live code for its sender's address makes it theirs."""
        assert mail.sender is not None
        said = {normal_code(c) for c in _CODE.findall(f"{mail.subject}\n{mail.text}")}
        for code in said & codes.keys():
            user_id = codes[code]
            name = mail.sender_name or mail.sender
            event_id = _event_id(user_id, mail)
            if await self.records.email_codes.confirm(
                user_id, mail.sender, code, name, self.clock(), event_id=event_id
            ):
                log.info("%s verified as an address of person %d", mail.sender, user_id)
                if self.on_verified is not None:
                    self.on_verified()
                told = VERIFIED.format(address=mail.sender, mailbox=self.rules.mailbox)
                await self._tell(user_id, told)
                return "seen"
        log.info("mail from %s carries no live code for it: left unread", mail.sender)
        return "leave"

    async def _file(self, mail: Mail, person: Person) -> Taken:
        assert mail.sender is not None
        sender = Sender(EMAIL, mail.sender, mail.sender_name or person.name)
        self.vouch(sender)  # the verified address and the server's word stand for the person
        text, files = self._note(mail)
        event = InboundMessage(
            _event_id(person.id, mail),
            Conversation(EMAIL, mail.sender),
            sender,
            text,
            self.clock(),
            attachments=files,
            source={"from": mail.sender},
            capture=CaptureRequest(text),
        )
        replies = await self.handle(event)
        if replies and replies[0].not_kept:
            return "later"  # not recorded: the next round files it
        said = " ".join(r.text for r in replies) or "filed before"
        log.info("mail %s from %s: %s", mail.message_id, mail.sender, said)
        return "seen"

    def _note(self, mail: Mail) -> tuple[str, tuple[Attachment, ...]]:
        """`SUBJECT\n\nTEXT` and the files; a text too long for a message is
        cut, and kept whole as a file beside the note. Without a subject the text's
        first sentence is the title, as in a chat; without either, files alone are a
        capture of files (titled after the first, as the API's), and nothing at all says
        whom it came from."""
        files, body, head = mail.files, mail.text, mail.subject
        if not head and not body:
            if files:
                return "", files
            head = f"Mail from {mail.sender}"
        room = self.rules.max_chars - len(head) - 200
        if len(body) > room:
            whole = f"# {head or 'Mail'}\n\n{body}\n".encode()
            files = (*files, Attachment("document", whole, WHOLE_MAIL, "text/markdown"))
            cut = body[: max(room, 0)].rsplit("\n\n", 1)[0]
            body = f"{cut}\n\n(The whole mail is in the file {WHOLE_MAIL}.)"
        if head and body and head[-1:] not in ".!?…":
            # The title is the first sentence: the subject stays one when the capture
            # reads the text's dates and joins its lines ("… before March").
            head += "."
        return "\n\n".join(part for part in (head, body) if part), files

    async def _tell(self, user_id: int, text: str) -> None:
        told = False
        if self.tell is not None:
            try:
                told = await self.tell(user_id, text)
            except Exception:
                log.exception("could not tell person %d that an address is verified", user_id)
        if not told:
            log.info("person %d has no chat to be told in: %s", user_id, text)


def _event_id(user_id: int, mail: Mail) -> str:
    """A mail's event: one per person and Message-ID (another person's mail with the
    same Message-ID cannot shadow it)."""
    return f"{user_id}/{mail.message_id}"
