"""A mail as a note would keep it: who sent it, its subject (the title), its text (an
HTML-only mail's HTML as Markdown) and its files.

HTML is read by trafilatura, the reader of shared pages (bot.enrich), asked for all
of the text rather than a page's main part: a mail has no menus to leave out.
"""

from __future__ import annotations

import email.policy
import hashlib
import logging
import re
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses

from bot.events import Attachment, attachment_kind, storable

log = logging.getLogger(__name__)

# "Re:", "Fwd:", "AW:", "WG:", "TR:" … before the subject: a forwarded mail is titled
# by what it was about.
_REPLY_PREFIX = re.compile(r"^\s*(?:(?:re|fwd?|aw|wg|tr|sv|vs)\s*(?:\[\d+\])?\s*:\s*)+", re.I)
_BLANK_LINES = re.compile(r"\n{3,}")


@dataclass(frozen=True, slots=True)
class Mail:
    """What one mail says, read once."""

    message_id: str  # the Message-ID without <>, or a digest of the mail without one
    sender: str | None  # the one address of From, lower case; None when it names several
    sender_name: str
    subject: str
    text: str
    files: tuple[Attachment, ...] = ()
    headers: EmailMessage = field(default_factory=EmailMessage, repr=False, compare=False)


def read_mail(raw: bytes) -> Mail:
    """`raw` (RFC 5322 bytes, as IMAP hands them over) read into a Mail. Its words are
    `storable` from here on: a NUL in a mail's text or headers is kept as U+FFFD, so
    the mail is filed once instead of failing (and being tried again) forever."""
    message = BytesParser(policy=email.policy.default).parsebytes(raw)
    assert isinstance(message, EmailMessage)
    sender, name = _sender(message)
    given_id = storable(_header(message, "Message-ID")).strip().strip("<>").strip()
    message_id = given_id[:200] if given_id else "sha256-" + hashlib.sha256(raw).hexdigest()
    subject = " ".join(_REPLY_PREFIX.sub("", storable(_header(message, "Subject"))).split())
    return Mail(
        message_id=message_id,
        sender=sender if sender is None else storable(sender),
        sender_name=storable(name),
        subject=subject,
        text=storable(_text(message)),
        files=tuple(_files(message)),
        headers=message,
    )


def markdown_of_html(html: str) -> str:
    """The text of an HTML mail as Markdown (links, lists, emphasis kept); plain text
    where the HTML is too small for the Markdown reader."""
    from trafilatura import extract, html2txt
    from trafilatura.settings import use_config

    config = use_config()
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "0")
    config.set("DEFAULT", "MIN_OUTPUT_SIZE", "0")
    found = extract(
        html,
        output_format="markdown",
        include_links=True,
        include_formatting=True,
        include_tables=True,
        favor_recall=True,
        config=config,
    )
    text = found or html2txt(html) or ""
    return _BLANK_LINES.sub("\n\n", text).strip()


def _header(message: EmailMessage, name: str) -> str:
    try:
        return str(message.get(name) or "")
    except (ValueError, IndexError, TypeError):  # a header the parser cannot make sense of
        return ""


def _sender(message: EmailMessage) -> tuple[str | None, str]:
    """The one address in From (a mail from several people is nobody's)."""
    values = message.get_all("From") or []
    try:
        pairs = [(n, a) for n, a in getaddresses([str(v) for v in values]) if a]
    except (ValueError, IndexError, TypeError):
        return None, ""
    if len(pairs) != 1 or "@" not in pairs[0][1]:
        return None, ""
    name, address = pairs[0]
    return address.strip().lower(), name.strip()


def _text(message: EmailMessage) -> str:
    """The plain text part, else the HTML part as Markdown."""
    for kind in ("plain", "html"):
        part = message.get_body(preferencelist=(kind,))
        if part is None:
            continue
        try:
            content = part.get_content()
        except (LookupError, ValueError):  # an unknown charset: read as UTF-8
            payload = part.get_payload(decode=True)
            content = payload.decode("utf-8", "replace") if isinstance(payload, bytes) else ""
        if not isinstance(content, str):
            continue
        text = markdown_of_html(content) if kind == "html" else content
        text = _BLANK_LINES.sub("\n\n", text.replace("\r\n", "\n")).strip()
        if text:
            return text
    return ""


def _files(message: EmailMessage) -> list[Attachment]:
    files: list[Attachment] = []
    for n, part in enumerate(message.iter_attachments(), start=1):
        if not isinstance(part, EmailMessage):
            continue
        data = part.get_payload(decode=True)
        if not isinstance(data, bytes) or not data:
            continue
        mime = part.get_content_type()
        name = part.get_filename() or f"attachment-{n}{_suffix(mime)}"
        files.append(Attachment(attachment_kind(mime), data, name, mime))
    return files


def _suffix(mime: str) -> str:
    import mimetypes

    return mimetypes.guess_extension(mime) or ""
