"""Filing without a model keeps a thought's structure: `next:`, `due`/`by …`, `#tags`
and `[[links]]` become fields and links, and a person named in a thought gets one page
(`people/Sarah Kim.md`) that later thoughts link to instead of new people notes."""

from __future__ import annotations

from datetime import UTC, date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import frontmatter

from bot.commands.structure import Titled, read_structure, titled
from storage.text.dates import When, find_when
from storage.text.person_names import full_name_after_cue
from tests.bot.helpers import message, notes
from tests.fakes.brain import Clock, running_brain

TUESDAY = datetime(2026, 11, 17, 9, 0, tzinfo=UTC)


def test_markup_is_read_and_the_words_kept() -> None:
    project = read_structure("Website redesign - next: email Tom by Friday #web #Design")
    assert (project.head, project.next_action) == ("Website redesign", "email Tom by Friday")
    assert project.tags == ("web", "design")
    assert read_structure("read #book on the flight").head == "read book on the flight"
    lines = read_structure("Roof leaks\nin the attic #house\nnext: call the roofer")
    assert (lines.head, lines.next_action) == ("Roof leaks\nin the attic", "call the roofer")
    for text in ("C# tips", "see https://example.org/a#part", "# Heading", "issue #12"):
        assert read_structure(text).tags == (), text


def test_a_full_name_after_a_people_cue() -> None:
    assert full_name_after_cue("Met Sarah Kim at the climate meetup") == "Sarah Kim"
    assert full_name_after_cue("had lunch with Jean-Luc Picard.") == "Jean-Luc Picard"
    assert full_name_after_cue("Coffee with Sarah Kim, then work") == "Sarah Kim"
    assert full_name_after_cue("met Sarah at the meetup") is None
    assert full_name_after_cue("Sarah Kim works on budget") is None


async def test_a_project_line_gives_title_next_action_due_and_tags(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        text = "project: Website redesign - next: email Tom the new mockups by Friday #web"
        (reply,) = await brain.engine.handle(message(text))
        assert notes(vault) == ["projects/website-redesign.md"], reply.text
        post = frontmatter.load(vault / "projects/website-redesign.md")
        assert post["title"] == "Website redesign"
        assert post["next_action"] == "email Tom the new mockups"
        assert post["due"] == date(2026, 11, 20)
        assert post["tags"] == ["web"]
        assert "email Tom the new mockups by Friday" in post.content
        digest = "\n".join(r.text for r in await brain.engine.handle(message("/digest")))
        assert "Website redesign: email Tom the new mockups" in digest
        assert "no next action yet" not in digest


async def test_due_words_read_in_the_persons_zone_and_links_kept(
    tmp_path: Path, database_url: str
) -> None:
    # Thursday 20:00 in UTC is already Friday morning in Auckland: "tomorrow" is Saturday.
    thursday_evening = Clock(datetime(2026, 11, 19, 20, 0, tzinfo=UTC))
    zone = {"BRAINBOT_TIMEZONE": "Pacific/Auckland"}
    async with running_brain(tmp_path, database_url, clock=thursday_evening, **zone) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("admin: renew [[Passport]] due tomorrow #travel"))
        (path,) = notes(vault)
        post = frontmatter.load(vault / path)
        assert path == "admin/renew-passport.md"
        assert post["title"] == "Renew Passport"
        assert post["due"] == date(2026, 11, 21)
        assert post["tags"] == ["travel"]
        assert "[[Passport]]" in post.content


