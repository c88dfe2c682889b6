"""BRAINBOT_IMAP_URL read once: which server, how encrypted, whose mailbox, which folder.

`imaps://USER:PASSWORD@HOST[:PORT][/FOLDER]` is IMAP over TLS (port 993), what every
mail provider offers; `imap://…` (port 143) must upgrade with STARTTLS, and a server
that does not offer it is refused: the password never crosses the network in clear.
A user or password with `@`, `:` or `/` is written percent-encoded (`%40`, `%3A`,
`%2F`). The folder is INBOX unless the path names another (`/Brain` or
`/INBOX%2FBrain` for a subfolder).
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

PORTS = {"imaps": 993, "imap": 143}
EXAMPLE = "imaps://brain%40example.org:PASSWORD@imap.example.org/INBOX"


class BadMailboxUrl(ValueError):
    """BRAINBOT_IMAP_URL cannot be used; the message says what to write instead."""


@dataclass(frozen=True, slots=True)
class MailboxUrl:
    host: str
    port: int
    tls: bool  # True: TLS from the first byte (imaps); False: STARTTLS (imap)
    user: str
    password: str = ""
    folder: str = "INBOX"

    def __str__(self) -> str:
        scheme = "imaps" if self.tls else "imap"
        return f"{scheme}://{self.user}@{self.host}:{self.port}/{self.folder}"


def mailbox_url(url: str) -> MailboxUrl:
    """`url` read; BadMailboxUrl saying what is wrong (never echoing the password)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as exc:
        raise BadMailboxUrl(f"is not a URL ({exc}); e.g. {EXAMPLE}") from None
    scheme = parts.scheme.lower()
    if scheme not in PORTS:
        raise BadMailboxUrl(
            f"must start with imaps:// (IMAP over TLS, port 993) or imap:// (STARTTLS, "
            f"port 143); e.g. {EXAMPLE}"
        )
    if not parts.hostname:
        raise BadMailboxUrl(f"names no server; e.g. {EXAMPLE}")
    if not parts.username:
        raise BadMailboxUrl(f"names no user to log in as; e.g. {EXAMPLE}")
    if parts.password is None:
        raise BadMailboxUrl(f"has no password after the user name; e.g. {EXAMPLE}")
    if parts.query or parts.fragment:
        raise BadMailboxUrl("takes no ?options or #fragment: see BRAINBOT_IMAP_CA_FILE")
    folder = unquote(parts.path.lstrip("/")) or "INBOX"
    return MailboxUrl(
        host=parts.hostname,
        port=port or PORTS[scheme],
        tls=scheme == "imaps",
        user=unquote(parts.username),
        password=unquote(parts.password),
        folder=folder,
    )
