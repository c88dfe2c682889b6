"""`/settings email` as a person types it: a code and nothing sent, the list of their
addresses, forgetting one, and a clear answer to everything else."""

from __future__ import annotations

from pathlib import Path

from storage.db.email_codes import EMAIL
from tests.bot.helpers import message
from tests.bot.mail.conftest import ADA, MailIn, mail
from tests.fakes.brain import running_brain


async def test_addresses_are_listed_and_forgotten(inbox: MailIn) -> None:
    assert "No verified address yet" in await inbox.say("/settings email")
    asked = await inbox.say(f"/settings email {ADA}")
    assert "Waiting for a mail from ada@example.org" in await inbox.say("/settings email")
    await inbox.verify()
    assert "verified already" in await inbox.say(f"/settings email {ADA}")
    assert "ada@example.org is filed as your notes" in await inbox.say("/settings email")
    assert "Forgotten" in await inbox.say(f"/settings email forget {ADA}")
    assert await inbox.filer().take(mail("after forgetting").as_bytes()) == "leave"
    assert inbox.notes() == [] and "brain@example.net" in asked


async def test_bad_words_and_someone_elses_address_change_nothing(inbox: MailIn) -> None:
    for words in ("not-an-address", "ada@example", "a b@example.org"):
        assert "Try /settings email ada@example.org" in await inbox.say(f"/settings email {words}")
    assert "not one of your addresses" in await inbox.say("/settings email forget x@example.org")
    bob = await inbox.brain.records.people.add(
        platform="test",
        platform_user_id="U2",
        name="Bob",
        timezone=None,
        home_chat_id="chat-2",
        now=inbox.clock(),
    )
    await inbox.brain.records.people.add_identity(bob.id, EMAIL, ADA, "Bob", inbox.clock())
    assert "someone else's" in await inbox.say(f"/settings email {ADA}")
    assert "Waiting" not in await inbox.say("/settings email")


async def test_without_a_mailbox_the_setting_says_so(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        [reply] = await brain.engine.handle(message(f"/settings email {ADA}"))
        assert "Email in is not set up" in reply.text and "BRAINBOT_IMAP_URL" in reply.text
