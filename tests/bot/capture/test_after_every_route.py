"""What follows a capture follows every capture, whichever route filed it: the model's
turn, the small-model routes, the no-model router. The same thought, naming Sarah Kim
(who has a page), close in words to a note about a sourdough starter, and sharing a
page, gets through each route the line on Sarah Kim's timeline, the Related
suggestion and the page read into the note. Real engine, vault, Postgres and fake
model server; the page from a local server."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import frontmatter
import pytest

from tests.bot.connect.test_timeline import timeline
from tests.bot.enrich.pages_server import page_server
from tests.bot.helpers import message
from tests.fakes.brain import Told, running_brain
from tests.fakes.openai_server import FakeOpenAI, Step, call, say

WORDS = "Lunch with Sarah Kim: my sourdough starter smells of acetone, feed it more rye flour"
TITLE = "Sourdough starter smells of acetone"
STARTER = (
    "Sourdough starter needs feeding",
    "Sourdough starter needs feeding twice a day with rye flour and water.",
)


def small_model(body: dict[str, Any]) -> Step:
    """The routed prompts, answered: save, as an idea."""
    prompt = body["messages"][0]["content"]
    if prompt.startswith("Classify"):
        return say(json.dumps({"route": "save"}))
    return say(json.dumps({"category": "ideas", "title": TITLE, "confidence": 0.9}))


@pytest.mark.parametrize("route", ["model", "small model", "no model"])
async def test_reading_the_timeline_and_related_notes_follow_every_route(
    route: str, tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    settings: dict[str, Any] = {"BRAINBOT_FETCH_ALLOW_PRIVATE": "true"}
    model: FakeOpenAI | None = openai_fake
    if route == "no model":
        model = None
    elif route == "small model":
        settings["BRAINBOT_LLM_TOOLS"] = "routed"
        openai_fake.responder = small_model
    async with page_server() as site:
        text = f"{WORDS} {site}/compost"
        if route == "model":
            openai_fake.script = [
                call(
                    "capture",
                    category="ideas",
                    title=TITLE,
                    body=text,
                    confidence=0.9,
                    tags=[],
                    fields=[],
                )
            ]
        told = Told()
        async with running_brain(tmp_path, database_url, model, deliver=told, **settings) as brain:
            await brain.store.create("people", "Sarah Kim", "Works on the bakery's budget.")
            await brain.store.create("ideas", *STARTER)
            (reply,) = await brain.engine.handle(message(text))
            await brain.engine.after.wait_idle()
            vault = brain.settings.vault_dir
            saved = re.search(r"Saved to (\S+?\.md)", reply.text)
            assert saved is not None, reply.text
            path = saved.group(1)
            note = frontmatter.load(vault / path)
            lines = timeline(vault, "people/Sarah Kim.md")
    stem = path.rsplit("/", 1)[1].removesuffix(".md")
    assert len(lines) == 1 and f"[[{stem}" in lines[0], lines
    assert "Added to the timeline of Sarah Kim." in told.texts
    related = [t for t in told.texts if t.startswith("Related:")]
    assert related and "Sourdough starter needs feeding" in related[0], told.texts
    assert "bokashi" in note.content  # the page, read into the note


def notes_with(vault: Path, words: str) -> list[str]:
    """The notes (outside today's daily note) whose text holds `words`."""
    return sorted(
        str(p.relative_to(vault))
        for p in vault.rglob("*.md")
        if ".git" not in p.parts and "daily" not in p.parts and words in p.read_text()
    )


@pytest.mark.parametrize("route", ["model", "small model", "no model"])
async def test_a_link_saved_before_is_one_note_whichever_route(
    route: str, tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    settings: dict[str, Any] = {"BRAINBOT_FETCH_ALLOW_PRIVATE": "true"}
    model: FakeOpenAI | None = openai_fake
    if route == "no model":
        model = None
    elif route == "small model":
        settings["BRAINBOT_LLM_TOOLS"] = "routed"
        openai_fake.responder = small_model
    async with page_server() as site:
        text = f"{WORDS} {site}/compost"
        if route == "model":
            openai_fake.script = [
                call("capture", category="ideas", title=TITLE, body=text, confidence=0.9)
            ]
        async with running_brain(tmp_path, database_url, model, **settings) as brain:
            await brain.engine.handle(message(text))
            (again,) = await brain.engine.handle(message(f"{text} and keep it warm"))
            await brain.engine.after.wait_idle()
            vault = brain.settings.vault_dir
            holding = notes_with(vault, f"{site}/compost")
    assert again.text.startswith("You saved this link before"), again.text
    assert len(holding) == 1, holding
    assert "keep it warm" in (vault / holding[0]).read_text()


async def test_the_model_filing_a_link_saved_before_adds_to_that_note(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """The model may bring a link the message does not hold (it read it earlier in the
    chat): filed through the one capture path, a link saved before is still one note."""
    said = "Keep that compost page with my sourdough starter notes"
    async with page_server() as site:
        page = f"{site}/compost"
        openai_fake.script = [
            call(
                "capture",
                category="ideas",
                title="Compost for the starter",
                body=f"{said}: {page}",
                confidence=0.9,
                tags=[],
                fields=[],
            )
        ]
        async with running_brain(
            tmp_path, database_url, openai_fake, BRAINBOT_FETCH_ALLOW_PRIVATE="true"
        ) as brain:
            saved = await brain.store.create(
                "ideas", "Compost", "A page on compost.", {"url": page}
            )
            replies = await brain.engine.handle(message(said))
            await brain.engine.after.wait_idle()
            vault = brain.settings.vault_dir
            holding = notes_with(vault, page)
    answer = " ".join(r.text for r in replies)
    assert holding == [saved.path], holding
    assert f"You saved this link before: “Compost” ({saved.path})" in answer, answer
    assert "sourdough starter" in (vault / saved.path).read_text()


async def test_the_model_tags_are_tags(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI
) -> None:
    """The model's call gets the doors' rule: tags are Obsidian tags (no `#`, no spaces)."""
    openai_fake.script = [
        call(
            "capture",
            category="ideas",
            title=TITLE,
            body=WORDS,
            confidence=0.9,
            tags=["#sourdough", "rye flour"],
            fields=[],
        ),
    ]
    async with running_brain(tmp_path, database_url, openai_fake) as brain:
        (reply,) = await brain.engine.handle(message(WORDS))
        vault = brain.settings.vault_dir
        saved = re.search(r"Saved to (\S+?\.md)", reply.text)
        assert saved is not None, reply.text
        note = frontmatter.load(vault / saved.group(1))
    assert note["tags"] == ["sourdough", "rye-flour"], note["tags"]
