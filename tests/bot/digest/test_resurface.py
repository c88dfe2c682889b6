"""The past comes back: "From your notes" in the daily digest (older notes close to
what was filed in the last days) and "On this day" in the weekly review, as the
person receives them, with Open / Done / Less like this."""

from __future__ import annotations

import logging
from datetime import date, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

import frontmatter
import pytest
from sqlalchemy import text

from adapters.telegram.render import callback_data
from app.runtime import Runtime
from app.scheduling import build_service
from bot.digest import compose_digest
from bot.events import Reply
from tests.bot.helpers import press
from tests.fakes.brain import Clock, running_brain
from tests.fakes.openai_server import FakeOpenAI, say
from tests.scheduler.notes import add_notes, note_text, on
from tests.scheduler.outbox import Outbox, add_ada

DAY = date(2026, 11, 20)  # a Friday
MORNING = on(DAY, 7)  # 08:00 in Berlin
BERLIN = ZoneInfo("Europe/Berlin")
LONG_AGO = on(date(2026, 6, 1))
# The fake model's vectors: words hashed into 32 dimensions (similar texts, similar vectors).
VECTORS = {"BRAINBOT_EMBEDDINGS": "openai", "BRAINBOT_EMBEDDING_DIMENSIONS": 32}
GREENHOUSE = "grow tomatoes in the greenhouse with compost and rain water"


def _vault() -> dict[str, str]:
    return {
        "ideas/greenhouse.md": note_text("Greenhouse tomatoes", GREENHOUSE, created=LONG_AGO),
        "ideas/heater.md": note_text(
            "Greenhouse heater", GREENHOUSE + " and a heater", created=LONG_AGO
        ),
        "ideas/taxes.md": note_text(
            "Quarterly taxes", "accountant invoices receipts ledger", created=LONG_AGO
        ),
        "ideas/done.md": note_text("Greenhouse done", GREENHOUSE, created=LONG_AGO, status="done"),
        "ideas/archived.md": note_text(
            "Greenhouse archived", GREENHOUSE, created=LONG_AGO, status="archived"
        ),
        "inbox/greenhouse.md": note_text("Greenhouse inbox", GREENHOUSE, created=LONG_AGO),
        "ideas/seeds.md": note_text(
            "Tomato seeds",
            "tomatoes for the greenhouse with compost and rain water",
            created=on(DAY - timedelta(days=1), 9),
        ),
    }


async def _digest(brain: Runtime, clock: Clock, kind: str = "daily") -> Reply:
    """The digest Ada receives at `clock`'s time (the model writes no opening)."""
    outbox = Outbox(clock)
    service = build_service(brain, outbox)
    people = await brain.records.people.all()
    person = people[0] if people else await add_ada(brain)
    digest = await service.delivery.compose(person, clock().date(), kind)
    sent, _ = await service.delivery.send_now(person, digest)
    assert sent.status == "sent"
    return outbox.sent[-1][2]


def _section(reply: Reply, heading: str) -> list[str]:
    if f"\n\n{heading}\n" not in reply.text:
        return []
    return reply.text.split(f"\n\n{heading}\n", 1)[1].split("\n\n", 1)[0].splitlines()


@pytest.fixture
def model(openai_fake: FakeOpenAI) -> FakeOpenAI:
    openai_fake.responder = lambda body: say("A quiet day.")
    return openai_fake


async def test_an_older_note_close_to_a_new_capture_comes_back_with_its_buttons(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault())
        card = await _digest(brain, clock)
        (opened,) = await brain.engine.handle(press(card, "Open 1"))
    shown = _section(card, "From your notes")
    assert len(shown) == 2
    assert shown[0].startswith("1. Greenhouse ")
    assert "(ideas) — filed 2026-06-01, close to “Tomato seeds”" in shown[0]
    # Never a closed note, an inbox note, or one about something else.
    for absent in ("Greenhouse done", "Greenhouse archived", "Greenhouse inbox", "taxes"):
        assert absent not in card.text
    assert [b.label for b in card.buttons] == [
        *("Open 1", "Done 1", "Less like this 1"),
        *("Open 2", "Done 2", "Less like this 2"),
    ]
    for button in card.buttons:  # each fits Telegram's 64 bytes of callback_data
        assert len(callback_data(button).encode()) <= 64
    assert opened.text.startswith("Greenhouse ") and "rain water" in opened.text


