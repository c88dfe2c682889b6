"""One IMAP folder, followed: its unread mails handed over one by one, each marked
\\Seen only once it was taken (a mail left unread stays for a human to see).

IDLE where the server has it (a new mail arrives within a second), else a search
every BRAINBOT_IMAP_POLL_SECONDS (with IDLE too, as a safety net). A lost connection,
a refused login or a server that is down is logged and tried again after a pause
that doubles up to five minutes; it never ends the bot. The IMAP client is
imapclient (complete, synchronous): each call runs in a thread, one at a time, so
the event loop never waits on the network.
"""

from __future__ import annotations

import asyncio
import contextlib
import email.policy
import enum
import logging
import ssl
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from email.parser import BytesParser
from typing import Any

from imapclient import SEEN, IMAPClient
from imapclient.exceptions import IMAPClientError, LoginError

from adapters.imap.url import MailboxUrl

log = logging.getLogger(__name__)

IDLE_RENEW = 9 * 60.0  # seconds; servers may end an IDLE after 29 minutes (RFC 2177)
IDLE_TICK = 1.0  # how often a waiting IDLE looks at the stop signal
FIRST_PAUSE = 1.0
LONGEST_PAUSE = 300.0


class Taken(enum.Enum):
    """What became of one mail: SEEN (taken: marked read), LEAVE (not ours: left unread,
    not looked at again while this connection lasts), LATER (try again next round)."""

    SEEN = "seen"
    LEAVE = "leave"
    LATER = "later"


OnMail = Callable[[bytes], Awaitable[Taken]]


@dataclass(frozen=True, slots=True)
class Checked:
    """What `Mailbox.check` found: a line for doctor, and one header's lines (top
    first) in each of the newest mails, newest first."""

    said: str
    headers: list[list[str]]


class MailboxError(Exception):
    """The mailbox cannot be used; the message says why in a person's words."""


