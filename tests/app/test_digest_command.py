"""`brainbot digest`: prints today's digest, or sends it through the configured
platform and keeps it in the vault."""

from __future__ import annotations

import argparse
import io
from datetime import date, datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.cli import build_parser
from app.commands.digest import run_digest
from tests.bot.helpers import git_log, message
from tests.fakes.brain import make_settings, running_brain
from tests.fakes.telegram_api import FakeTelegram, visible_text
from tests.scheduler.notes import add_notes, note_text
from tests.scheduler.outbox import add_ada

DAY = date(2026, 11, 20)


def _args(*argv: str) -> argparse.Namespace:
    return build_parser().parse_args(["digest", *argv])


async def _prepare(tmp_path: Path, database_url: str, **settings: Any) -> None:
    async with running_brain(tmp_path, database_url, **settings) as brain:
        await add_notes(
            brain.store,
            tmp_path / "import",
            {"admin/taxes.md": note_text("Taxes", due="2026-11-18")},
        )
        await add_ada(brain, platform="telegram", user_id="42", chat_id="42")


async def test_prints_the_digest_of_a_chosen_day(tmp_path: Path, database_url: str) -> None:
    await _prepare(tmp_path, database_url)
    out = io.StringIO()
    code = await run_digest(
        _args("--date", "2026-11-20", "--weekly"), make_settings(tmp_path, database_url), out
    )
    assert code == 0
    assert out.getvalue().startswith("Weekly review for Friday 2026-11-20")
    assert "1. Taxes — overdue since 2026-11-18" in out.getvalue()
    assert not (tmp_path / "data/vault/digests").exists()  # printing keeps nothing


async def test_a_new_user_s_first_captures_are_in_today_s_digests(
    tmp_path: Path, database_url: str
) -> None:
    # The steps: two captures through the command router, then `brainbot
    # digest` and `brainbot digest --weekly` on the real clock, the same day.
    async with running_brain(tmp_path, database_url) as brain:
        for text in ("project: Repaint the fence", "admin: Renew the car insurance"):
            await brain.engine.handle(message(text))
    settings = make_settings(tmp_path, database_url)
    for argv, title, captured in (
        ((), "Daily digest for ", "Captured since yesterday"),
        (("--weekly",), "Weekly review for ", "Captured this week"),
    ):
        out = io.StringIO()
        assert await run_digest(_args(*argv), settings, out) == 0
        printed = out.getvalue()
        assert printed.startswith(title) and "Nothing needs you" not in printed
        assert "1. Repaint the fence — no next action yet" in printed
        assert "\nTo do\n2. Renew the car insurance\n" in printed
        # Both captures, newest first; the two may share a second, so in either order.
        section = printed.split(f"\n{captured}\n", 1)[1].splitlines()
        assert sorted(section[:2]) == [
            "• Renew the car insurance (admin)",
            "• Repaint the fence (projects)",
        ]


async def test_send_goes_to_the_person_s_chat_and_into_the_vault(
    tmp_path: Path, database_url: str
) -> None:
    async with FakeTelegram() as fake:
        overrides = {"TELEGRAM_BOT_TOKEN": fake.token, "TELEGRAM_API_URL": fake.root}
        await _prepare(tmp_path, database_url, **overrides)
        out = io.StringIO()
        settings = make_settings(tmp_path, database_url, **overrides)
        code = await run_digest(_args("--send", "--date", "2026-11-20"), settings, out)
        (sent,) = fake.calls("sendMessage")
    assert code == 0 and out.getvalue() == "Sent the daily digest for 2026-11-20 to telegram:42.\n"
    assert sent["chat_id"] == 42
    assert visible_text(sent["text"]).startswith("Daily digest for Friday 2026-11-20")
    assert [row[0]["text"] for row in sent["reply_markup"]["inline_keyboard"]] == ["Done 1"]
    vault = tmp_path / "data/vault"
    assert "Taxes" in (vault / "digests/2026-11-20.md").read_text()
    assert git_log(vault)[0] == "digest digests/2026-11-20.md"


async def test_with_several_people_it_asks_which_one(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _prepare(tmp_path, database_url)
    async with running_brain(tmp_path, database_url) as brain:
        await add_ada(brain, platform="slack", user_id="U0BOB", chat_id="D0BOB")
    settings = make_settings(tmp_path, database_url)
    assert await run_digest(_args(), settings, io.StringIO()) == 2
    assert "pick one with --user" in capsys.readouterr().err
    out = io.StringIO()
    assert await run_digest(_args("--user", "telegram:42"), settings, out) == 0
    assert out.getvalue().startswith("Daily digest for ")
    assert await run_digest(_args("--user", "99"), settings, io.StringIO()) == 2


async def test_send_without_a_platform_says_so(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    await _prepare(tmp_path, database_url)
    settings = make_settings(tmp_path, database_url)
    assert await run_digest(_args("--send"), settings, io.StringIO()) == 1
    assert "not sent: cannot reach telegram from here" in capsys.readouterr().err


async def test_the_day_is_read_from_words_as_a_chat_reads_it(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: `--date tomorrow` stopped argparse with "not a day written YYYY-MM-DD".
    await _prepare(tmp_path, database_url)  # Ada, in Europe/Berlin
    settings = make_settings(tmp_path, database_url)
    berlin = ZoneInfo("Europe/Berlin")
    before = datetime.now(berlin).date()
    out = io.StringIO()
    assert await run_digest(_args("--date", "tomorrow"), settings, out) == 0
    after = datetime.now(berlin).date()
    tomorrow = {day + timedelta(days=1) for day in (before, after)}  # midnight may pass
    assert any(out.getvalue().startswith(f"Daily digest for {d:%A %Y-%m-%d}") for d in tomorrow)

    assert await run_digest(_args("--date", "someday soon"), settings, io.StringIO()) == 2
    said = capsys.readouterr().err
    assert "brainbot digest: --date 'someday soon' is not a day" in said
    assert "YYYY-MM-DD" in said and "tomorrow" in said


async def test_an_unknown_person_is_answered_with_the_people_by_name_and_account(
    tmp_path: Path, database_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: "no person '99'; known: 1", a bare id nobody recognises.
    await _prepare(tmp_path, database_url)
    settings = make_settings(tmp_path, database_url)
    assert await run_digest(_args("--user", "99"), settings, io.StringIO()) == 2
    said = capsys.readouterr().err
    assert "brainbot digest: no person '99'; the people are: Ada" in said
    assert "telegram:42" in said
