"""A note's outgoing links agree with backlinks (A lists B exactly when B lists A back),
missing targets are marked; a random note is an open one, by tag or category, and the
same under the same seed. Driven as a person does: commands, and a model's calls."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.runtime import Runtime
from bot.tools import resurfacing
from storage.entry import Author
from tests.bot.helpers import message
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, ToolCall, calls, say

ADA = Author("Ada", "ada@example.org")
# Every way a link is written: by title, by file name, with a folder, a heading or a
# label, as a Markdown link (relative and from the root), in code (no link), missing.
NOTES: dict[str, tuple[str, str]] = {
    "ideas/tea.md": ("title: Tea\ntags: [drinks]", "Green tea and [[Tea Ceremony|ceremonies]].\n"),
    "ideas/tea-ceremony.md": (
        "title: Tea Ceremony",
        "See [[Kyoto Trip#Day 2]], [[projects/kyoto-trip]] and [[Matcha Farm]].\n"
        "Back to [tea](tea.md).\n"
        "`[[Not A Link]]` and\n```\n[[Also Not]]\n```\n",
    ),
    "projects/kyoto-trip.md": (
        "title: Kyoto Trip\nstatus: active",
        "Visit a [ceremony](/ideas/tea-ceremony.md) with [[Sam]].\n",
    ),
    "people/sam.md": (
        "title: Sam",
        "Met at [[Tea]] club; wants a [[Kyoto trip]]; loves [[Café Crème]].\n",
    ),
    # Names that are not ASCII: accents fold ("cafe creme", "Zoe"), as Obsidian finds them.
    "ideas/cafe.md": ("title: Café Crème", "With [[Zoe]] and [[cafe creme]].\n"),
    "people/zoë.md": ("title: Zoë", "Drinks [[CAFÉ]].\n"),
    "admin/tea.md": ("title: Tea\nstatus: done", "Buy [[tea]] and pay the [[Gas bill]].\n"),
    "ideas/old.md": ("title: Old idea\narchived: true", "Long gone.\n"),
    "digests/2026-11-01.md": ("title: Digest", "Today: [[Tea]].\n"),
}
OPEN = {
    "ideas/tea.md",
    "ideas/tea-ceremony.md",
    "projects/kyoto-trip.md",
    "people/sam.md",
    "ideas/cafe.md",
    "people/zoë.md",
}


async def _with_notes(brain: Runtime) -> None:
    for path, (fields, body) in NOTES.items():
        await brain.store.write_note(path, f"---\n{fields}\n---\n{body}", operation="import")


async def _say(brain: Runtime, text: str) -> str:
    return "\n".join(r.text for r in await brain.engine.handle(message(text)))


async def test_links_mark_missing_notes_and_agree_with_backlinks(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    paths = [p for p in NOTES if not p.startswith("digests/")]
    openai_fake.script = [
        calls(*(ToolCall("list_forward_links", {"path": p}) for p in paths)),
        say("Here they are."),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        await _with_notes(brain)
        await brain.engine.handle(message("what do my notes link to?"))
        messages = openai_fake.chat_requests()[-1]["messages"]
        results = [json.loads(m["content"]) for m in messages if m.get("role") == "tool"]
        forward = {r["path"]: r["links"] for r in results}
        ceremony = forward["ideas/tea-ceremony.md"]
        assert [(link["target"], link.get("path"), link["missing"]) for link in ceremony] == [
            ("Kyoto Trip", "projects/kyoto-trip.md", False),
            ("Matcha Farm", None, True),
            ("tea.md", "ideas/tea.md", False),  # relative to its folder: not admin/tea.md
        ]
        assert ceremony[0]["context"].startswith("See [[Kyoto Trip#Day 2]]")
        sam = forward["people/sam.md"][0]
        assert (sam["path"], sam["also"]) == ("admin/tea.md", ["ideas/tea.md"])
        assert forward["people/sam.md"][2]["path"] == "ideas/cafe.md"
        assert [link["path"] for link in forward["ideas/cafe.md"]] == [
            "people/zoë.md",
            "ideas/cafe.md",
        ]
        assert forward["people/zoë.md"][0]["path"] == "ideas/cafe.md"
        for source, links in forward.items():
            reached = {p for link in links for p in [link.get("path"), *link.get("also", [])]}
            reached -= {None, source}
            linking = {
                target
                for target in paths
                if source in {h.path for h in await brain.store.backlinks(target)}
            }
            assert reached == linking, source


async def test_links_and_get_of_a_section_by_command(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _with_notes(brain)
        await brain.store.write_note(
            "projects/plan.md",
            "---\ntitle: Plan\n---\n## Tasks\n- book flights\n\n## Budget\n300 EUR\n",
            operation="import",
        )
        assert await _say(brain, "/links Tea Ceremony") == (
            "ideas/tea-ceremony.md links to 3 notes (1 missing):\n"
            "- Kyoto Trip (projects/kyoto-trip.md)\n"
            "- Matcha Farm (missing: no note yet)\n"
            "- Tea (ideas/tea.md)"
        )
        assert await _say(brain, "/links Old idea") == "ideas/old.md links to no note."
        assert await _say(brain, "/links") == "Usage: /links NOTE"
        shown = await _say(brain, "/get Plan#budget")
        assert shown.endswith("## Budget\n300 EUR") and "book flights" not in shown
        assert (await _say(brain, "/get [[Plan#Tasks]]")).endswith("## Tasks\n- book flights")
        assert await _say(brain, "/get Plan#Costs") == (
            "Sorry: no heading 'Costs' in projects/plan.md; its headings: ## Tasks, ## Budget"
        )


async def test_links_show_the_type_of_a_typed_relation(tmp_path: Path, database_url: str) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _with_notes(brain)
        await brain.store.write_note(
            "people/sarah.md",
            "---\ntitle: Sarah\n---\n## Relations\n- works_at [[Kyoto Trip]]\n"
            "mentor:: [[Sam]]\n- Call [[Tea]] about it\n",
            operation="import",
        )
        assert await _say(brain, "/links Sarah") == (
            "people/sarah.md links to 3 notes:\n"
            "- works_at → Kyoto Trip (projects/kyoto-trip.md)\n"
            "- mentor → Sam (people/sam.md)\n"
            "- Tea (admin/tea.md, also ideas/tea.md)"
        )


def _drawn(reply: str) -> str:
    found = re.match(r"[^\n]*\(([^)\n]+\.md)\)", reply)
    assert found, reply
    return found.group(1)


async def test_a_random_note_is_an_open_one_and_the_same_under_the_same_seed(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url) as brain:
        await _with_notes(brain)
        draws = []
        for seed in (7, 7):
            resurfacing.DRAW.seed(seed)
            draws.append([_drawn(await _say(brain, "/random")) for _ in range(12)])
        assert draws[0] == draws[1]
        assert set(draws[0]) <= OPEN and len(set(draws[0])) > 1
        assert _drawn(await _say(brain, "/random #drinks")) == "ideas/tea.md"
        assert _drawn(await _say(brain, "/random project")) == "projects/kyoto-trip.md"
        assert await _say(brain, "/random admin") == "No open notes in admin to draw from."
        assert (
            await _say(brain, "/random #nothing") == "No open notes tagged #nothing to draw from."
        )
        assert await _say(brain, "/random cooking now") == "Usage: /random [#TAG|CATEGORY]"
        assert await _say(brain, "/random digests") == "No open notes in digests to draw from."
