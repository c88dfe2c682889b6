"""Typed relations in `brainbot chat` through a pipe, on a vault written the way
basic-memory and Dataview write them: `/backlinks` says how each note links, and
`/search linked:[[X]]` finds the notes linking to X (of one type, if asked)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.bot.console_support import piped_chat

pytestmark = pytest.mark.slow  # starts brainbot processes

VAULT = {
    "Acme.md": "# Acme\n\nA client.\n",
    "People/Sarah Kim.md": "# Sarah Kim\n\n## Relations\n- works_at [[Acme]]\n",
    "People/Tom Lee.md": "# Tom Lee\n\nemployer:: [[Acme]]\n",
    "Lunch.md": "# Lunch\n\nLunch at [[Acme]] with the team.\n",
    "Code sample.md": "# Code sample\n\n```\n- works_at [[Acme]]\n```\n",
}


def test_backlinks_show_types_and_linked_searches_find_them(
    tmp_path: Path, database_url: str
) -> None:
    folder = tmp_path / "notes"
    for rel, text in VAULT.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")
    imported = piped_chat(tmp_path, database_url, [], "import", str(folder))
    assert imported.returncode == 0, imported.stderr

    done = piped_chat(
        tmp_path,
        database_url,
        [
            "/backlinks Acme",
            "/search linked:works_at:[[Acme]]",
            "/search lunch linked:[[Acme]]",
            "/search linked:[[Code sample]]",
        ],
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout
    # Typed first, by type; the link in a code block is none.
    backlinks = (
        "- employer ← [[Tom Lee]] (People/Tom Lee.md)\n"
        "- works_at ← [[Sarah Kim]] (People/Sarah Kim.md)\n"
        "- Lunch (Lunch.md)\n"
    )
    assert out.startswith(backlinks)
    typed, rest = out[len(backlinks) :].split("- Lunch (Lunch.md)", 1)
    assert "- Sarah Kim (People/Sarah Kim.md)" in typed and "Tom Lee" not in typed
    assert "Sarah Kim" not in rest and "Code sample.md" not in out
    assert rest.rstrip().endswith("No notes linking to [[Code sample]].")
