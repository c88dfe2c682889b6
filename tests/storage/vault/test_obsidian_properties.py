"""Notes open in Obsidian with clean Properties: every property is one of the types
Obsidian documents (text, list, number, checkbox, date `YYYY-MM-DD`, date & time
`YYYY-MM-DDTHH:mm:ss`), nothing nested, nothing empty, and the title shown where the
file name differs. Older notes (offsets, a nested `source:`, `null`s) read as before
and are not rewritten beyond what a change touches; an imported vault is not touched."""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
import yaml

from storage.vault import schema
from storage.vault.notefile import note_time
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, make_vault

BERLIN = ZoneInfo("Europe/Berlin")
NOW = datetime(2026, 11, 25, 7, 5, 9, tzinfo=UTC)  # 08:05:09 in Berlin
SLACK = {"platform": "slack", "channel": "D1", "ts": "1764054309.1", "permalink": None}
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_DATETIME = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}")
_LOOKS_DATED = re.compile(r"\d{4}-\d{2}-\d{2}[T ]")


def obsidian_problems(text: str, *, empty_too: bool = True) -> list[str]:
    """What Obsidian's Properties view would not show as a typed property: nested
    values, times not in its date or date-time format, and (unless told) empty ones."""
    block = text.split("---\n", 2)[1]
    raw = yaml.load(block, Loader=yaml.BaseLoader)  # every scalar as written
    problems = []
    for name, value in raw.items():
        if isinstance(value, dict):
            problems.append(f"{name}: nested")
        elif isinstance(value, list):
            if not value or not all(isinstance(item, str) for item in value):
                problems.append(f"{name}: empty or nested list")
        elif value in ("", "null", "~"):
            if empty_too:
                problems.append(f"{name}: null")
        elif _LOOKS_DATED.match(value) and not _DATETIME.fullmatch(value):
            problems.append(f"{name}: {value!r} is no Obsidian date-time")
        elif _DATE.match(value) and not (_DATE.fullmatch(value) or _DATETIME.fullmatch(value)):
            problems.append(f"{name}: {value!r} is no Obsidian date")
    return problems


