"""`/settings email`: the addresses whose mail becomes a person's notes.

`/settings email ada@example.org` shows a code and sends nothing; the person proves
the address is theirs by mailing the code from it to the brain's mailbox (bot.mail).
`/settings email` lists the person's addresses, `/settings email forget ADDRESS`
drops one.
"""

from __future__ import annotations

import re
from datetime import datetime, timedelta
from urllib.parse import unquote, urlsplit

from storage.db import EMAIL, EmailCodes, Person, Records, normal_address

EMAIL_CODE_TTL = timedelta(hours=1)
_ADDRESS = re.compile(r"^[^@\s<>]+@[^@\s<>]+\.[^@\s<>.]+$")
NOT_SET_UP = (
    "Email in is not set up on this brainbot: its owner sets BRAINBOT_IMAP_URL "
    "(docs/mail.md, Email in)."
)


def mailbox_named(imap_url: str | None) -> str | None:
    """What people mail to: the IMAP user when it is an address, else a description;
    None when email in is off."""
    if not imap_url:
        return None
    try:
        user = unquote(urlsplit(imap_url).username or "")
    except ValueError:
        user = ""
    return user if "@" in user else "the brain's mailbox"


async def email_setting(
    records: Records, person: Person, words: list[str], now: datetime, imap_url: str | None
) -> str:
    """The answer to `/settings email [forget] [ADDRESS]`."""
    mailbox = mailbox_named(imap_url)
    if mailbox is None:
        return NOT_SET_UP
    codes = records.email_codes
    if not words:
        return await _listed(records, codes, person, now, mailbox)
    if words[0].lower() in ("forget", "remove") and len(words) == 2:
        if await codes.forget(person.id, words[1]):
            return f"Forgotten: mail from {normal_address(words[1])} is left alone from now on."
        return f"{words[1]} is not one of your addresses. Nothing changed."
    address = normal_address(words[0])
    if len(words) != 1 or not _ADDRESS.match(address):
        return "Try /settings email ada@example.org (or /settings email forget ADDRESS)."
    owner = await records.people.person_for(EMAIL, address)
    if owner is not None and owner.id == person.id:
        return f"{address} is verified already: mail from it to {mailbox} is filed as your notes."
    if owner is not None:
        return f"{address} is someone else's verified address here. Nothing changed."
    code = await codes.ask(person.id, address, now + EMAIL_CODE_TTL)
    return (
        f"To verify {address}, send a mail from it to {mailbox} with {code} in its subject "
        "or text, within an hour. I send nothing to that address; once the mail is here, "
        "I tell you, and mail from it is filed as your notes."
    )


async def _listed(
    records: Records, codes: EmailCodes, person: Person, now: datetime, mailbox: str
) -> str:
    addresses = sorted(
        i.platform_user_id
        for i in await records.people.identities_of(person.id)
        if i.platform == EMAIL
    )
    pending = await codes.pending_of(person.id, now)
    lines = [f"Mail to {mailbox} from " + ", ".join(addresses) + " is filed as your notes."]
    if not addresses:
        lines = ["No verified address yet: /settings email ada@example.org shows how."]
    if pending is not None:
        lines.append(f"Waiting for a mail from {pending.address} with {pending.code}.")
    return " ".join(lines)
