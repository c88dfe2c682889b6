"""A new install is closed: platforms refuse everyone (nothing stored) until its owner
sends the one-time claim code; the console always works."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import text

from bot.events import Conversation, InboundMessage, Sender
from tests.bot.helpers import notes, vault_of
from tests.fakes.brain import running_brain


def telegram(text: str, user: str = "42", event_id: str = "1") -> InboundMessage:
    return InboundMessage(
        event_id,
        Conversation("telegram", user),
        Sender("telegram", user, "Ada"),
        text,
        datetime.now(UTC),
    )


async def test_nobody_gets_in_until_the_owner_claims_the_install(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_ALLOWED_USERS="") as brain:
        vault = brain.settings.vault_dir
        (refused,) = await brain.engine.handle(telegram("project: paint the fence"))
        assert refused.text.startswith("Sorry")
        assert notes(vault) == []
        async with brain.database.engine.connect() as conn:
            stored = await conn.scalar(text("SELECT count(*) FROM inbound_events"))
        assert stored == 0

        code = await brain.records.admission.claim_code(datetime.now(UTC))
        assert code is not None
        (wrong,) = await brain.engine.handle(telegram("/start AAAA-BBBB-CCCC", event_id="2"))
        assert wrong.text == "That code is not valid."
        (welcome,) = await brain.engine.handle(telegram(f"/start {code.lower()}", event_id="3"))
        assert "you are its owner" in welcome.text
        await brain.engine.handle(telegram("project: paint the fence", event_id="4"))
        assert notes(vault) == ["projects/paint-the-fence.md"]

        # The code worked once: another stranger cannot use it again.
        (again,) = await brain.engine.handle(telegram(f"/start {code}", user="77", event_id="5"))
        assert again.text == "That code is not valid."
        assert await brain.records.admission.claim_code(datetime.now(UTC)) is None
        # The console needs no claim: whoever has the terminal has the files.
        console = InboundMessage(
            "c1",
            Conversation("console", "me"),
            Sender("console", "me"),
            "idea: kites",
            datetime.now(UTC),
        )
        await brain.engine.handle(console)
        # The console is another person: its note is in its own vault, not the owner's.
        assert notes(await vault_of(brain, "console", "me")) == ["ideas/kites.md"]
        assert notes(vault) == ["projects/paint-the-fence.md"]


async def test_guessing_the_claim_code_is_locked_out(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_ALLOWED_USERS="") as brain:
        code = await brain.records.admission.claim_code(datetime.now(UTC))
        for n in range(5):
            await brain.engine.handle(telegram(f"/start WRONG{n}XXXXXXX", event_id=f"g{n}"))
        (locked,) = await brain.engine.handle(telegram(f"/start {code}", event_id="right"))
        assert locked.text.startswith("Sorry")  # even the right code, for a while
        assert await brain.records.admission.claim_code(datetime.now(UTC)) == code


async def test_link_codes_are_long_and_guessing_them_is_locked_out(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, BRAINBOT_ALLOWED_USERS="telegram:42") as brain:
        (offer,) = await brain.engine.handle(telegram("/link"))
        code = offer.text.split("code is ")[1].split(".")[0]
        assert len(code.replace("-", "")) == 8
        # Where the other account may be: the platforms app registers, as people read them.
        assert "from your other account (Slack or Telegram)" in offer.text
        for n in range(5):
            (wrong,) = await brain.engine.handle(
                telegram(f"/link WRONG{n}XX", user="77", event_id=f"w{n}")
            )
            assert "unknown or has expired" in wrong.text
        (locked,) = await brain.engine.handle(telegram(f"/link {code}", user="77", event_id="r"))
        assert "Too many wrong codes" in locked.text
        assert len(await brain.records.people.all()) == 1
        # Another account with the right code (typed in lower case) joins the person.
        (linked,) = await brain.engine.handle(
            telegram(f"/link {code.lower()}", user="88", event_id="ok")
        )
        assert linked.text.startswith("Linked")
        await brain.engine.handle(telegram("project: paint the fence", user="88", event_id="p"))
        assert notes(brain.settings.vault_dir) == ["projects/paint-the-fence.md"]