@pytest.fixture
def vault(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Vault:
    monkeypatch.setattr("storage.vault.schema.now_utc", lambda: NOW)
    monkeypatch.setattr("storage.vault.schema.new_id", lambda: "0123456789ab")
    return make_vault(tmp_path / "vault")


def test_a_new_note_has_flat_typed_properties_and_its_title_as_alias(vault: Vault) -> None:
    vault.create(
        "projects",
        "Website redesign - next email Tom the new mockups",
        "Mockups are in the shared folder.",
        {"next_action": "email Tom", "due": date(2026, 11, 27), "tags": ["work"]},
        author=ANN,
        source=SLACK,
        zone=BERLIN,
    )
    text = (vault.root / "projects/website-redesign-next-email-tom-the-new-mockups.md").read_text()
    assert text == (
        "---\n"
        "id: 0123456789ab\n"
        "title: Website redesign - next email Tom the new mockups\n"
        "aliases:\n"
        "- Website redesign - next email Tom the new mockups\n"
        "created: 2026-11-25T08:05:09\n"
        "updated: 2026-11-25T08:05:09\n"
        "timezone: Europe/Berlin\n"
        "tags:\n"
        "- work\n"
        "source_platform: slack\n"
        "source_channel: D1\n"
        "source_ts: '1764054309.1'\n"
        "next_action: email Tom\n"
        "due: 2026-11-27\n"
        "---\n"
        "\n"
        "Mockups are in the shared folder.\n"
    )
    assert obsidian_problems(text) == []
    entry = vault.read("projects/website-redesign-next-email-tom-the-new-mockups.md")
    assert note_time(entry.fields, "created") == NOW
    assert schema.note_source(entry.fields) == {
        "platform": "slack",
        "channel": "D1",
        "ts": "1764054309.1",
    }


def test_a_person_named_like_their_file_gets_no_alias_and_no_empty_fields(vault: Vault) -> None:
    vault.create("people", "Sarah Kim", "Met at the meetup.", author=ANN)
    text = (vault.root / "people/Sarah Kim.md").read_text()
    assert "aliases" not in text and "null" not in text and "[]" not in text
    assert "created: 2026-11-25T07:05:09\n" in text  # no zone given: UTC, said by no offset
    assert "timezone" not in text


def test_changes_write_wall_times_in_the_notes_zone_and_clear_instead_of_null(
    vault: Vault,
) -> None:
    made = vault.create(
        "projects", "Fence", "paint it", {"next_action": "buy paint"}, author=ANN, zone=BERLIN
    )
    assert made.entry is not None
    nine_in_berlin = datetime(2026, 11, 26, 9, 0, tzinfo=BERLIN).astimezone(UTC)
    vault.update(
        made.entry.path, fields={"remind": nine_in_berlin, "next_action": None}, author=ANN
    )
    vault.move(made.entry.path, "admin", author=ANN)
    renamed = vault.rename("admin/fence.md", "Fence at the back", author=ANN)
    assert renamed.entry is not None
    text = (vault.root / renamed.entry.path).read_text()
    assert "remind: 2026-11-26T09:00:00\n" in text
    assert "next_action" not in text
    # The old name is kept, so links by it still resolve; the new title differs from
    # the file name, so it is one too.
    assert renamed.entry.fields["aliases"] == ["Fence", "Fence at the back"]
    for note in vault.root.rglob("*.md"):
        assert obsidian_problems(note.read_text()) == [], note


OLD_NOTE = """---
id: 5f1e2d3c4b5a
title: Garden plan
created: 2026-03-01T09:30:00+01:00
updated: 2026-07-01T10:00:00+02:00
tags: []
source:
  platform: telegram
  chat_id: 42
status: active
next_action: null
due: null
---

Plant tomatoes.
"""


def test_an_old_note_reads_the_same_and_a_change_rewrites_only_what_it_touches(
    vault: Vault,
) -> None:
    (vault.root / "projects").mkdir(exist_ok=True)
    (vault.root / "projects/garden-plan.md").write_text(OLD_NOTE)
    # What the issue saw in Obsidian, caught by the same rules the new notes pass.
    assert obsidian_problems(OLD_NOTE) == [
        "created: '2026-03-01T09:30:00+01:00' is no Obsidian date-time",
        "updated: '2026-07-01T10:00:00+02:00' is no Obsidian date-time",
        "tags: empty or nested list",
        "source: nested",
        "next_action: null",
        "due: null",
    ]
    old = vault.read("projects/garden-plan.md")
    assert schema.note_source(old.fields) == {"platform": "telegram", "chat_id": 42}
    assert note_time(old.fields, "created") == datetime(2026, 3, 1, 8, 30, tzinfo=UTC)
    assert note_time(old.fields, "updated") == datetime(2026, 7, 1, 8, 0, tzinfo=UTC)

    vault.update("projects/garden-plan.md", fields={"status": "done"}, author=ANN)
    text = (vault.root / "projects/garden-plan.md").read_text()
    expected = OLD_NOTE.replace("status: active", "status: done").replace(
        "updated: 2026-07-01T10:00:00+02:00", "updated: 2026-11-25T07:05:09"
    )
    assert text == expected
    assert note_time(vault.read("projects/garden-plan.md").fields, "updated") == NOW


def test_a_wall_time_reads_in_the_notes_own_zone() -> None:
    fields = {"created": "2026-07-01T10:00:00", "timezone": "Europe/Berlin"}
    assert note_time(fields, "created") == datetime(2026, 7, 1, 8, 0, tzinfo=UTC)
    unknown = {**fields, "timezone": "Mars/Olympus"}
    assert note_time(unknown, "created") == datetime(2026, 7, 1, 10, 0, tzinfo=UTC)


HAND_WRITTEN = {
    "Start here.md": (
        "---\naliases:\n  - Home\npermalink: index\ncssclasses:\n  - wide\n"
        "publish: true\ndescription: Where to begin.\n---\n\nWelcome. See [[Daily]].\n"
    ),
    "Daily/2026-11-25.md": (
        "---\ncreated: 2026-11-25 08:00\nrating: 4\nsource:\n  book: Walden\n"
        "empty:\n---\n# Today\r\n\r\nWindows line ends.\r\n"
    ),
}


def _assert_import_keeps_every_note(vault: Vault, src: Path) -> int:
    before = {p.relative_to(src): p.read_bytes() for p in src.rglob("*.md")}
    result = vault.import_tree(src)
    kept = 0
    for rel in result.imported:
        assert (vault.root / rel).read_bytes() == before[Path(rel)], rel
        kept += 1
    return kept


def test_import_changes_no_notes_bytes(vault: Vault, tmp_path: Path) -> None:
    src = tmp_path / "hand"
    for rel, text in HAND_WRITTEN.items():
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        (src / rel).write_bytes(text.encode())
    assert _assert_import_keeps_every_note(vault, src) == len(HAND_WRITTEN)


def test_importing_the_obsidian_help_vault_changes_no_note(vault: Vault) -> None:
    """The public obsidian-help vault (the `en` folder of the obsidianmd/obsidian-help
    repository, as bench.thirdparty_ranking uses it) named by OBSIDIAN_HELP_DIR (a
    BRAINBOT_ variable would be cleared by the suite's conftest)."""
    named = os.environ.get("OBSIDIAN_HELP_DIR")
    if not named or not Path(named).is_dir():
        pytest.skip("OBSIDIAN_HELP_DIR names no copy of the obsidian-help vault")
    assert _assert_import_keeps_every_note(vault, Path(named)) > 100
    # The type rules above hold for Obsidian's own notes (some leave a value empty).
    for note in vault.root.rglob("*.md"):
        text = note.read_text(encoding="utf-8")
        if text.startswith("---\n"):
            assert obsidian_problems(text, empty_too=False) == [], note
