"""Today's daily note, the way Obsidian's Daily notes plugin keeps it: where it lives
and how it is named (`.obsidian/daily-notes.json`: folder, date format, template), and
a line added under one of its headings.

A capture adds `- 09:41 [[note|Title]]` under `## Captured`, in the same commit as the
note itself (Vault.create's `then`), so the two land together or not at all.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from storage.vault.paths import check_relpath

SETTINGS = ".obsidian/daily-notes.json"
DEFAULT_FORMAT = "YYYY-MM-DD"  # Obsidian's default
OFF, AUTO = "off", "auto"
_MOMENT = re.compile(r"\[([^\]]*)\]|YYYY|YY|MMMM|MMM|MM|M|DDDD|DD|Do|D|dddd|ddd|dd|d|ww|w|Q")
_MONTHS = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
]
_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]


@dataclass(frozen=True, slots=True)
class DailyNotes:
    """Where a vault's daily notes are and how they are named."""

    folder: str
    date_format: str = DEFAULT_FORMAT  # moment.js, as Obsidian writes it
    template: str | None = None  # a note's path without `.md`, as Obsidian writes it

    def path(self, day: date) -> str:
        name = f"{moment_format(day, self.date_format)}.md"
        return check_relpath(f"{self.folder.strip('/')}/{name}" if self.folder.strip("/") else name)


def daily_notes(root: Path, setting: str) -> DailyNotes | None:
    """The vault's daily notes: `setting` (BRAINBOT_DAILY_NOTE) `off`; `auto`, which
    follows Obsidian's settings when the vault has them; or a folder to use."""
    if setting == OFF:
        return None
    found = root / SETTINGS
    values: dict[str, object] = {}
    if found.is_file() and not found.is_symlink():
        try:
            loaded = json.loads(found.read_text(encoding="utf-8")[:100_000])
        except (OSError, ValueError):
            loaded = {}
        values = loaded if isinstance(loaded, dict) else {}
    elif setting == AUTO:
        return None
    folder = setting if setting != AUTO else str(values.get("folder") or "")
    fmt = str(values.get("format") or DEFAULT_FORMAT)
    template = str(values.get("template") or "") or None
    return DailyNotes(folder.strip().strip("/"), fmt, template)


def moment_format(day: date, fmt: str) -> str:
    """`day` in a moment.js format (the tokens daily notes use)."""

    def token(match: re.Match[str]) -> str:
        if match.group(1) is not None:
            return match.group(1)  # [literal text]
        t = match.group(0)
        iso_week = day.isocalendar().week
        values = {
            "YYYY": f"{day.year:04d}",
            "YY": f"{day.year % 100:02d}",
            "MMMM": _MONTHS[day.month - 1],
            "MMM": _MONTHS[day.month - 1][:3],
            "MM": f"{day.month:02d}",
            "M": str(day.month),
            "DDDD": f"{day.timetuple().tm_yday:03d}",
            "DD": f"{day.day:02d}",
            "Do": f"{day.day}{_ordinal(day.day)}",
            "D": str(day.day),
            "dddd": _DAYS[day.weekday()],
            "ddd": _DAYS[day.weekday()][:3],
            "dd": _DAYS[day.weekday()][:2],
            "d": str((day.weekday() + 1) % 7),
            "ww": f"{iso_week:02d}",
            "w": str(iso_week),
            "Q": str((day.month - 1) // 3 + 1),
        }
        return values[t]

    return _MOMENT.sub(token, fmt)


def with_line(text: str | None, line: str, heading: str, start: str) -> str:
    """`text` (or `start`, for a note not there yet) with `line` added at the end of
    the section `heading` (a `## ...` line; made at the end when missing)."""
    text = start if text is None else text
    lines = text.split("\n")
    level = len(heading) - len(heading.lstrip("#"))
    at = next((i for i, old in enumerate(lines) if old.strip() == heading), None)
    if at is None:
        body = text.rstrip("\n")
        return f"{body}\n\n{heading}\n{line}\n" if body else f"{heading}\n{line}\n"
    end = at + 1
    while end < len(lines):
        hashes = len(lines[end]) - len(lines[end].lstrip("#"))
        if 0 < hashes <= level and lines[end][hashes : hashes + 1] == " ":
            break
        end += 1
    last = end
    while last > at + 1 and not lines[last - 1].strip():
        last -= 1  # the line joins the section's list, before its blank lines
    return "\n".join([*lines[:last], line, *lines[last:]])


def _ordinal(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
