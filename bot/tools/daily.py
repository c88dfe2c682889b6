"""The line a capture adds to today's daily note (`- 09:41 [[note|Title]]` under
`## Captured`), when the vault keeps daily notes (storage.vault.daily): today and the
time are the person's own, and a missing daily note starts from their template."""

from __future__ import annotations

import logging
import re
from datetime import datetime

from bot.tools.context import ToolContext
from storage import StorageError, Then
from storage.text import wikilinks
from storage.vault import DailyNotes, moment_format, with_line

log = logging.getLogger(__name__)

HEADING = "## Captured"
TEMPLATE_BYTES = 100_000
_VARIABLE = re.compile(r"\{\{\s*(date|time|title)\s*(?::\s*([^}]*?))?\s*\}\}")


async def _today(ctx: ToolContext) -> tuple[datetime, str, str] | None:
    """The person's local time, today's note's path and how that note starts if it is
    not there yet (their template, filled); None when the vault keeps no daily notes.
    The template is read before the write, so the write only computes."""
    notes = await ctx.store.daily_notes(ctx.settings.daily_note)
    if notes is None:
        return None
    local = ctx.now.astimezone(ctx.vault_zone)
    return local, notes.path(local.date()), await _from_template(ctx, notes, local)


async def daily_line(ctx: ToolContext, title: str) -> Then | None:
    """Today's daily note and how the capture of `title` changes it, or None when the
    vault keeps no daily notes (or its settings cannot be used: the capture goes on)."""
    try:
        today = await _today(ctx)
    except (StorageError, OSError, ValueError) as exc:
        log.warning("no daily-note line for this capture: %s", exc)
        return None
    if today is None:
        return None
    local, path, start = today

    def edit(old: str | None, rel: str) -> str:
        return with_line(old, f"- {local:%H:%M} {wikilinks.link_to(rel, title)}", HEADING, start)

    return path, edit


async def _from_template(ctx: ToolContext, notes: DailyNotes, local: datetime) -> str:
    """The person's template with Obsidian's {{date}}, {{time}} and {{title}} filled,
    or nothing when they have none."""
    if not notes.template:
        return ""
    try:
        data = await ctx.store.read_file(f"{notes.template}.md", TEMPLATE_BYTES, note=True)
    except (StorageError, OSError, ValueError) as exc:
        log.warning("daily-note template %s not used: %s", notes.template, exc)
        return ""
    text = data.decode("utf-8", "replace")

    def fill(match: re.Match[str]) -> str:
        what, fmt = match.group(1), match.group(2)
        if what == "date":
            return moment_format(local.date(), fmt or notes.date_format)
        if what == "time":
            return local.strftime("%H:%M") if not fmt else moment_format(local.date(), fmt)
        return moment_format(local.date(), notes.date_format)

    return _VARIABLE.sub(fill, text)


LOG_HEADING = "## Log"
DAILY_OFF = (
    "Daily notes are off in this vault: set BRAINBOT_DAILY_NOTE to a folder (e.g. "
    "`journal`), or turn on Obsidian's Daily notes, to write into today's note."
)


async def log_line(ctx: ToolContext, text: str) -> str:
    """Write `text` as `- 09:41 text` under `## Log` in today's daily note (made from
    the template when missing); what to tell the person."""
    today = await _today(ctx)
    if today is None:
        return DAILY_OFF
    local, path, start = today
    line = f"- {local:%H:%M} {' '.join(text.split())}"

    def edit(old: str | None) -> str:
        return with_line(old, line, LOG_HEADING, start)

    written = await ctx.store.write_note(
        path,
        edit,
        operation="log",
        author=ctx.author,
        source=dict(ctx.source),
    )
    return f"Logged in {written.change.paths[0]} (/undo takes it back)."
