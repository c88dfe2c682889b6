"""The words storage.text.dates.when reads dates in, in English, German and French:
names of weekdays, months, day parts, units and small numbers, and the wording around
a date (asking to be reminded, a deadline, a preposition). Tables only;
storage.text.dates.pieces builds patterns from them. Unaccented spellings are listed
too: people type "decembre" and "uebermorgen"."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import time

WEEKDAYS: dict[str, int] = {
    **dict.fromkeys(("monday", "montag", "lundi"), 0),
    **dict.fromkeys(("tuesday", "dienstag", "mardi"), 1),
    **dict.fromkeys(("wednesday", "mittwoch", "mercredi"), 2),
    **dict.fromkeys(("thursday", "donnerstag", "jeudi"), 3),
    **dict.fromkeys(("friday", "freitag", "vendredi"), 4),
    **dict.fromkeys(("saturday", "samstag", "sonnabend", "samedi"), 5),
    **dict.fromkeys(("sunday", "sonntag", "dimanche"), 6),
}
# English short names are also words ("sat on it", "the sun", French "mon"): believed
# only after "next"/"on"/"by"... or next to another date or time.
SHORT_WEEKDAYS: dict[str, int] = {
    "mon": 0,
    "tue": 1,
    "tues": 1,
    "wed": 2,
    "thu": 3,
    "thur": 3,
    "thurs": 3,
    "fri": 4,
    "sat": 5,
    "sun": 6,
}
# Words that make a weekday the name of a day of its own: "Black Friday", "Ostermontag"
# is one word already.
NAMED_DAYS = frozenset({"black", "cyber", "good", "easter", "ash", "holy", "palm", "blue"})
WEEKDAY_NAMES = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")

MONTHS: dict[str, dict[str, int]] = {
    "en": {
        **{
            name: number
            for number, name in enumerate(
                [
                    "january",
                    "february",
                    "march",
                    "april",
                    "may",
                    "june",
                    "july",
                    "august",
                    "september",
                    "october",
                    "november",
                    "december",
                ],
                1,
            )
        },
        **{"jan": 1, "feb": 2, "mar": 3, "apr": 4, "jun": 6, "jul": 7, "aug": 8},
        **{"sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12},
    },
    "de": {
        **{"januar": 1, "jänner": 1, "februar": 2, "märz": 3, "maerz": 3, "april": 4},
        **{"mai": 5, "juni": 6, "juli": 7, "august": 8, "september": 9, "oktober": 10},
        **{"november": 11, "dezember": 12, "jan": 1, "feb": 2, "mär": 3, "apr": 4},
        **{"jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "okt": 10, "nov": 11, "dez": 12},
    },
    "fr": {
        **{"janvier": 1, "février": 2, "fevrier": 2, "mars": 3, "avril": 4, "mai": 5},
        **{"juin": 6, "juillet": 7, "août": 8, "aout": 8, "septembre": 9, "octobre": 10},
        **{"novembre": 11, "décembre": 12, "decembre": 12, "janv": 1, "févr": 2, "fevr": 2},
        **{"fév": 2, "fev": 2, "avr": 4, "juil": 7, "sept": 9, "oct": 10, "nov": 11},
        **{"déc": 12, "dec": 12},
    },
}
MONTH_NUMBERS: dict[str, int] = {
    name: number for table in MONTHS.values() for name, number in table.items()
}
# Month names that are common words too ("I may", "march on", "Jan", "Mars", "sept
# jours"): a month-first date with one of them must not run on into a noun.
WORDLIKE_MONTHS = frozenset({"may", "march", "mar", "jan", "mars", "sept", "aug"})


def month_languages(name: str) -> list[str]:
    """The languages that spell a month `name` so, for dateparser's `languages`."""
    return [language for language, table in MONTHS.items() if name in table]


# Days counted from today. German "morgen" is also the morning ("heute Morgen",
# "guten Morgen"): storage.text.dates.pieces looks at the word before it.
DAY_WORDS: dict[str, int] = {
    **dict.fromkeys(("today", "heute", "aujourd'hui"), 0),
    **dict.fromkeys(("tomorrow", "tmrw", "tmr", "morgen", "demain"), 1),
    **dict.fromkeys(("the day after tomorrow", "day after tomorrow", "übermorgen"), 2),
    **dict.fromkeys(("uebermorgen", "après-demain", "apres-demain", "après demain"), 2),
    # Past days make a text a memory, not a plan ("yesterday at 5 I called Sam"); French
    # "hier" alone is German "here".
    **dict.fromkeys(("yesterday", "gestern", "hier soir", "hier matin", "hier après-midi"), -1),
    **dict.fromkeys(("vorgestern", "avant-hier"), -2),
}
NOT_TOMORROW_BEFORE = frozenset({"heute", "gestern", "am", "jeden", "guten", "schönen", "diesen"})

