"""Dates in a capture become frontmatter: `due`, `remind`, `repeat`.

Both paths meet here: the model's `fields` (normalised, since "tomorrow 9am" in a
file would mean another day by the time anyone reads it) and the parser's reading
of the person's own words (storage.text.dates.when), which wins where it found something: it is
deterministic and knows the person's zone and today's date, which a small model
often gets wrong. A reminder in the past is dropped rather than sent at once.
A date outside 1970..9999 or a repeat more than a century apart is refused with a
ToolError that says so, before anything is written (storage.text.dates.bounds).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo

from bot.tools.registry import ToolContext, ToolError
from storage.text.dates import (
    OutOfRange,
    describe,
    parse_repeat,
    read_due,
    read_when,
)

DATE_FIELDS = ("due", "remind", "repeat")


def dated(ctx: ToolContext, text: str, values: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    """`values` with `due`, `remind` and `repeat` read from the model and from `text`,
    and what the reply says about them (`promise`), read in one go; ToolError for a
    date or repeat outside what is kept."""
    try:
        return _dated(ctx, text, values)
    except OutOfRange as exc:
        raise _refused(exc) from exc


def _refused(exc: OutOfRange) -> ToolError:
    return ToolError(f"{exc}. Nothing was saved; ask the user for a date that fits.")


def _dated(ctx: ToolContext, text: str, values: Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    zone, found = ctx.time_of(text)  # the turn has read the person's words already
    now = ctx.now.astimezone(zone)
    default = ctx.settings.reminder_time
    out = dict(values)
    if out.get("remind") not in (None, ""):
        out["remind"] = read_when(out["remind"], now=now, zone=zone, default_time=default)
    if out.get("due") not in (None, ""):
        out["due"] = read_due(out["due"], now=now, zone=zone)
    if out.get("repeat") not in (None, ""):
        parse_repeat(str(out["repeat"]))  # only to refuse one a century apart
    if found.due is not None:
        out["due"] = found.due
    if found.remind is not None:
        out["remind"] = found.remind
    if found.repeat:
        out["repeat"] = found.repeat
    remind = out.get("remind")
    if isinstance(remind, datetime) and remind < now:
        out["remind"] = None
    for name in DATE_FIELDS:  # nothing usable: the category's default, if it has one
        if out.get(name) in (None, ""):
            out.pop(name, None)
    return out, promise(out, zone, now)


def normalised(ctx: ToolContext, fields: Mapping[str, Any]) -> dict[str, Any]:
    """Fields a change sets, with `remind` and `due` written as an instant and a date
    ("friday 9am" in a file would mean another day by next week); a value that is
    not a time is kept as written. ToolError for a date or repeat outside what is kept."""
    try:
        return _normalised(ctx, fields)
    except OutOfRange as exc:
        raise _refused(exc) from exc


def _normalised(ctx: ToolContext, fields: Mapping[str, Any]) -> dict[str, Any]:
    zone = ctx.zone
    now = ctx.now.astimezone(zone)
    out = dict(fields)
    if isinstance(out.get("remind"), str) and out["remind"].strip():
        moment = read_when(
            out["remind"], now=now, zone=zone, default_time=ctx.settings.reminder_time
        )
        out["remind"] = moment if moment is not None else out["remind"]
    if isinstance(out.get("due"), str) and out["due"].strip():
        day = read_due(out["due"], now=now, zone=zone)
        out["due"] = day if day is not None else out["due"]
    if isinstance(out.get("repeat"), str):
        parse_repeat(out["repeat"])  # only to refuse one a century apart
    return out


def promise(fields: Mapping[str, Any], zone: ZoneInfo, now: datetime) -> str:
    """What the reply says about the dates it filed: "I'll remind you tomorrow at 09:00."
    (`now` in the person's `zone`)."""
    remind, repeat, due = fields.get("remind"), fields.get("repeat"), fields.get("due")
    parts: list[str] = []
    if isinstance(remind, datetime):
        again = f", then {repeat}" if repeat else ""
        parts.append(f"I'll remind you {describe(remind.astimezone(zone), now)}{again}.")
    if due is not None and not isinstance(remind, datetime):
        parts.append(f"Due {due}.")
    return " ".join(parts)
