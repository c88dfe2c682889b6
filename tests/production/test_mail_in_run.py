"""Email in as a person meets it with `brainbot run`: `/settings email` in Telegram
shows a code, the mail carrying it verifies the address (and the bot says so in
Telegram), the next mail is a note; two processes reading the same mailbox file
each mail once. The IMAP server is pymap, started by the test."""

from __future__ import annotations

import asyncio
import re
import signal
import time
from email.message import EmailMessage
from pathlib import Path

import pytest

from tests.bot.helpers import notes_by_vault
from tests.fakes.imap_server import ImapServer
from tests.fakes.telegram_updates import Updates
from tests.production.conftest import Fakes
from tests.production.process import Brainbot

pytestmark = pytest.mark.slow  # starts brainbot processes

ADA = "ada@example.org"


def _mail(text: str, subject: str, message_id: str) -> EmailMessage:
    msg = EmailMessage()
    msg["Authentication-Results"] = "mx.example.net; dkim=pass header.d=example.org"
    msg["From"] = f"Ada <{ADA}>"
    msg["To"] = "brain@example.net"
    msg["Subject"] = subject
    msg["Message-ID"] = f"<{message_id}>"
    msg.set_content(text)
    return msg


async def _seen(imap: ImapServer, ids: list[str], within: float = 30.0) -> None:
    deadline = time.monotonic() + within
    while True:
        flags = await asyncio.to_thread(imap.flags)
        if all(flags.get(i) for i in ids):
            return
        assert time.monotonic() < deadline, f"not all of {ids} read within {within} s"
        await asyncio.sleep(0.3)


async def _verify(bot: Brainbot, fakes: Fakes, imap: ImapServer) -> None:
    """Ada, in Telegram: `/settings email`, then the mail with the code; told in Telegram."""
    await bot.wait_for_log("reading mail from imaps://brain@example.net@127.0.0.1")
    fakes.telegram.queue_update(Updates().message(f"/settings email {ADA}"))
    (asked,) = await fakes.telegram.wait_for("sendMessage", within=20)
    code = re.search(r"[A-Z0-9]{4}-[A-Z0-9]{4}", asked["text"])
    assert code is not None and "brain@example.net" in asked["text"]
    imap.append(_mail(f"code {code[0]}", "verify", "verify@x"))
    told = (await fakes.telegram.wait_for("sendMessage", 2, within=30))[-1]
    assert told["text"].startswith(f"Verified: mail from {ADA}")


@pytest.mark.slow(seconds=15)
async def test_a_person_verifies_an_address_and_mails_notes_in(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    root = tmp_path / "imap"
    root.mkdir()
    imap = ImapServer(root, tls=True)
    imap.start()
    mail_settings = {
        "BRAINBOT_IMAP_URL": imap.url,
        "BRAINBOT_IMAP_CA_FILE": imap.ca_file,
        "BRAINBOT_IMAP_AUTHSERV_ID": "mx.example.net",
        "BRAINBOT_RATE_LIMIT": "0",
        # IDLE tells of a new mail at once, but one that lands between a round's NOOP and
        # the next IDLE is only found by the next search (adapters.imap.mailbox): with two
        # processes and mails sent back to back that happens, and 60 s is past the wait.
        "BRAINBOT_IMAP_POLL_SECONDS": "5",
    }
    try:
        env = fakes.env(tmp_path, database_url, slack=None, **mail_settings)
        bot = await Brainbot(tmp_path, env).start()
        try:
            await bot.wait_ready()
            await _verify(bot, fakes, imap)
            imap.append(_mail("Call the roofer about the leak.", "Roof", "roof@x"))
            await _seen(imap, ["verify@x", "roof@x"])
        finally:
            assert await bot.stop() == 0, bot.log()
        [(vault, filed)] = [(v, n) for v, n in notes_by_vault(tmp_path / "data").items() if n]
        assert len(filed) == 1 and "roof" in filed[0]

        # Two processes follow the same mailbox: each mail is filed once.
        env = fakes.env(tmp_path, database_url, slack="http", telegram=False, **mail_settings)
        bots = [Brainbot(tmp_path, env, name=f"bot{n}") for n in range(2)]
        for each in bots:
            await each.start()
        try:
            for each in bots:
                await each.wait_ready()
                await each.wait_for_log("reading mail from")
            ids = [f"pair-{n}@x" for n in range(6)]
            for n, message_id in enumerate(ids):
                imap.append(_mail(f"thought {n}", f"Thought {n}", message_id))
            await _seen(imap, ids)
            await asyncio.sleep(1.0)  # a second filing, if any, would have landed by now
        finally:
            for each in bots:
                assert await each.stop() == 0, each.log()
        filed = notes_by_vault(tmp_path / "data")[vault]
        assert len(filed) == 7, filed
    finally:
        imap.stop()


@pytest.mark.slow(seconds=9)
async def test_a_mail_filed_before_a_kill_is_not_filed_again(
    tmp_path: Path, database_url: str, fakes: Fakes
) -> None:
    root = tmp_path / "imap"
    root.mkdir()
    refuse = root / "refuse-flags"
    imap = ImapServer(root, tls=True, refuse_flags_while=refuse)
    imap.start()
    env = fakes.env(
        tmp_path,
        database_url,
        slack=None,
        BRAINBOT_IMAP_URL=imap.url,
        BRAINBOT_IMAP_CA_FILE=imap.ca_file,
        BRAINBOT_IMAP_AUTHSERV_ID="mx.example.net",
    )
    try:
        first = await Brainbot(tmp_path, env, name="first").start()
        try:
            await first.wait_ready()
            await _verify(first, fakes, imap)
            await _seen(imap, ["verify@x"])
            refuse.touch()  # from now on a mail can be filed but not marked read
            imap.append(_mail("Call the roofer about the leak.", "Roof", "roof@x"))
            await first.wait_for_log("Flags cannot be changed now", within=30)
            filed = [n for n in notes_by_vault(tmp_path / "data").values() if n]
            assert len(filed) == 1 and len(filed[0]) == 1, filed  # filed, not marked read
        finally:
            first.signal(signal.SIGKILL)
            await first.wait()
        assert (await asyncio.to_thread(imap.flags))["roof@x"] is False
        refuse.unlink()
        second = await Brainbot(tmp_path, env, name="second").start()
        try:
            await second.wait_ready()
            await _seen(imap, ["roof@x"])
            await second.wait_for_log("mail roof@x from ada@example.org: filed before")
        finally:
            assert await second.stop() == 0, second.log()
        filed = [n for n in notes_by_vault(tmp_path / "data").values() if n]
        assert len(filed) == 1 and len(filed[0]) == 1, filed
    finally:
        imap.stop()
