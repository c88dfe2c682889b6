"""A mail is filed once: by its Message-ID, whoever reads it and however often (two
pollers at once, or a restart after it was filed but before it was marked read)."""

from __future__ import annotations

import re

from sqlalchemy import text

from tests.bot.mail.conftest import ADA, MailIn, mail, until


async def test_two_pollers_at_once_file_each_mail_once(inbox: MailIn) -> None:
    await inbox.verify()
    ids = [f"twice-{n}@x" for n in range(6)]
    for n, message_id in enumerate(ids):
        inbox.imap.append(
            mail(f"thought number {n}", subject=f"Thought {n}", message_id=f"<{message_id}>")
        )
    inbox.follow()
    inbox.follow()
    await until(lambda: all(inbox.imap.flags().get(i) for i in ids))
    await inbox.brain.engine.enricher.wait_idle()
    assert len(inbox.notes()) == 6
    async with inbox.brain.database.engine.connect() as conn:
        events = await conn.scalar(
            text("SELECT count(*) FROM inbound_events WHERE platform = 'email'")
        )
    assert events == 6


async def test_a_mail_filed_but_left_unread_by_a_crash_is_not_filed_again(
    inbox: MailIn,
) -> None:
    await inbox.verify()
    sent = mail("the boiler needs a service", subject="Boiler", message_id="<boiler@x>")
    inbox.imap.append(sent)
    # The filing happened, then the process died before the mail was marked read.
    assert await inbox.filer().take(sent.as_bytes()) == "seen"
    assert inbox.imap.flags()["boiler@x"] is False and len(inbox.notes()) == 1
    inbox.follow()  # the next start
    await until(lambda: inbox.imap.flags()["boiler@x"] is True)
    assert len(inbox.notes()) == 1


async def test_the_same_message_id_from_two_people_is_two_notes(inbox: MailIn) -> None:
    """The Message-ID is kept per person: another person's mail cannot shadow one."""
    await inbox.verify()
    bob = await inbox.brain.records.people.add(
        platform="test",
        platform_user_id="U2",
        name="Bob",
        timezone=None,
        home_chat_id="chat-2",
        now=inbox.clock(),
    )
    await inbox.brain.records.people.add_identity(
        bob.id, "email", "bob@example.org", "Bob", inbox.clock()
    )
    filer = inbox.filer()
    assert (
        await filer.take(
            mail("from Bob", sender="bob@example.org", message_id="<same@x>").as_bytes()
        )
        == "seen"
    )
    assert await filer.take(mail("from Ada", message_id="<same@x>").as_bytes()) == "seen"
    assert len(inbox.notes()) == 1  # Ada's vault; Bob's note is in his
    assert "from Ada" in (inbox.vault / inbox.notes()[0]).read_text()


async def test_a_verification_mail_read_again_is_no_note(inbox: MailIn) -> None:
    """Read again after a crash before it was marked read, the proof is still no note."""
    answer = await inbox.say(f"/settings email {ADA}")
    code = re.search(r"[A-Z0-9]{4}-[A-Z0-9]{4}", answer)
    assert code is not None
    proof = mail(f"code {code[0]}", subject="verify").as_bytes()
    assert await inbox.filer().take(proof) == "seen"
    assert await inbox.filer().take(proof) == "seen"
    assert inbox.notes() == [] and len(inbox.told) == 1