class Mailbox:
    """The folder BRAINBOT_IMAP_URL names, on its server."""

    def __init__(
        self,
        url: MailboxUrl,
        *,
        ca_file: str | None = None,
        poll_seconds: float,
        max_bytes: int,
        timeout: float = 30.0,
        first_pause: float = FIRST_PAUSE,
    ) -> None:
        self.url = url
        self.ca_file = ca_file
        self.poll_seconds = poll_seconds
        self.max_bytes = max_bytes
        self.timeout = timeout
        self.first_pause = first_pause
        self.connected = False
        self.idles = False  # the server has IDLE (known once connected)
        self._left: set[tuple[int, int]] = set()  # (UIDVALIDITY, UID) left unread
        self._validity = 0

    def reconsider(self) -> None:
        """Look again at the mails left unread (a sender may have become someone's)."""
        self._left.clear()

    async def check(self, header: str = "Authentication-Results", newest: int = 5) -> Checked:
        """Log in and open the folder once: what doctor says of it, and the `header`
        lines of its `newest` mails; MailboxError if it cannot be opened."""
        client = await asyncio.to_thread(self._open)
        try:
            unread = len(await asyncio.to_thread(client.search, ["UNSEEN"]))
            how = "IDLE" if b"IDLE" in client.capabilities() else "polling"
            said = f"{self.url.folder} on {self.url.host}: {unread} unread; {how}"
            return Checked(said, await asyncio.to_thread(_headers, client, header, newest))
        finally:
            await asyncio.to_thread(_close, client)

    async def follow(self, on_mail: OnMail, stop: asyncio.Event) -> None:
        """Hand each unread mail to `on_mail` until `stop` is set."""
        pause = self.first_pause
        while not stop.is_set():
            client: IMAPClient | None = None
            try:
                client = await asyncio.to_thread(self._open)
                self.connected = True
                log.info("reading mail from %s (%s)", self.url, "IDLE" if self.idles else "polls")
                while not stop.is_set():
                    later = await self._round(client, on_mail, stop)
                    pause = self.first_pause  # a round went through: the trouble is over
                    await self._wait(client, stop, later)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("mail from %s: %s; trying again in %g s", self.url, _said(exc), pause)
            finally:
                self.connected = False
                if client is not None:
                    await asyncio.to_thread(_close, client)
            if not stop.is_set():
                await _sleep(stop, pause)
                pause = min(pause * 2, LONGEST_PAUSE)

    def _open(self) -> IMAPClient:
        url = self.url
        context = ssl.create_default_context(cafile=self.ca_file)
        try:
            client = IMAPClient(
                url.host, port=url.port, ssl=url.tls, ssl_context=context, timeout=self.timeout
            )
        except ssl.SSLCertVerificationError as exc:
            reason = exc.verify_message
            raise MailboxError(f"the server's certificate is not trusted ({reason})") from None
        except OSError as exc:
            raise MailboxError(f"cannot reach {url.host}:{url.port} ({_said(exc)})") from None
        try:
            if not url.tls:
                if b"STARTTLS" not in client.capabilities():
                    raise MailboxError(
                        "the server offers no STARTTLS; use imaps:// (the password is never "
                        "sent unencrypted)"
                    )
                client.starttls(context)
            client.login(url.user, url.password)
            selected = client.select_folder(url.folder)
        except LoginError:
            _close(client)
            raise MailboxError(f"the server refused the login of {url.user}") from None
        except IMAPClientError as exc:
            _close(client)
            raise MailboxError(f"cannot open the folder {url.folder!r}: {_said(exc)}") from None
        except BaseException:
            _close(client)
            raise
        validity = int(selected.get(b"UIDVALIDITY", 0))
        if validity != self._validity:
            self._left.clear()
            self._validity = validity
        self.idles = b"IDLE" in client.capabilities()
        return client

    async def _round(self, client: IMAPClient, on_mail: OnMail, stop: asyncio.Event) -> bool:
        """Take the unread mails; True when one is to be tried again later."""
        unread = await asyncio.to_thread(client.search, ["UNSEEN"])
        todo = [uid for uid in unread if (self._validity, uid) not in self._left]
        if not todo:
            return False
        sizes: dict[int, Any] = await asyncio.to_thread(client.fetch, todo, ["RFC822.SIZE"])
        later = False
        for uid in todo:
            if stop.is_set():
                return later
            size = int(sizes.get(uid, {}).get(b"RFC822.SIZE", 0))
            if size > self.max_bytes:
                log.warning("mail %d is %d bytes, over %d: left unread", uid, size, self.max_bytes)
                self._left.add((self._validity, uid))
                continue
            fetched = await asyncio.to_thread(client.fetch, [uid], ["BODY.PEEK[]"])
            raw = fetched.get(uid, {}).get(b"BODY[]")
            if not isinstance(raw, bytes):
                continue  # expunged meanwhile
            taken = await _take(on_mail, raw, uid)
            if taken is Taken.SEEN:
                await asyncio.to_thread(client.add_flags, [uid], [SEEN])
            elif taken is Taken.LEAVE:
                self._left.add((self._validity, uid))
            else:
                later = True
        return later

    async def _wait(self, client: IMAPClient, stop: asyncio.Event, later: bool) -> None:
        """Until a mail arrives (IDLE), the next poll, or `stop`."""
        if not self.idles or later:
            await _sleep(stop, self.poll_seconds)
            return
        # A mail that arrived during the round is announced in the next answer: NOOP's.
        _, said = await asyncio.to_thread(client.noop)
        if _arrived(said):
            return
        loop = asyncio.get_running_loop()
        # One announced between NOOP and IDLE may be lost: the next poll finds it.
        deadline = loop.time() + min(IDLE_RENEW, self.poll_seconds)
        await asyncio.to_thread(client.idle)
        try:
            while not stop.is_set() and loop.time() < deadline:
                if _arrived(await asyncio.to_thread(client.idle_check, IDLE_TICK)):
                    return
        finally:
            await asyncio.to_thread(client.idle_done)


def _headers(client: IMAPClient, name: str, newest: int) -> list[list[str]]:
    """The `name` lines of the folder's `newest` mails, read without marking them."""
    uids = sorted(client.search(["ALL"]))[-newest:]
    if not uids:
        return []
    section = f"BODY.PEEK[HEADER.FIELDS ({name.upper()})]"
    fetched = client.fetch(uids, [section])
    found = []
    for uid in reversed(uids):
        raw = next((v for k, v in fetched.get(uid, {}).items() if k.startswith(b"BODY")), b"")
        head = BytesParser(policy=email.policy.default).parsebytes(raw, headersonly=True)
        found.append([str(value) for value in head.get_all(name) or []])
    return found


def _arrived(said: list[Any]) -> bool:
    """Whether untagged answers announce a new mail (`* 3 EXISTS`)."""
    return any(
        isinstance(line, tuple) and len(line) > 1 and line[1] in (b"EXISTS", b"RECENT")
        for line in said
    )


async def _take(on_mail: OnMail, raw: bytes, uid: int) -> Taken:
    try:
        return await on_mail(raw)
    except asyncio.CancelledError:
        raise
    except Exception:
        log.exception("mail %d could not be taken; trying again later", uid)
        return Taken.LATER


async def _sleep(stop: asyncio.Event, seconds: float) -> None:
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), seconds)


def _close(client: IMAPClient) -> None:
    try:
        client.logout()
    except Exception:
        try:
            client.shutdown()
        except Exception:
            log.debug("closing an IMAP connection failed", exc_info=True)


def _said(exc: BaseException) -> str:
    """An error in words: imaplib's carry the server's answer as bytes."""
    said = exc.args[0] if len(exc.args) == 1 else None
    if isinstance(said, bytes):
        return said.decode(errors="replace")
    return str(exc) or type(exc).__name__
