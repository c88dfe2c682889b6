"""End to end: fake Slack → real bolt app → real engine (temp vault, fresh database,
fake OpenAI) → replies received by the fake Slack."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import frontmatter
import pytest
from aiohttp import web
from fpdf import FPDF

from adapters.slack.app import SlackAdapter
from app.runtime import Runtime
from app.watch import sync_store
from storage.entry import Author
from tests.bot.enrich.pages_server import page_server
from tests.bot.helpers import notes
from tests.fakes.brain import running_brain
from tests.fakes.openai_server import FakeOpenAI, call
from tests.fakes.scripts import CAPTURE, UPDATE
from tests.fakes.slack_api import BOT_TOKEN, FakeSlack
from tests.fakes.slack_payloads import (
    CHANNEL,
    SIGNING_SECRET,
    block_actions,
    dm_event,
    event_body,
    interactive_body,
    mention_event,
    post_signed,
)


@dataclass
class SlackBrain:
    brain: Runtime
    fake: FakeSlack
    url: str
    session: aiohttp.ClientSession

    @property
    def vault(self) -> Path:
        return self.brain.settings.vault_dir

    async def post(self, payload: dict[str, Any], *, retry: int | None = None) -> None:
        status, _ = await post_signed(self.session, self.url, event_body(payload), retry_num=retry)
        assert status == 200

    async def press(self, button: dict[str, Any], ts: str, user: str = "U0ALICE") -> None:
        payload = block_actions(
            action_id=button["action_id"], value=button["value"], message_ts=ts, user=user
        )
        status, _ = await post_signed(self.session, self.url, interactive_body(payload))
        assert status == 200


def slack_adapter(fake_slack: FakeSlack) -> SlackAdapter:
    """The real adapter in HTTP mode, not started: made before the brain, it can be the
    brain's `deliver` (`running_brain(..., deliver=adapter.send)`), as `brainbot run`
    wires it."""
    return SlackAdapter(BOT_TOKEN, signing_secret=SIGNING_SECRET, api_url=fake_slack.api_url)


@asynccontextmanager
async def serving(
    brain: Runtime, fake_slack: FakeSlack, adapter: SlackAdapter | None = None
) -> AsyncIterator[SlackBrain]:
    """The real adapter (`adapter`, else a new one) in HTTP mode in front of `brain`,
    until the block ends."""
    adapter = adapter or slack_adapter(fake_slack)
    app = web.Application()
    adapter.mount(app)
    runner = web.AppRunner(app, handle_signals=False, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    await adapter.start(brain.engine.handle, brain.engine.access.is_allowed)
    try:
        async with aiohttp.ClientSession() as session:
            url = f"http://127.0.0.1:{port}/slack/events"
            yield SlackBrain(brain, fake_slack, url, session)
    finally:
        await adapter.stop()
        await runner.cleanup()


@pytest.fixture
async def slack_brain(
    tmp_path: Path, database_url: str, openai_fake: FakeOpenAI, fake_slack: FakeSlack
) -> AsyncIterator[SlackBrain]:
    async with (
        running_brain(tmp_path, database_url, openai_fake) as brain,
        serving(brain, fake_slack) as sb,
    ):
        yield sb


async def test_dm_capture_files_a_note_and_answers(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE]
    payload = dm_event("launch the new website before the conference")
    await slack_brain.post(payload)
    [reply] = await slack_brain.fake.wait_for("chat.postMessage", within=15)
    assert reply.args["channel"] == "D0ALICE"
    assert "projects/launch-the-website.md" in reply.args["blocks"][0]["text"]["text"]
    assert notes(slack_brain.vault) == ["projects/launch-the-website.md"]
    post = frontmatter.load(slack_brain.vault / "projects/launch-the-website.md")
    assert "source" not in post.metadata  # flat properties: Obsidian shows no nested map
    assert post["source_platform"] == "slack"
    ts = payload["event"]["ts"].replace(".", "")
    assert post["source_permalink"] == f"https://acme.slack.com/archives/D0ALICE/p{ts}"


async def test_mention_in_a_channel_is_answered_in_the_thread(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE]
    payload = mention_event("launch the new website before the conference")
    await slack_brain.post(payload)
    [reply] = await slack_brain.fake.wait_for("chat.postMessage", within=15)
    assert (reply.args["channel"], reply.args["thread_ts"]) == (CHANNEL, payload["event"]["ts"])
    assert notes(slack_brain.vault) == ["projects/launch-the-website.md"]


async def test_retried_event_is_captured_once(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.script = [CAPTURE, CAPTURE]
    payload = dm_event("launch the new website before the conference")
    await slack_brain.post(payload)
    await slack_brain.post(payload, retry=1)
    await slack_brain.fake.wait_for("chat.postMessage", within=15)
    await slack_brain.post(dm_event("/list"))
    await slack_brain.fake.wait_for("chat.postMessage", 2, within=15)
    assert notes(slack_brain.vault) == ["projects/launch-the-website.md"]
    assert len(openai_fake.script) == 1  # the retry never reached the model


async def _approval_card(
    sb: SlackBrain, openai_fake: FakeOpenAI
) -> tuple[str, list[dict[str, Any]]]:
    await sb.brain.store.create(
        "ideas", "Tea", "Try more kinds of tea.", {}, author=Author("Ada", "ada@example.org")
    )
    openai_fake.script = [UPDATE]
    await sb.post(dm_event("I tried oolong, it was great"))
    [card] = await sb.fake.wait_for("chat.postMessage", within=15)
    blocks = card.args["blocks"]
    assert any(b["text"]["text"].startswith("```") for b in blocks if b["type"] == "section")
    [actions] = [b for b in blocks if b["type"] == "actions"]
    return str(card.response["ts"]), actions["elements"]


def _button(buttons: list[dict[str, Any]], label: str) -> dict[str, Any]:
    return next(b for b in buttons if b["text"]["text"] == label)


async def test_approve_applies_and_updates_the_card(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    ts, buttons = await _approval_card(slack_brain, openai_fake)
    await slack_brain.press(_button(buttons, "Approve"), ts)
    [update] = await slack_brain.fake.wait_for("chat.update", within=15)
    assert update.args["ts"] == ts
    assert update.args["blocks"][0]["text"]["text"].startswith("Approved")
    assert all(b["type"] != "actions" for b in update.args["blocks"])
    post = frontmatter.load(slack_brain.vault / "ideas/tea.md")
    assert post["status"] == "tried"


async def test_reject_changes_nothing_and_updates_the_card(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    ts, buttons = await _approval_card(slack_brain, openai_fake)
    before = (slack_brain.vault / "ideas/tea.md").read_text()
    await slack_brain.press(_button(buttons, "Reject"), ts)
    [update] = await slack_brain.fake.wait_for("chat.update", within=15)
    assert update.args["blocks"][0]["text"]["text"].startswith("Rejected")
    assert (slack_brain.vault / "ideas/tea.md").read_text() == before


async def test_a_small_change_runs_at_once_and_its_undo_button_updates_the_message(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    await slack_brain.brain.store.create(
        "ideas", "Tea", "Try more kinds of tea.", {}, author=Author("Ada", "ada@example.org")
    )
    before = (slack_brain.vault / "ideas/tea.md").read_text()
    openai_fake.script = [
        call(
            "update_entry",
            path="ideas/tea.md",
            set_fields=None,
            remove_fields=None,
            body=None,
            append="Tried oolong: great.",
        )
    ]
    await slack_brain.post(dm_event("I tried oolong, it was great"))
    [sent] = await slack_brain.fake.wait_for("chat.postMessage", within=15)
    [actions] = [b for b in sent.args["blocks"] if b["type"] == "actions"]
    assert [b["text"]["text"] for b in actions["elements"]] == ["Undo"]
    assert "Tried oolong" in (slack_brain.vault / "ideas/tea.md").read_text()
    await slack_brain.press(_button(actions["elements"], "Undo"), str(sent.response["ts"]))
    [update] = await slack_brain.fake.wait_for("chat.update", within=15)
    assert update.args["blocks"][0]["text"]["text"].startswith("Undone: Updated ideas/tea.md")
    assert all(b["type"] != "actions" for b in update.args["blocks"])
    assert (slack_brain.vault / "ideas/tea.md").read_text() == before


async def test_someone_else_pressing_approve_changes_nothing(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    ts, buttons = await _approval_card(slack_brain, openai_fake)
    before = (slack_brain.vault / "ideas/tea.md").read_text()
    await slack_brain.press(_button(buttons, "Approve"), ts, user="U0BOB")
    posts = await slack_brain.fake.wait_for("chat.postMessage", 2, within=15)
    assert "Only the person who asked" in posts[-1].args["text"]
    assert slack_brain.fake.calls_of("chat.update") == []
    assert (slack_brain.vault / "ideas/tea.md").read_text() == before


async def test_voice_clip_is_kept_and_its_transcript_captured(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.transcript = "launch the new website before the conference"
    openai_fake.script = [CAPTURE]
    clip = slack_brain.fake.add_file(
        "audio_message.webm", b"OggS fake audio", "audio/webm", subtype="slack_audio"
    )
    await slack_brain.post(dm_event("", subtype="file_share", files=[clip]))
    await slack_brain.fake.wait_for("chat.postMessage", within=15)
    kept = list((slack_brain.vault / "attachments").iterdir())
    assert [p.read_bytes() for p in kept] == [b"OggS fake audio"]
    assert notes(slack_brain.vault) == ["projects/launch-the-website.md"]


async def test_a_file_shared_with_a_mention_is_kept_like_one_in_a_dm(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    openai_fake.transcript = "launch the new website before the conference"
    openai_fake.script = [CAPTURE]
    clip = slack_brain.fake.add_file(
        "audio_message.webm", b"OggS channel audio", "audio/webm", subtype="slack_audio"
    )
    await slack_brain.post(mention_event("", files=[clip]))
    await slack_brain.fake.wait_for("chat.postMessage", within=15)
    kept = list((slack_brain.vault / "attachments").iterdir())
    assert [p.read_bytes() for p in kept] == [b"OggS channel audio"]
    assert notes(slack_brain.vault) == ["projects/launch-the-website.md"]


async def test_a_slack_connect_guest_is_not_slack_star_and_their_files_stay_put(
    slack_brain: SlackBrain, openai_fake: FakeOpenAI
) -> None:
    slack_brain.fake.add_user("U0GUEST", "guest", team_id="T0OTHER")
    clip = slack_brain.fake.add_file("secret.webm", b"OggS guest audio", "audio/webm")
    await slack_brain.post(dm_event("file this", user="U0GUEST", user_team="T0OTHER", files=[clip]))
    (posted,) = await slack_brain.fake.wait_for("chat.postMessage", within=15)
    assert posted.args["text"].startswith("Sorry")
    assert slack_brain.fake.calls_of("file") == []
    assert notes(slack_brain.vault) == []
    assert openai_fake.chat_requests() == []


async def test_a_labelled_link_and_a_file_are_filed_together(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    """No model: the note holds the words as the engine got them, the link's address shown."""
    chart = fake_slack.add_file("chart.png", b"\x89PNG chart", "image/png")
    report = fake_slack.add_file("report.pdf", b"%PDF report", "application/pdf")
    text = "pricing study <https://x.org/a|the pricing page> and <https://x.org/b>"
    async with (
        running_brain(tmp_path, database_url, BRAINBOT_FETCH=False) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await sb.post(dm_event(text, subtype="file_share", files=[chart, report]))
        await fake_slack.wait_for("chat.postMessage", within=15)
    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    body = frontmatter.load(vault / path).content
    assert "pricing study the pricing page (https://x.org/a) and https://x.org/b" in body
    assert "![[attachments/chart.png]]" in body and "![[attachments/report.pdf]]" in body
    assert (vault / "attachments/chart.png").read_bytes() == b"\x89PNG chart"
    assert (vault / "attachments/report.pdf").read_bytes() == b"%PDF report"
    downloads = [c for c in fake_slack.calls_of("file") if c.response == {"ok": True}]
    assert sorted(c.args["name"] for c in downloads) == ["chart.png", "report.pdf"]


async def test_a_file_holding_nul_is_kept_and_the_vault_goes_on(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    """NUL is valid UTF-8 and Postgres text cannot hold it: `evil.md` holding
    `hello\\0world` is kept as an attachment (no note of its own), the capture answers
    as usual, and so do a later hand edit (found by search) and a later capture."""
    evil = fake_slack.add_file("evil.md", b"hello\x00world", "text/markdown")
    async with (
        running_brain(tmp_path, database_url, BRAINBOT_FETCH=False) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await sb.post(dm_event("minutes of the board", subtype="file_share", files=[evil]))
        [answer] = await fake_slack.wait_for("chat.postMessage", within=15)
        assert "went wrong" not in str(answer.args)
        vault = brain.settings.vault_dir
        assert (vault / "attachments/evil.md").read_bytes() == b"hello\x00world"

        (vault / "ideas/heron.md").write_text("---\ntitle: Heron\n---\nA grey heron.\n")
        await sync_store(brain.store, "changed on disk", brain.skips)
        assert [hit.path for hit in (await brain.store.search("heron")).hits] == ["ideas/heron.md"]
        assert (await brain.store.search("hello")).hits == ()  # an attachment is no note

        await sb.post(dm_event("remember to water the ferns"))
        [_, later] = await fake_slack.wait_for("chat.postMessage", 2, within=15)
        assert "went wrong" not in str(later.args)


async def test_a_labelled_link_s_page_and_a_pdf_s_text_are_read_after_the_reply(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    pdf = FPDF()
    pdf.set_font("helvetica", size=16)
    for line in ("Board minutes", "Budget approved", "Next: the orangery roof"):
        pdf.add_page()
        pdf.cell(text=line)
    minutes = fake_slack.add_file("minutes.pdf", bytes(pdf.output()), "application/pdf")
    async with page_server() as site:
        text = f"for the garden club <{site}/compost|this compost guide>"
        adapter = slack_adapter(fake_slack)
        async with (
            running_brain(
                tmp_path, database_url, BRAINBOT_FETCH_ALLOW_PRIVATE=True, deliver=adapter.send
            ) as brain,
            serving(brain, fake_slack, adapter) as sb,
        ):
            await sb.post(dm_event(text, subtype="file_share", files=[minutes]))
            saved, added = await fake_slack.wait_for("chat.postMessage", 2, within=30)
            for word in ("bokashi", "orangery"):
                hits = (await brain.store.search(word)).hits
                assert len(hits) == 1, word
    vault = brain.settings.vault_dir
    (path,) = notes(vault)
    note = frontmatter.load(vault / path)
    assert note.content.startswith(f"for the garden club this compost guide ({site}/compost)")
    assert "## From the page: Composting in small gardens" in note.content
    assert "## Text of minutes.pdf" in note.content and "orangery roof" in note.content
    told = added.args["blocks"][0]["text"]["text"]
    assert "Composting in small gardens" in told and "minutes.pdf" in told
    assert path in saved.args["blocks"][0]["text"]["text"]
