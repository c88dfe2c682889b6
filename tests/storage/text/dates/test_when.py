"""Dates and times in a person's words (storage.text.dates.when): what a reminder, a deadline, an
event, a birthday and a repeat become, in English, German and French, and the words
that must not become dates at all. "Now" is Monday 23 November 2026, 14:00 in Berlin."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

import pytest

from storage.text.dates.when import (
    When,
    describe,
    find_when,
    next_occurrence,
    parse_repeat,
    read_due,
    read_when,
)

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 23, 14, 0, tzinfo=BERLIN)


def at(day: int, hour: int, minute: int = 0, month: int = 11, year: int = 2026) -> datetime:
    return datetime(year, month, day, hour, minute, tzinfo=BERLIN)


def when(text: str, default_time: time = time(9, 0)) -> When:
    return find_when(text, now=NOW, zone=BERLIN, default_time=default_time)


@pytest.mark.parametrize(
    ("text", "remind", "title"),
    [
        ("remind me to call mom tomorrow at 9", at(24, 9), "call mom"),
        ("erinnere mich morgen um 9 daran, Mama anzurufen", at(24, 9), "Mama anzurufen"),
        ("rappelle-moi d'appeler maman demain à 9h", at(24, 9), "appeler maman"),
        ("remind me on Friday at 3pm to book the car", at(27, 15), "book the car"),
        ("erinnere mich am Freitag um 15 Uhr an die Steuer", at(27, 15), "die Steuer"),
        ("rappelle-moi vendredi à 15h30 de payer la facture", at(27, 15, 30), "payer la facture"),
    ],
)
def test_a_reminder_with_a_day_and_a_time_is_due_then_and_titled_without_the_wording(
    text: str, remind: datetime, title: str
) -> None:
    found = when(text)
    assert (found.remind, found.due, found.repeat) == (remind, None, None)
    assert found.rest == title and found.asked


def test_the_hour_after_at_is_kept_where_dateparser_loses_it() -> None:
    # search_dates reads "tomorrow at 9" at 14:00 as tomorrow 14:00.
    assert when("remind me to call mom tomorrow at 9").remind == at(24, 9)
    assert when("remind me tomorrow").remind == at(24, 9)
    assert when("erinnere mich morgen").remind == at(24, 9)
    assert when("remind me tomorrow", default_time=time(7, 30)).remind == at(24, 7, 30)


@pytest.mark.parametrize(
    ("text", "remind"),
    [
        ("remind me in 2 hours", at(23, 16)),
        ("remind me in 20 minutes to take the cake out", at(23, 14, 20)),
        ("erinnere mich in 20 Minuten", at(23, 14, 20)),
        ("rappelle-moi dans 2 heures", at(23, 16)),
        ("remind me in half an hour", at(23, 14, 30)),
        ("remind me in 3 days", at(26, 9)),
        ("remind me in an hour and a half", at(23, 15, 30)),
        ("erinnere mich in anderthalb Stunden", at(23, 15, 30)),
    ],
)
def test_a_span_from_now_counts_from_now(text: str, remind: datetime) -> None:
    assert when(text).remind == remind


def test_a_time_without_a_date_is_today_while_ahead_else_tomorrow() -> None:
    assert when("remind me at 5pm to stretch").remind == at(23, 17)
    assert when("remind me at 9am to stretch").remind == at(24, 9)
    assert when("erinnere mich um 18 Uhr").remind == at(23, 18)
    assert when("rappelle-moi à 8h").remind == at(24, 8)
    assert when("remind me at 3").remind == at(23, 15)  # a bare 1-6 is the afternoon


@pytest.mark.parametrize(
    ("text", "remind"),
    [
        ("remind me tonight to water the plants", at(23, 20)),
        ("erinnere mich heute Abend an den Müll", at(23, 20)),
        ("rappelle-moi ce soir de sortir les poubelles", at(23, 20)),
        ("remind me this afternoon to buy milk", at(23, 15)),
        ("remind me tomorrow morning to call the bank", at(24, 9)),
        ("erinnere mich morgen früh an den Bäcker", at(24, 9)),
        ("rappelle-moi demain après-midi", at(24, 15)),
        ("remind me tonight at 9", at(23, 21)),
    ],
)
def test_parts_of_the_day_have_their_hours(text: str, remind: datetime) -> None:
    assert when(text).remind == remind


@pytest.mark.parametrize(
    ("text", "due", "title"),
    [
        ("renew the passport by Dec 1", date(2026, 12, 1), "renew the passport"),
        ("tax return due Friday", date(2026, 11, 27), "tax return"),
        ("finish the slides until next week", date(2026, 11, 30), "finish the slides"),
        (
            "bis zum 1. Dezember Steuererklärung abgeben",
            date(2026, 12, 1),
            "Steuererklärung abgeben",
        ),
        ("spätestens am Freitag den Bericht schicken", date(2026, 11, 27), "den Bericht schicken"),
        (
            "renouveler le passeport avant le 1er décembre",
            date(2026, 12, 1),
            "renouveler le passeport",
        ),
        ("finir le rapport d'ici vendredi", date(2026, 11, 27), "finir le rapport"),
        ("rendre le dossier pour le 15 décembre", date(2026, 12, 15), "rendre le dossier"),
    ],
)
def test_a_deadline_is_a_due_date_and_no_reminder(text: str, due: date, title: str) -> None:
    found = when(text)
    assert (found.due, found.remind, found.rest) == (due, None, title)


def test_a_deadline_the_person_asks_to_be_reminded_of_gets_both() -> None:
    found = when("remind me to renew the passport by Dec 1")
    assert (found.due, found.remind, found.rest) == (
        date(2026, 12, 1),
        at(1, 9, month=12),
        "renew the passport",
    )


@pytest.mark.parametrize(
    ("text", "due", "remind"),
    [
        ("dentist on Friday at 3pm", date(2026, 11, 27), at(27, 15)),
        ("Zahnarzt am Freitag um 15 Uhr", date(2026, 11, 27), at(27, 15)),
        ("dentiste vendredi à 15h", date(2026, 11, 27), at(27, 15)),
        ("dentist on Friday", date(2026, 11, 27), None),
        ("Elternabend am 3. Dezember", date(2026, 12, 3), None),
        ("dîner chez Paul le 4 décembre à 20h", date(2026, 12, 4), at(4, 20, month=12)),
        ("meeting at 3pm", date(2026, 11, 23), at(23, 15)),
        ("tomorrow, 9 am: standup", date(2026, 11, 24), at(24, 9)),
        ("Arzttermin 14.12. 10 Uhr", date(2026, 12, 14), at(14, 10, month=12)),
        ("rdv médecin 14/12 à 10h", date(2026, 12, 14), at(14, 10, month=12)),
        ("Flug nach Lissabon am 15. Januar um 6:40", date(2027, 1, 15), at(15, 6, 40, 1, 2027)),
    ],
)
def test_an_event_is_due_on_its_day_and_reminded_only_at_a_stated_time(
    text: str, due: date, remind: datetime | None
) -> None:
    found = when(text)
    assert (found.due, found.remind, found.repeat) == (due, remind, None)


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("Sarah's birthday is on 4 May", "Sarah's birthday"),
        ("Saras Geburtstag ist am 4. Mai", "Saras Geburtstag"),
        ("L'anniversaire de Sarah est le 4 mai", "L'anniversaire de Sarah"),
        ("Hochzeitstag von Mama ist am 4. Mai", "Hochzeitstag von Mama"),
    ],
)
def test_a_birthday_comes_back_every_year(text: str, title: str) -> None:
    found = when(text)
    assert found.due == date(2027, 5, 4)
    assert found.remind == at(4, 9, month=5, year=2027)
    assert (found.repeat, found.rest) == ("yearly", title)


@pytest.mark.parametrize(
    ("text", "repeat", "remind"),
    [
        ("every Monday take out the trash", "every monday", at(30, 9)),
        ("every day at 8 stretch", "daily", at(24, 8)),
        ("remind me every weekday at 8:30 to check the inbox", "weekdays", at(24, 8, 30)),
        ("water the cactus every 2 weeks", "every 2 weeks", at(7, 9, month=12)),
        ("pay rent monthly", "monthly", at(23, 9, month=12)),
        ("every Monday and Thursday at 7pm run", "every monday and thursday", at(23, 19)),
        ("jeden Montag Müll rausstellen", "every monday", at(30, 9)),
        ("täglich um 7 Vitamine", "daily", at(24, 7)),
        ("wöchentlich Pflanzen gießen", "weekly", at(30, 9)),
        ("monatlich Zählerstand notieren", "monthly", at(23, 9, month=12)),
        ("tous les lundis à 18h yoga", "every monday", at(23, 18)),
        ("chaque lundi réunion d'équipe", "every monday", at(30, 9)),
        ("tous les jours méditer", "daily", at(24, 9)),
    ],
)
def test_a_repeat_is_a_rule_and_its_next_time(text: str, repeat: str, remind: datetime) -> None:
    found = when(text)
    assert (found.repeat, found.remind, found.due) == (repeat, remind, None)


def test_adjectives_for_periods_are_no_repeats() -> None:
    assert not when("weekly review notes").found
    assert not when("monthly budget ideas").found
    assert when("remind me weekly to review notes").repeat == "weekly"


@pytest.mark.parametrize(
    "text",
    [
        "Tom suggested we try pair programming on Fridays",
        "Maybe we could do a retro every Monday",
        "Vielleicht könnten wir montags joggen",
        "On pourrait faire du yoga tous les lundis",
    ],
)
def test_a_suggestion_or_a_maybe_reminds_of_nothing(text: str) -> None:
    found = when(text)
    assert (found.remind, found.repeat, found.plans) == (None, None, False)


def test_a_suggestion_the_person_asks_to_be_reminded_of_repeats() -> None:
    found = when("remind me every Friday: Tom suggested pair programming")
    assert (found.repeat, found.remind) == ("every friday", at(27, 9))
    assert when("Tom suggested we meet by Friday").due == date(2026, 11, 27)


def test_no_reminder_is_ever_in_the_past() -> None:
    assert when("remind me today at 9am to call Sam").remind is None
    assert when("remind me today to call Sam").remind == at(23, 15)  # the next full hour
    assert when("today at 9 call Sam").remind == at(23, 21)  # 9 in the morning has passed
    late = NOW.replace(hour=23, minute=30)
    assert find_when("remind me today to call Sam", now=late, zone=BERLIN).remind is None
    assert not when("this morning I met Sarah at the station").found  # a memory, not a plan
    assert not when("yesterday at 5 I called Sam").found
    assert not when("gestern Abend mit Tom telefoniert").found
    assert not when("hier soir à 20h j'ai vu Paul").found


@pytest.mark.parametrize(
    "text",
    [
        "I may try oolong",
        "call 3 people",
        "version 2.0 of the app",
        "sat on it for a while",
        "a second idea",
        "March of the penguins book",
        "Ich habe 2 Ideen",
        "un avenir radieux",
        "on the 3 projects",
        "top 10 list",
        "costs $20, or 20€ with shipping",
        "15% off everything",
        "call 555-1234 or +49 30 1234567",
        "1/2 cup sugar",
        "ISBN 978-3-16-148410-0",
        "guten Morgen, ich habe eine Idee",
        "good morning team",
        "Black Friday deals",
        "weekly review notes",
        "John 3:16",
        "mon rendez-vous chez le coiffeur",
        "le 3 projets",
        "march 5 miles",
    ],
)
def test_words_that_only_look_like_dates_make_none(text: str) -> None:
    found = when(text)
    assert not found.found
    assert (found.phrase, found.rest) == ("", text)


def test_tomorrow_is_the_persons_tomorrow() -> None:
    instant = datetime(2026, 11, 23, 20, 0, tzinfo=UTC)  # LA: 12:00 the 23rd, Seoul: 05:00 the 24th
    los_angeles, seoul = ZoneInfo("America/Los_Angeles"), ZoneInfo("Asia/Seoul")
    west = find_when("remind me tomorrow", now=instant, zone=los_angeles).remind
    east = find_when("remind me tomorrow", now=instant, zone=seoul).remind
    assert west == datetime(2026, 11, 24, 9, tzinfo=los_angeles)
    assert east == datetime(2026, 11, 25, 9, tzinfo=seoul)


def test_short_dates_read_month_first_only_in_the_americas() -> None:
    assert when("call the bank on 12/1").due == date(2027, 1, 12)
    assert when("am 1.12. Zahnarzt").due == date(2026, 12, 1)
    new_york = ZoneInfo("America/New_York")
    assert find_when("call the bank on 12/1", now=NOW, zone=new_york).due == date(2026, 12, 1)


def test_a_daily_nine_oclock_stays_nine_across_both_dst_changes() -> None:
    for day in (date(2026, 3, 28), date(2026, 10, 24)):  # the Saturdays before the changes
        anchor = datetime.combine(day, time(9), tzinfo=BERLIN)
        moment = anchor
        for _ in range(3):
            moment = next_occurrence("daily", moment, anchor)  # type: ignore[assignment]
            assert (moment.hour, moment.minute) == (9, 0)
        assert moment.date() == day + timedelta(days=3)
    spring = datetime(2026, 3, 29, 8, 0, tzinfo=BERLIN)  # after the change: +02:00
    assert spring.utcoffset() == timedelta(hours=2)
    first = datetime(2026, 3, 28, 9, 0, tzinfo=BERLIN)
    assert next_occurrence("daily", first, first) == datetime(2026, 3, 29, 9, tzinfo=BERLIN)


def test_a_time_the_clock_skips_moves_past_the_gap() -> None:
    anchor = datetime(2026, 3, 28, 2, 30, tzinfo=BERLIN)
    moment = next_occurrence("daily", anchor, anchor)
    assert moment is not None and (moment.hour, moment.minute) == (3, 30)


def test_monthly_clamps_to_short_months_and_comes_back_to_the_31st() -> None:
    anchor = datetime(2027, 1, 31, 9, tzinfo=BERLIN)
    seen, moment = [], anchor
    for _ in range(3):
        moment = next_occurrence("monthly", moment, anchor)  # type: ignore[assignment]
        seen.append(moment.date())
    assert seen == [date(2027, 2, 28), date(2027, 3, 31), date(2027, 4, 30)]
    leap = datetime(2028, 1, 31, 9, tzinfo=BERLIN)
    assert next_occurrence("monthly", leap, leap) == datetime(2028, 2, 29, 9, tzinfo=BERLIN)
    born = datetime(2028, 2, 29, 9, tzinfo=BERLIN)
    assert next_occurrence("yearly", born, born) == datetime(2029, 2, 28, 9, tzinfo=BERLIN)


def test_weekly_rules_keep_their_days() -> None:
    anchor = at(23, 9)  # a Monday
    assert next_occurrence("weekly", NOW, anchor) == at(30, 9)
    assert next_occurrence("every monday and thursday", NOW, anchor) == at(26, 9)
    assert next_occurrence("every 2 weeks", NOW, anchor) == at(7, 9, month=12)
    assert next_occurrence("weekdays", at(27, 10), anchor) == at(30, 9)  # Friday -> Monday
    assert next_occurrence("FREQ=WEEKLY;BYDAY=TU", NOW, anchor) == at(24, 9)
    assert next_occurrence("whenever I like", NOW, anchor) is None


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("every Monday", "every monday"),
        ("jeden Montag und Donnerstag", "every monday and thursday"),
        ("tous les lundis", "every monday"),
        ("chaque lundi", "every monday"),
        ("montags", "every monday"),
        ("daily", "daily"),
        ("täglich", "daily"),
        ("tous les jours", "daily"),
        ("every weekday", "weekdays"),
        ("werktags", "weekdays"),
        ("every other week", "every 2 weeks"),
        ("alle zwei Wochen", "every 2 weeks"),
        ("toutes les 2 semaines", "every 2 weeks"),
        ("wöchentlich", "weekly"),
        ("monatlich", "monthly"),
        ("tous les ans", "yearly"),
        ("FREQ=MONTHLY;INTERVAL=3", "every 3 months"),
        ("every 2 weeks", "every 2 weeks"),
        ("every monday, wednesday and friday", "every monday, wednesday and friday"),
        ("Mondays are slow", None),
        ("buy milk", None),
    ],
)
def test_parse_repeat_writes_one_rule_for_each_way_of_saying_it(
    text: str, rule: str | None
) -> None:
    assert parse_repeat(text) == rule


@pytest.mark.parametrize(
    ("value", "moment"),
    [
        ("2026-11-24 09:00", at(24, 9)),
        ("2026-11-24T09:00:00+01:00", at(24, 9)),
        ("2026-11-24T08:00:00Z", at(24, 9)),
        ("2026-11-24", at(24, 9)),
        ("tomorrow 9am", at(24, 9)),
        ("morgen um 9", at(24, 9)),
        ("demain à 9h", at(24, 9)),
        ("24.11.2026 09:30", at(24, 9, 30)),
        ("mañana a las 9", at(24, 9)),  # dateparser's other languages
        (date(2026, 11, 24), at(24, 9)),
        (datetime(2026, 11, 24, 9, 0), at(24, 9)),  # noqa: DTZ001 - naive is the person's time
        (datetime(2026, 11, 24, 8, 0, tzinfo=UTC), at(24, 9)),
        ("soon", None),
        ("2026-13-45", None),
        ("", None),
        (None, None),
        (42, None),
    ],
)
def test_read_when_takes_what_a_model_writes(value: object, moment: datetime | None) -> None:
    read = read_when(value, now=NOW, zone=BERLIN)
    assert read == moment
    assert read is None or read.tzinfo == BERLIN


@pytest.mark.parametrize(
    ("value", "day"),
    [
        ("2026-12-01", date(2026, 12, 1)),
        ("Dec 1", date(2026, 12, 1)),
        ("next friday", date(2026, 11, 27)),
        ("1. Dezember", date(2026, 12, 1)),
        ("1er décembre", date(2026, 12, 1)),
        ("2026-11-30T23:30:00Z", date(2026, 12, 1)),  # already the 1st in Berlin
        (date(2026, 12, 1), date(2026, 12, 1)),
        ("someday", None),
        (3.5, None),
    ],
)
def test_read_due_takes_what_a_model_writes(value: object, day: date | None) -> None:
    assert read_due(value, now=NOW, zone=BERLIN) == day


def test_describe_says_it_from_the_persons_side() -> None:
    assert describe(at(24, 9), NOW) == "tomorrow at 09:00"
    assert describe(at(23, 15, 30), NOW) == "today at 15:30"
    assert describe(at(30, 9), NOW) == "Mon 30 Nov at 09:00"
    assert describe(at(4, 9, month=5, year=2027), NOW) == "Tue 4 May 2027 at 09:00"


def test_the_rest_is_a_usable_title() -> None:
    assert when("remind me to call mom tomorrow at 9").rest == "call mom"
    assert when("Remind me: pay the water bill on Friday").rest == "pay the water bill"
    assert when("remind me to call mom").rest == "call mom"  # asked, but no time: ask when
    assert not when("remind me to call mom").found and when("remind me to call mom").asked
    assert when("next week plan the trip to Lyon").rest == "plan the trip to Lyon"
    assert when("buy milk").rest == "buy milk"


def test_a_text_without_date_words_never_loads_dateparser() -> None:
    script = (
        "import sys; from datetime import datetime; from zoneinfo import ZoneInfo;"
        "from storage.text.dates.when import find_when; z = ZoneInfo('Europe/Berlin');"
        "find_when('call 3 people about the roof', now=datetime.now(z), zone=z);"
        "print('dateparser' in sys.modules);"
        "from storage.text.dates.when import prepare; prepare(); print('dateparser' in sys.modules)"
    )
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True
    )
    assert result.stdout.split() == ["False", "True"]  # until prepare() loads it at start-up