async def test_a_capture_still_in_the_inbox_brings_back_older_notes_too(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    notes = _vault()
    notes["inbox/seeds.md"] = notes.pop("ideas/seeds.md")
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        card = await _digest(brain, clock)
    assert all("close to “Tomato seeds”" in line for line in _section(card, "From your notes"))
    assert len(_section(card, "From your notes")) == 2


async def test_not_the_same_note_two_days_running(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    notes = _vault()
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        first = _section(await _digest(brain, clock), "From your notes")
        again = _section(await _digest(brain, clock), "From your notes")
        clock.advance(hours=24)
        await add_notes(
            brain.store,
            tmp_path / "more",
            {
                "ideas/heater-2.md": note_text(
                    "Greenhouse heater two", GREENHOUSE + " two", created=LONG_AGO
                )
            },
        )
        next_day = _section(await _digest(brain, clock), "From your notes")
    # Composed twice the same day, the digest shows the same notes.
    assert again == first and len(first) == 2
    titles = {line.split(" (ideas)")[0].split(". ", 1)[1] for line in first}
    assert titles == {"Greenhouse tomatoes", "Greenhouse heater"}
    # The next day, what was shown rests; a note not shown yet may come.
    assert [line.split(" (ideas)")[0] for line in next_day] == ["1. Greenhouse heater two"]


async def test_a_digest_only_composed_rests_nothing(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    """A preview (`brainbot digest` without --send, the digest tool) shows nobody the
    older notes: the next day's sent digest still brings them back."""
    clock = Clock(MORNING)
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault())
        preview = await compose_digest(brain.store, day=DAY, zone=BERLIN, now=clock())
        clock.advance(hours=24)
        sent = _section(await _digest(brain, clock), "From your notes")
    assert len(preview.brought_back) == 2 and len(sent) == 2
    assert {line.split(" (ideas)")[0].split(". ", 1)[1] for line in sent} == {
        "Greenhouse tomatoes",
        "Greenhouse heater",
    }


async def test_less_like_this_lowers_the_note_until_it_stops_coming(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault())
        card = await _digest(brain, clock)
        lowered = _section(card, "From your notes")[0].split(" (ideas)")[0].split(". ", 1)[1]
        (after,) = await brain.engine.handle(press(card, "Less like this 1"))
        again = await brain.engine.handle(press(card, "Less like this 1"))
        later = await _digest(brain, clock)  # the same day: shown notes may show again
    assert after.replace
    assert f"1. ↓ {lowered} (ideas)" in after.text
    assert (
        after.text.split("\n1. ↓ ", 1)[1]
        .splitlines()[0]
        .endswith("— less like this: shown less often")
    )
    assert [b.label for b in after.buttons] == ["Open 2", "Done 2", "Less like this 2"]
    assert again == []  # a second press of the same button changes nothing
    assert lowered not in later.text
    assert len(_section(later, "From your notes")) == 1


async def test_a_lowered_note_that_still_matches_stops_after_the_second_press(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    twin = "tomatoes greenhouse compost rain water"
    notes = {
        "ideas/twin.md": note_text("Twin", twin, created=LONG_AGO),
        "ideas/new.md": note_text("Twin", twin, created=on(DAY - timedelta(days=1))),
    }
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        card = await _digest(brain, clock)
        (once,) = await brain.engine.handle(press(card, "Less like this 1"))
        card = await _digest(brain, clock)  # as close as can be: half its weight still shows
        (twice,) = await brain.engine.handle(press(card, "Less like this 1"))
        last = await _digest(brain, clock)
    assert once.text.endswith("less like this: shown less often")
    assert "— less like this: it won't come back" in twice.text
    assert "From your notes" not in last.text


async def test_done_closes_the_note_for_good_and_undo_brings_it_back(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault())
        vault = brain.settings.vault_dir
        card = await _digest(brain, clock)
        title = _section(card, "From your notes")[0].split(" (ideas)")[0].split(". ", 1)[1]
        path = "ideas/greenhouse.md" if title == "Greenhouse tomatoes" else "ideas/heater.md"
        redrawn, told = await brain.engine.handle(press(card, "Done 1"))
        assert frontmatter.load(vault / path)["status"] == "done"
        closed = await _digest(brain, clock)
        (undone,) = await brain.engine.handle(press(told, "Undo"))
        assert "status" not in frontmatter.load(vault / path).metadata
        back = await _digest(brain, clock)
    assert redrawn.replace and f"1. ✓ {title} (ideas)" in redrawn.text
    assert told.text == f"Marked “{title}” done: it won't come back in your digest."
    assert title not in closed.text
    assert undone.text.startswith("Undone: Marked") and undone.replace
    assert title in back.text


async def test_a_note_filed_this_week_a_year_ago_is_on_this_day_in_the_weekly_review(
    tmp_path: Path, database_url: str
) -> None:
    clock = Clock(MORNING)
    notes = {
        "ideas/lisbon.md": note_text("Trip to Lisbon", created=on(date(2025, 11, 18), 10)),
        "ideas/earlier.md": note_text("Earlier that year", created=on(date(2025, 11, 10))),
        "projects/closed.md": note_text(
            "Closed a year ago", created=on(date(2025, 11, 19)), status="done"
        ),
    }
    async with running_brain(tmp_path, database_url, clock=clock) as brain:
        await add_notes(brain.store, tmp_path / "import", notes)
        weekly = await _digest(brain, clock, "weekly")
        daily = await _digest(brain, clock)
    assert _section(weekly, "On this day") == [
        "1. Trip to Lisbon (ideas) — filed 2025-11-18, a year ago"
    ]
    assert [b.label for b in weekly.buttons] == ["Open 1", "Done 1", "Less like this 1"]
    assert "Earlier that year" not in weekly.text and "Closed a year ago" not in weekly.text
    # The daily digest has no "On this day"; without embeddings, no "From your notes".
    assert "On this day" not in daily.text and "From your notes" not in daily.text


async def test_without_older_notes_or_new_captures_there_is_no_section(
    tmp_path: Path, database_url: str, model: FakeOpenAI
) -> None:
    clock = Clock(MORNING)
    fresh = {k: v for k, v in _vault().items() if k == "ideas/seeds.md"}
    old_only = {k: v for k, v in _vault().items() if k != "ideas/seeds.md"}
    # An older note about something else is no match, however few notes there are.
    unrelated = {k: v for k, v in _vault().items() if k in ("ideas/seeds.md", "ideas/taxes.md")}
    for number, notes in enumerate((fresh, old_only, unrelated)):
        async with running_brain(
            tmp_path / str(number), database_url, model, clock=clock, **VECTORS
        ) as brain:
            await add_notes(brain.store, tmp_path / str(number) / "import", notes)
            card = await _digest(brain, clock)
        assert "From your notes" not in card.text and "Less like this" not in str(card.buttons)


async def test_a_failed_query_leaves_the_section_out_and_the_digest_goes_out(
    tmp_path: Path, database_url: str, model: FakeOpenAI, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock(MORNING)
    async with running_brain(tmp_path, database_url, model, clock=clock, **VECTORS) as brain:
        await add_notes(brain.store, tmp_path / "import", _vault())
        async with brain.database.engine.begin() as conn:
            await conn.execute(text("DROP TABLE resurfaced"))
        with caplog.at_level(logging.ERROR):
            card = await _digest(brain, clock)
    assert "Captured since yesterday\n• Tomato seeds (ideas)" in card.text
    assert "From your notes" not in card.text
    assert "goes out without its older notes" in caplog.text


def test_a_year_before_the_29th_of_february_is_the_28th() -> None:
    from bot.digest.resurface import year_before

    assert year_before(date(2028, 2, 29)) == date(2027, 2, 28)
    assert year_before(date(2026, 11, 20)) == date(2025, 11, 20)
