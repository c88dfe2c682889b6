"""Whose mail is filed: an address its person verified by mailing a code from it, and
only when the receiving server vouches for the From line. Anyone else's mail is left
unread and nothing of it is stored."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import text

from app.commands.run import run
from app.mail import mail_check, refusal
from app.settings_check import EXIT_CONFIG
from storage.db.email_codes import EMAIL
from tests.bot.mail.conftest import ADA, MX, MailIn, mail, mail_in, until
from tests.fakes.brain import make_settings
from tests.fakes.imap_server import ImapServer


async def _events(box: MailIn) -> int:
    async with box.brain.database.engine.connect() as conn:
        found = await conn.scalar(
            text("SELECT count(*) FROM inbound_events WHERE platform = 'email'")
        )
    return int(found or 0)


async def _addresses(box: MailIn) -> list[str]:
    identities = await box.brain.records.people.identities_of(box.ada.id)
    return [i.platform_user_id for i in identities if i.platform == EMAIL]


async def test_a_code_mailed_from_the_address_verifies_it(inbox: MailIn) -> None:
    before = inbox.imap.flags()
    answer = await inbox.say(f"/settings email {ADA.upper()}")
    code = re.search(r"[A-Z0-9]{4}-[A-Z0-9]{4}", answer)
    assert code is not None and "brain@example.net" in answer and "within an hour" in answer
    assert inbox.imap.flags() == before  # nothing was sent anywhere
    inbox.follow()
    inbox.imap.append(mail("is it me?", subject="code ABCD-EFGH", message_id="<wrong@x>"))
    await until(lambda: "wrong@x" in inbox.imap.flags())
    await inbox.brain.engine.enricher.wait_idle()
    assert await _addresses(inbox) == [] and inbox.imap.flags()["wrong@x"] is False
    inbox.imap.append(mail(f"code {code[0].lower()}", subject="verify", message_id="<right@x>"))
    await until(lambda: inbox.imap.flags().get("right@x") is True)
    assert await _addresses(inbox) == [ADA]
    assert inbox.notes() == []  # the proof is not a note
    [(where, said)] = inbox.told
    assert where.chat_id == "chat-1" and said.startswith(f"Verified: mail from {ADA}")
    assert "filed as your notes" in await inbox.say("/settings email")
    # The mail that came before, left unread, is hers now.
    await until(lambda: inbox.imap.flags().get("wrong@x") is True)
    [note] = inbox.notes()
    assert "is it me?" in (inbox.vault / note).read_text()


async def test_a_code_expires_after_an_hour(inbox: MailIn) -> None:
    answer = await inbox.say(f"/settings email {ADA}")
    code = re.search(r"[A-Z0-9]{4}-[A-Z0-9]{4}", answer)
    assert code is not None
    inbox.clock.advance(minutes=61)
    inbox.follow()
    inbox.imap.append(mail(code[0], subject="verify", message_id="<late@x>"))
    await until(lambda: "late@x" in inbox.imap.flags())
    await inbox.filer().take(mail(code[0], subject="verify").as_bytes())
    assert await _addresses(inbox) == [] and inbox.imap.flags()["late@x"] is False
    assert "Waiting" not in await inbox.say("/settings email")


async def test_mail_from_an_unknown_sender_stays_unread_and_is_not_stored(
    inbox: MailIn,
) -> None:
    await inbox.verify()
    inbox.follow()
    inbox.imap.append(
        mail("the password is hunter2", sender="eve@example.com", message_id="<eve@x>")
    )
    inbox.imap.append(mail("mine", message_id="<ada@x>"))
    await until(lambda: inbox.imap.flags().get("ada@x") is True)
    assert inbox.imap.flags()["eve@x"] is False
    assert len(inbox.notes()) == 1 and await _events(inbox) == 1
    async with inbox.brain.database.engine.connect() as conn:
        stored = await conn.scalar(
            text("SELECT count(*) FROM inbound_events WHERE text LIKE '%hunter2%'")
        )
    assert stored == 0


async def test_a_forged_from_line_is_not_the_persons(inbox: MailIn) -> None:
    await inbox.verify()
    inbox.follow()
    forged = (
        f"{MX}; dkim=none; spf=fail smtp.mailfrom=attacker.example",
        # The sender's own header, below the server's: not believed.
        "mx.example.org; dkim=pass header.d=example.org; spf=pass smtp.mailfrom=example.org",
    )
    inbox.imap.append(mail("forged", results=forged, message_id="<forged@x>"))
    inbox.imap.append(mail("no header", results=(), message_id="<bare@x>"))
    other = (
        f"{MX}; dkim=pass header.d=attacker.example; spf=pass smtp.mailfrom=a@attacker.example",
    )
    inbox.imap.append(mail("other domain", results=other, message_id="<other@x>"))
    # What the server wrote of an envelope sender with a quoted local part.
    quoted = (f'{MX}; spf=pass smtp.mailfrom="x smtp.mailfrom=@example.org y"@attacker.example',)
    inbox.imap.append(mail("quoted", results=quoted, message_id="<quoted@x>"))
    inbox.imap.append(
        mail(
            "real",
            results=(f"{MX}; spf=pass smtp.mailfrom=ada@example.org",),
            message_id="<real@x>",
        )
    )
    await until(lambda: inbox.imap.flags().get("real@x") is True)
    flags = inbox.imap.flags()
    assert not flags["forged@x"] and not flags["bare@x"] and not flags["other@x"]
    assert not flags["quoted@x"]
    assert len(inbox.notes()) == 1 and await _events(inbox) == 1


async def test_an_authserv_id_names_whose_header_counts(
    tmp_path: Path, database_url: str, imap: ImapServer
) -> None:
    async with mail_in(tmp_path, database_url, imap, BRAINBOT_IMAP_AUTHSERV_ID=MX) as box:
        await box.verify()
        box.follow()
        fake_on_top = (
            "relay.example.com; dkim=pass header.d=example.org",
            f"{MX}; dkim=fail header.d=example.org; spf=softfail",
        )
        box.imap.append(mail("fake", results=fake_on_top, message_id="<fake@x>"))
        real_below = ("relay.example.com; dkim=none", f"{MX}; dkim=pass header.d=example.org")
        box.imap.append(mail("real", results=real_below, message_id="<real@x>"))
        await until(lambda: box.imap.flags().get("real@x") is True)
        assert box.imap.flags()["fake@x"] is False and len(box.notes()) == 1


async def test_servers_without_the_header_can_be_trusted_by_a_setting(
    tmp_path: Path, database_url: str, imap: ImapServer
) -> None:
    settings = {"BRAINBOT_IMAP_TRUST_UNAUTHENTICATED": "true"}
    async with mail_in(tmp_path, database_url, imap, **settings) as box:
        await box.verify()
        box.follow()
        box.imap.append(mail("no header at all", results=(), message_id="<bare@x>"))
        box.imap.append(
            mail("not hers", results=(), sender="bob@example.org", message_id="<bob@x>")
        )
        await until(lambda: box.imap.flags().get("bare@x") is True)
        assert box.imap.flags()["bob@x"] is False and len(box.notes()) == 1


async def test_without_the_servers_name_email_in_does_not_start(
    tmp_path: Path, database_url: str, imap: ImapServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A forged From line and a header of the sender's own on a server that adds none:
    without BRAINBOT_IMAP_AUTHSERV_ID `brainbot run` does not start (unless
    BRAINBOT_IMAP_TRUST_UNAUTHENTICATED says so on purpose), and doctor says why."""
    own = ("mx.attacker.example; dkim=pass header.d=example.org; spf=pass",)
    imap.append(mail("forged", results=own, message_id="<forged@x>"))
    mailbox = {"BRAINBOT_IMAP_URL": imap.url, "BRAINBOT_IMAP_CA_FILE": imap.ca_file}
    settings = make_settings(tmp_path, database_url, **mailbox)
    assert await run(settings) == EXIT_CONFIG
    assert "BRAINBOT_IMAP_AUTHSERV_ID is not, so email in does not start" in caplog.text
    assert imap.flags() == {"forged@x": False} and not (tmp_path / "data").exists()
    ok, problem = await mail_check(settings)
    assert ok.level == "ok" and problem.level == "problem"
    assert "would vouch for a forged From line" in problem.detail
    assert "the newest mails name mx.attacker.example" in problem.fix
    assert "BRAINBOT_IMAP_TRUST_UNAUTHENTICATED=true" in problem.fix
    trusting = make_settings(
        tmp_path, database_url, BRAINBOT_IMAP_TRUST_UNAUTHENTICATED="true", **mailbox
    )
    assert refusal(trusting) is None
    assert [f.level for f in await mail_check(trusting)] == ["ok", "warning"]
    named = make_settings(tmp_path, database_url, BRAINBOT_IMAP_AUTHSERV_ID=MX, **mailbox)
    assert refusal(named) is None
    _, wrong = await mail_check(named)
    assert wrong.level == "warning" and "their mail is left unread" in wrong.detail
