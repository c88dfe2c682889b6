"""A mail as a note would keep it: who sent it, its subject (the title), its text and
its files. An HTML-only mail's HTML is kept as it came, for a reader process to turn
into Markdown (bot.readers): a mail is anyone's bytes, like a shared page.
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
    text: str  # the plain text; "" for an HTML-only mail until its HTML is read
    files: tuple[Attachment, ...] = ()
    html: str = ""  # an HTML-only mail's HTML, not read yet
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
    text, html = _body(message)
    return Mail(
        message_id=message_id,
        sender=sender if sender is None else storable(sender),
        sender_name=storable(name),
        subject=subject,
        text=storable(text),
        files=tuple(_files(message)),
        html=storable(html),
        headers=message,
    )


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


def _body(message: EmailMessage) -> tuple[str, str]:
    """The plain text part, else the HTML part: (text, "") or ("", html)."""
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
        if kind == "html":
            return ("", content) if content.strip() else ("", "")
        text = _BLANK_LINES.sub("\n\n", content.replace("\r\n", "\n")).strip()
        if text:
            return text, ""
    return "", ""


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
