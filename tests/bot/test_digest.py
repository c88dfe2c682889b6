"""What the digest lists, from the index alone: deterministic without a model,
with a short opening when there is one, always inside the platforms' limits."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.digest import TEXT_LIMIT, Digest, compose_digest
from bot.digest_summary import with_summary
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, fail, say
from tests.scheduler.notes import add_notes, note_text, on

DAY = date(2026, 11, 20)  # a Friday
YESTERDAY = DAY - timedelta(days=1)


def _vault_notes() -> dict[str, str]:
    fresh = on(DAY - timedelta(days=2))
    return {
        "projects/website.md": note_text(
            "Website",
            status="active",
            next_action="Draft the landing page",
            updated=fresh,
            due=str(DAY + timedelta(days=3)),
        ),
        "projects/garden.md": note_text(
            "Garden", status="active", next_action="Buy seeds", updated=fresh
        ),
        "projects/old-book.md": note_text(
            "Old book",
            status="active",
            next_action="Write chapter 2",
            updated=on(DAY - timedelta(days=30)),
        ),
        "projects/shipped.md": note_text(
            "Shipped", status="done", next_action="Celebrate", updated=fresh
        ),
        "admin/taxes.md": note_text("Taxes", status="open", due=str(DAY - timedelta(days=2))),
        "admin/passport.md": note_text("Passport", due=str(DAY)),
        "admin/dentist.md": note_text("Dentist", due=str(DAY + timedelta(days=1))),
        "admin/car.md": note_text("Car service", due=str(DAY + timedelta(days=9))),
        "admin/paid.md": note_text("Paid bill", status="done", due=str(DAY - timedelta(days=1))),
        "people/grace.md": note_text("Grace", follow_ups=["Send the slides"], updated=fresh),
        "people/alan.md": note_text("Alan", follow_ups=[], updated=fresh),
        "ideas/tea.md": note_text("Tea shop", created=on(YESTERDAY, 9), updated=on(YESTERDAY, 9)),
        "ideas/older.md": note_text(
            "Older idea", created=on(DAY - timedelta(days=3)), updated=on(YESTERDAY, 10)
        ),
        "inbox/call-bob.md": note_text("Call Bob?"),
        "inbox/what.md": note_text("What was that?"),
    }


def _section(digest: Digest, heading: str) -> list[str]:
    (section,) = [s for s in digest.sections if s.heading.startswith(heading)]
    return list(section.lines)


async def test_daily_digest_lists_what_matters_today(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        digest = await compose_digest(brain.store, day=DAY, zone=ZoneInfo("Europe/Berlin"))
    assert _section(digest, "Next actions") == [
        "Website: Draft the landing page (due 2026-11-23)",
        "Garden: Buy seeds",
        "Old book: Write chapter 2",
    ]
    assert _section(digest, "Due and overdue") == [
        "Taxes — overdue since 2026-11-18",
        "Passport — due today",
        "Dentist — due tomorrow",
    ]
    assert _section(digest, "People to follow up") == ["Grace: Send the slides"]
    assert _section(digest, "Captured yesterday") == ["Tea shop (ideas)"]
    assert _section(digest, "Inbox") == ["2 items wait for a category"]
    assert _section(digest, "Stuck projects") == ["Old book (last change 2026-10-21)"]
    assert [item.path for item in digest.actions] == [
        "projects/website.md",
        "projects/garden.md",
        "projects/old-book.md",
        "admin/taxes.md",
        "admin/passport.md",
        "admin/dentist.md",
    ]
    text = digest.text
    assert text.startswith("Daily digest for Friday 2026-11-20")
    assert "1. Website: Draft the landing page" in text and "6. Dentist — due tomorrow" in text
    assert "• Tea shop (ideas)" in text


async def test_weekly_review_covers_the_week_and_what_was_finished(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        digest = await compose_digest(brain.store, day=DAY, kind="weekly")
    assert digest.text.startswith("Weekly review for Friday 2026-11-20")
    assert _section(digest, "Captured this week") == ["Tea shop (ideas)", "Older idea (ideas)"]
    assert _section(digest, "Finished this week") == ["Shipped (projects)"]


async def test_an_empty_vault_says_nothing_needs_you(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        digest = await compose_digest(brain.store, day=DAY)
    assert digest.sections == () and "Nothing needs you today." in digest.text


async def test_a_huge_vault_still_fits_one_telegram_message(
    tmp_path: Path, database_url: str
) -> None:
    long = "x" * 400
    notes = {
        f"projects/p{i}.md": note_text(f"Project {i} {long}", next_action=long, status="active")
        for i in range(30)
    }
    notes |= {f"admin/a{i}.md": note_text(f"Bill {i} {long}", due=str(DAY)) for i in range(30)}
    notes |= {
        f"ideas/i{i}.md": note_text(f"Idea {i} {long}", created=on(YESTERDAY)) for i in range(30)
    }
    async with running_brain(tmp_path, database_url) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        digest = await compose_digest(brain.store, day=DAY)
    assert len(digest.text) <= TEXT_LIMIT
    assert len(digest.actions) <= 10
    (captured,) = [s for s in digest.sections if s.heading == "Captured yesterday"]
    assert captured.more >= 30 - 8 and f"…and {captured.more} more" in digest.text


async def test_with_a_model_a_short_opening_comes_first_and_the_sections_stay(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [say("Taxes are overdue: do them first. The website can wait.")]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        plain = await compose_digest(brain.store, day=DAY)
        digest = await with_summary(brain.llm, plain)
    assert digest.summary == "Taxes are overdue: do them first. The website can wait."
    assert digest.sections == plain.sections
    assert digest.text.splitlines()[2].startswith("Taxes are overdue")
    request = openai_fake.chat_requests()[0]
    assert "Taxes — overdue since 2026-11-18" in request["messages"][-1]["content"]


async def test_without_the_model_the_digest_goes_out_without_an_opening(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [fail(503)]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault_notes())
        plain = await compose_digest(brain.store, day=DAY)
        digest = await with_summary(brain.llm, plain)
    assert digest == plain


def test_a_digest_survives_the_round_trip_through_the_database_form() -> None:
    from bot.digest import DigestItem, DigestSection

    digest = Digest(
        "daily",
        DAY,
        (
            DigestSection("Next actions", (DigestItem("A: b", "projects/a.md", True, "done"),), 2),
            DigestSection("Inbox", (DigestItem("1 item waits for a category"),)),
        ),
        "Opening.",
    )
    assert Digest.from_content(digest.to_content()) == digest
    assert "1. ✓ A: b — done" in digest.text