# Parts of the day and the hour a reminder for them gets.
PART_TIMES: dict[str, time] = {
    "morning": time(9),  # or the person's default time when that is before noon
    "late morning": time(10),
    "noon": time(12),
    "afternoon": time(15),
    "evening": time(20),
    "night": time(21),
}
PARTS: dict[str, str] = {
    **dict.fromkeys(("morning", "früh", "morgens", "matin", "matinée", "matinee"), "morning"),
    **dict.fromkeys(("vormittag", "vormittags"), "late morning"),
    **dict.fromkeys(("midday", "lunchtime", "mittag", "mittags"), "noon"),
    **dict.fromkeys(("afternoon", "nachmittag", "nachmittags", "après-midi"), "afternoon"),
    **dict.fromkeys(("apres-midi", "aprem"), "afternoon"),
    **dict.fromkeys(("evening", "abend", "abends", "soir", "soirée", "soiree"), "evening"),
    **dict.fromkeys(("night", "nacht", "nachts", "nuit"), "night"),
}
# Greetings are not times: "good morning", "guten Abend", "bonne nuit".
GREETINGS = frozenset({"good", "guten", "gute", "bonne", "bon"})

NUMBERS: dict[str, int] = {
    **dict.fromkeys(("a", "an", "one", "ein", "eine", "einer", "einem", "einen"), 1),
    **dict.fromkeys(("un", "une"), 1),
    **dict.fromkeys(("two", "zwei", "deux", "couple of", "a couple of"), 2),
    **dict.fromkeys(("three", "drei", "trois"), 3),
    **dict.fromkeys(("four", "vier", "quatre"), 4),
    **dict.fromkeys(("five", "fünf", "fuenf", "cinq"), 5),
    **dict.fromkeys(("six", "sechs"), 6),
    **dict.fromkeys(("seven", "sieben", "sept"), 7),
    **dict.fromkeys(("eight", "acht", "huit"), 8),
    **dict.fromkeys(("nine", "neun", "neuf"), 9),
    **dict.fromkeys(("ten", "zehn", "dix"), 10),
    **dict.fromkeys(("eleven", "elf", "onze"), 11),
    **dict.fromkeys(("twelve", "zwölf", "douze"), 12),
    **dict.fromkeys(("fifteen", "fünfzehn", "quinze"), 15),
    **dict.fromkeys(("twenty", "zwanzig", "vingt"), 20),
    **dict.fromkeys(("thirty", "dreißig", "trente"), 30),
    **dict.fromkeys(("other", "zweite", "zweiten"), 2),
}
UNITS: dict[str, str] = {
    **dict.fromkeys(("minute", "minutes", "min", "mins", "minuten"), "minute"),
    **dict.fromkeys(("hour", "hours", "hr", "hrs", "h", "stunde", "stunden", "std"), "hour"),
    **dict.fromkeys(("heure", "heures"), "hour"),
    **dict.fromkeys(("day", "days", "tag", "tage", "tagen", "jour", "jours"), "day"),
    **dict.fromkeys(("week", "weeks", "woche", "wochen", "semaine", "semaines"), "week"),
    **dict.fromkeys(("month", "months", "monat", "monate", "monaten", "mois"), "month"),
    **dict.fromkeys(("year", "years", "jahr", "jahre", "jahren", "an", "ans"), "year"),
    **dict.fromkeys(("année", "années", "annee", "annees"), "year"),
}

# "at 3 projects", "um 2 Ideen": a number before these counts things, not hours.
COUNTED = frozenset(
    [
        "people",
        "persons",
        "times",
        "things",
        "ideas",
        "projects",
        "leute",
        "personen",
        "mal",
        "dinge",
        "ideen",
        "projekte",
        "personnes",
        "fois",
        "choses",
        "idées",
        "projets",
    ]
)
# Periods named from today, and the day each stands for (storage.text.dates.pieces turns them
# into dates): "next week" is its Monday, "end of the month" its last day.
PERIODS: dict[str, str] = {
    **dict.fromkeys(("next week", "nächste woche", "nächster woche", "kommende woche"), "week"),
    **dict.fromkeys(("la semaine prochaine", "semaine prochaine"), "week"),
    **dict.fromkeys(("end of the week", "end of this week", "end of week"), "friday"),
    **dict.fromkeys(("ende der woche", "ende dieser woche", "fin de semaine"), "friday"),
    **dict.fromkeys(("fin de la semaine",), "friday"),
    **dict.fromkeys(("this weekend", "the weekend", "am wochenende"), "weekend"),
    **dict.fromkeys(("dieses wochenende", "ce week-end", "ce weekend"), "weekend"),
    **dict.fromkeys(("next weekend", "nächstes wochenende"), "next weekend"),
    **dict.fromkeys(("le week-end prochain", "le weekend prochain"), "next weekend"),
    **dict.fromkeys(("next month", "nächsten monat", "kommenden monat"), "month"),
    **dict.fromkeys(("le mois prochain", "mois prochain"), "month"),
    **dict.fromkeys(("end of the month", "end of this month", "end of month"), "month end"),
    **dict.fromkeys(("ende des monats", "ende dieses monats", "monatsende"), "month end"),
    **dict.fromkeys(("fin du mois", "fin de mois"), "month end"),
    **dict.fromkeys(("end of the year", "end of this year", "end of year"), "year end"),
    **dict.fromkeys(("ende des jahres", "jahresende", "fin de l'année", "fin d'année"), "year end"),
    **dict.fromkeys(("next year", "nächstes jahr", "l'année prochaine", "l'an prochain"), "year"),
}
# "end of May", "Anfang Juni", "mi-juillet": the day of the month.
MONTH_EDGES = {
    **dict.fromkeys(("end of", "the end of", "ende", "fin", "à la fin de", "fin de"), 31),
    **dict.fromkeys(("early", "beginning of", "start of", "anfang", "début", "debut"), 1),
    **dict.fromkeys(("début de", "au début de"), 1),
    **dict.fromkeys(("mid", "mid-", "middle of", "mitte", "mi-", "mi"), 15),
}