async def test_one_person_one_page_that_later_thoughts_link_to(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        met = "Met Sarah Kim at the climate meetup, she works on heat pumps"
        await brain.engine.handle(message(met))
        assert notes(vault) == ["people/Sarah Kim.md"]
        page = frontmatter.load(vault / "people/Sarah Kim.md")
        assert page["title"] == "Sarah Kim"
        assert met in page.content

        await brain.engine.handle(message("Talked to [[Sarah Kim]] about the heat pump grant"))
        await brain.engine.handle(message("Sarah's birthday is on 4 May"))
        await brain.engine.handle(message("Met Sarah Kim again at the library"))
        people = [n for n in notes(vault) if n.startswith("people/")]
        assert people == ["people/Sarah Kim.md"]
        others = [n for n in notes(vault) if not n.startswith("people/")]
        assert len(others) == 3, notes(vault)
        for path in others:
            # [[Sarah Kim]], or [[Sarah Kim|Sarah]] where the thought says "Sarah".
            assert "[[Sarah Kim" in (vault / path).read_text(encoding="utf-8"), path
        backlinks = await brain.store.backlinks("people/Sarah Kim.md")
        assert len(backlinks) == 3


async def test_a_first_name_alone_never_makes_a_person_page(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("Sarah's birthday is on 4 May"))
        (path,) = notes(vault)
        assert not path.startswith("people/"), path
        assert "Birthday" not in path
        # Two Sarahs: "Sarah's" is neither, so the thought links to no one.
        await brain.engine.handle(message("[person] Sarah Kim - works on budget"))
        await brain.engine.handle(message("[person] Sarah Lee - runs the garden club"))
        await brain.engine.handle(message("Sarah's party is on Saturday"))
        assert [n for n in notes(vault) if n.startswith("people/")] == [
            "people/Sarah Kim.md",
            "people/Sarah Lee.md",
        ]
        (party,) = [n for n in notes(vault) if "party" in n]
        assert "[[" not in (vault / party).read_text(encoding="utf-8")


async def test_an_explicit_person_hint_for_a_known_person_links_to_her_page(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("[person] Sarah Kim - works on budget at ACME"))
        await brain.engine.handle(message("[person] Sarah Kim - moved to the Berlin office"))
        assert [n for n in notes(vault) if n.startswith("people/")] == ["people/Sarah Kim.md"]
        (other,) = [n for n in notes(vault) if not n.startswith("people/")]
        text = (vault / other).read_text(encoding="utf-8")
        assert "[[Sarah Kim]]" in text and "moved to the Berlin office" in text


async def test_a_linked_full_name_with_a_people_cue_starts_her_page(
    tmp_path: Path, database_url: str
) -> None:
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        await brain.engine.handle(message("Talked to [[Sarah Kim]] about the heat pump grant"))
        await brain.engine.handle(message("Lunch with Sarah Kim, she got the grant"))
        (page,) = [n for n in notes(vault) if n.startswith("people/")]
        assert page == "people/Sarah Kim.md"
        assert "heat pump grant" in (vault / page).read_text(encoding="utf-8")
        (other,) = [n for n in notes(vault) if n != page]
        assert "[[Sarah Kim]], she got the grant" in (vault / other).read_text(encoding="utf-8")


async def test_a_person_page_whose_title_holds_a_bar_is_linked_by_its_file_name(
    tmp_path: Path, database_url: str
) -> None:
    """The link names the page's file, as Obsidian finds notes: a title written into
    the link as its target (`[[Sarah Kim | ACME|Sarah Kim]]`) named no note at all."""
    async with running_brain(tmp_path, database_url, clock=Clock(TUESDAY)) as brain:
        vault = brain.settings.vault_dir
        page = await brain.store.create(
            "people", "Sarah Kim | ACME", "Works on budget.", {"aliases": ["Sarah Kim"]}
        )
        await brain.engine.handle(message("Met Sarah Kim again at the library"))
        (other,) = [n for n in notes(vault) if not n.startswith("people/")]
        text = (vault / other).read_text(encoding="utf-8")
        assert "Met [[sarah-kim-acme|Sarah Kim]] again" in text
        assert [b.path for b in await brain.store.backlinks(page.path)] == [other]


def test_a_thought_is_titled_without_its_date_words_in_one_go() -> None:
    def when_of(text: str) -> When:
        return find_when(text, now=TUESDAY, zone=ZoneInfo("UTC"), default_time=time(9))

    markup = titled("Website redesign - next: email Tom the mockups by Friday #web", when_of)
    assert markup == Titled("Website redesign", "email Tom the mockups", ("web",))
    assert titled("remind me to call mom tomorrow at 9", when_of).title == "Call mom"
    assert titled("[[Sarah Kim]] budget review", when_of).title == "Sarah Kim budget review"