# Asking to be reminded; the wording is left out of the title.
ASK = (
    r"(?:(?:please|pls|bitte|stp|s'il te plaît)\s*,?\s+)?"
    r"(?:(?:remind|ping|nudge)\s+me|set\s+a\s+reminder|reminder\s*:|don'?t\s+let\s+me\s+forget"
    r"|don'?t\s+forget|erinnere?\s+mich|erinnerung\s*:|nicht\s+vergessen\s*:?"
    r"|rappel(?:le|lez)[-\s](?:moi|nous)|fais[-\s]moi\s+penser|rappel\s*:"
    r"|n'oublie\s+pas|ne\s+pas\s+oublier)"
    r"(?:\s*,?\s+(?:bitte|please|stp))?"
)
# Words that open a deadline: the date becomes `due`.
DUE_BEFORE = (
    r"by|until|till|til|before|due(?:\s+(?:on|by|date:?))?|no\s+later\s+than|deadline:?"
    r"|bis(?:\s+(?:zum|zur|spätestens(?:\s+(?:am|zum))?|am))?|spätestens(?:\s+(?:am|bis(?:\s+zum)?))?"
    r"|fällig(?:\s+(?:am|bis))?|vor\s+dem|frist:?|abgabe:?"
    r"|avant(?:\s+le)?|d'ici(?:\s+(?:le|à|au))?|pour\s+le|au\s+plus\s+tard(?:\s+le)?"
    r"|jusqu'(?:au|à)|date\s+limite\s*:?|échéance\s*:?"
)
# Prepositions that belong to the date phrase ("on Friday", "am Freitag", "le 4 mai").
PREP_BEFORE = (
    r"on|for|at|@|this\s+coming|starting|from|am|um|für|ab|gegen|vers|around|le|à|a|dès|pour"
)
# Birthdays and anniversaries repeat every year.
YEARLY_EVENT = re.compile(
    r"\b(?:birthday|bday|b-day|anniversary|geburtstag\w*|anniversaire"
    r"|\w*(?:jahres|hochzeits|namens|todes)tag\w*)\b",
    re.IGNORECASE,
)
# A plan that is someone's suggestion or a maybe ("Tom suggested we try pair programming
# on Fridays", "vielleicht montags", "on pourrait le faire lundi"): its date is no
# request to be reminded unless the person asks for one.
TENTATIVE = re.compile(
    r"\b(?:suggest(?:s|ed)?|propos(?:es?|ed)|recommend(?:s|ed)?|maybe|perhaps|might|could"
    r"|what\s+if|how\s+about|vorgeschlagen|schlägt|schlug|vorschlag|vielleicht|eventuell"
    r"|könnten?|sugg[èé]r[ée]?e?|propos[ée]e?|peut-être|pourrai(?:t|ent|s)|pourrions)\b",
    re.IGNORECASE,
)
# Left at the edges of a title once the date is gone: "to call mom", "Geburtstag ist".
LEAD_WORDS = r"to|about|of|that|an|ans|daran|dass|de|du|que|à|and|und|et|also|auch|aussi"
TAIL_WORDS = (
    r"is|are|was|ist|sind|est|sont|on|at|am|um|le|la|à|for|für|pour|by|bis|until|avant"
    r"|and|und|et|from|due|fällig"
)

# Words that let a text past the quick check in storage.text.dates.assembly (with the tables above
# and any digit); a text without one of them has no date.
TRIGGER_WORDS = """
tonight noon midnight midi minuit mitternacht weekend wochenende week-end
every each daily weekly monthly yearly annually fortnightly biweekly
täglich wöchentlich monatlich jährlich jeden jede jedes alle werktags
tous toutes chaque quotidien quotidiennement hebdomadaire mensuel annuel annuellement
semaine mois année end early mid ende anfang mitte fin début prochain prochaine
nächste nächsten nächstes
"""
TRIGGER_STEMS = (
    r"remind|erinner|rappel|vergessen|forget|oublie|birthday|geburtstag|jahrestag"
    r"|anniversa|half an hour|halben stunde|demi-heure"
)


def alternation(words: Iterable[str]) -> str:
    """A regex alternation of `words`, longest first so "sept" beats "sep"."""
    return "|".join(re.escape(word) for word in sorted(set(words), key=len, reverse=True))
