""" "Save this" in Slack, end to end: a colleague's message in a channel, saved by the
"Save to brainbot" shortcut or the save emoji → real bolt app → real engine (no model:
a save is filed as said) → the note in the asker's vault and what the fake Slack got."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import frontmatter

from adapters.slack.app import SlackAdapter
from adapters.slack.save import ALREADY_SAVED
from bot.events import InboundMessage
from tests.adapters.slack.conftest import Recorder
from tests.adapters.slack.test_slack_engine import SlackBrain, serving
from tests.bot.helpers import notes, notes_by_vault, vault_of
from tests.fakes.brain import running_brain
from tests.fakes.slack_api import FakeSlack
from tests.fakes.slack_payloads import (
    CHANNEL,
    block_actions,
    dm_event,
    interactive_body,
    message_shortcut,
    post_signed,
    reaction_event,
)

ONLY_ALICE = {"BRAINBOT_ALLOWED_USERS": "slack:U0ALICE", "BRAINBOT_FETCH": False}


async def shortcut(sb: SlackBrain, message: dict[str, Any], user: str = "U0ALICE") -> None:
    payload = message_shortcut(message, user=user, response_url=sb.fake.response_url())
    status, _ = await post_signed(sb.session, sb.url, interactive_body(payload))
    assert status == 200


async def test_the_shortcut_saves_a_colleague_s_message_with_its_link_file_and_author_once(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    chart = fake_slack.add_file("chart.png", b"\x89PNG pricing chart", "image/png")
    text = "pricing study for the launch: <https://x.org/a|the pricing page>"
    message = fake_slack.add_message(CHANNEL, "U0BOB", text, files=[chart])
    async with (
        running_brain(tmp_path, database_url, **ONLY_ALICE) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await shortcut(sb, message)
        await fake_slack.wait_for("chat.postEphemeral", within=15)
        await shortcut(sb, message)
        await fake_slack.wait_for("chat.postEphemeral", 2, within=15)
        vault = await vault_of(brain, "slack", "U0ALICE")

    (path,) = notes(vault)
    note = frontmatter.load(vault / path)
    assert "pricing study for the launch: the pricing page (https://x.org/a)" in note.content
    assert "![[attachments/chart.png]]" in note.content
    assert (vault / "attachments/chart.png").read_bytes() == b"\x89PNG pricing chart"
    assert note["source_saved_author"] == "Bob"
    assert note["source_saved_from"] == "#general"
    ts = message["ts"].replace(".", "")
    assert note["source_permalink"] == f"https://acme.slack.com/archives/{CHANNEL}/p{ts}"
    first, second = fake_slack.ephemerals
    assert (first.channel, first.user) == (CHANNEL, "U0ALICE")
    assert path in first.text
    assert second.text == ALREADY_SAVED
    assert fake_slack.calls_of("chat.postMessage") == []  # nothing said in the channel


async def test_the_brain_emoji_on_a_thread_root_saves_the_root_and_its_replies(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    fake_slack.add_user("U0CAROL", "carol", display_name="Carol")
    root = fake_slack.add_message(CHANNEL, "U0BOB", "Offsite idea: what if we rent the lake cabin")
    fake_slack.add_message(CHANNEL, "U0CAROL", "it sleeps twelve", thread_ts=root["ts"])
    fake_slack.add_message(CHANNEL, "U0BOB", "book before March", thread_ts=root["ts"])
    async with (
        running_brain(tmp_path, database_url, **ONLY_ALICE) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await sb.post(reaction_event(root["ts"], reaction="thumbsup"))
        await sb.post(reaction_event(root["ts"], reaction="brain::skin-tone-3"))
        [told] = await fake_slack.wait_for("chat.postEphemeral", within=15)
        vault = await vault_of(brain, "slack", "U0ALICE")

    (path,) = notes(vault)
    note = frontmatter.load(vault / path)
    assert note.content.startswith("Offsite idea: what if we rent the lake cabin")
    assert "- Carol: it sleeps twelve\n- Bob: book before March" in note.content
    assert note["source_saved_author"] == "Bob"
    assert path.startswith("ideas/")  # "what if": the keywords chose, not a model
    assert path in told.args["text"]
    [read] = fake_slack.ok_calls("conversations.replies")
    assert read.args["ts"] == root["ts"]


async def test_a_reaction_by_someone_not_allowed_stores_and_downloads_nothing(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    secret = fake_slack.add_file("plan.pdf", b"%PDF the plan", "application/pdf")
    message = fake_slack.add_message(CHANNEL, "U0ALICE", "the plan", files=[secret])
    async with (
        running_brain(tmp_path, database_url, **ONLY_ALICE) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await sb.post(reaction_event(message["ts"], user="U0BOB"))
        [refusal] = await fake_slack.wait_for("chat.postEphemeral", within=15)
        data_dir = brain.settings.data_dir

    assert refusal.args["user"] == "U0BOB" and refusal.args["text"].startswith("Sorry")
    assert fake_slack.calls_of("conversations.replies") == []
    assert fake_slack.calls_of("file") == []
    assert all(found == [] for found in notes_by_vault(data_dir).values())


async def test_a_save_in_a_team_channel_goes_to_the_team_vault(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    fake_slack.set_members(CHANNEL, "U0ALICE", "U0BOB")
    message = fake_slack.add_message(CHANNEL, "U0BOB", "roadmap: ship the beta in May")
    overrides = {**ONLY_ALICE, "BRAINBOT_TEAM_VAULTS": f"slack:{CHANNEL}=team-ops"}
    async with (
        running_brain(tmp_path, database_url, **overrides) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await shortcut(sb, message)
        await fake_slack.wait_for("chat.postEphemeral", within=15)
        data_dir = brain.settings.data_dir

    found = {name: paths for name, paths in notes_by_vault(data_dir).items() if paths}
    assert list(found) == ["team-ops"]


async def test_without_a_seat_in_the_channel_the_confirmation_comes_as_a_dm(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    message = fake_slack.add_message(CHANNEL, "U0BOB", "launch checklist: the project review")
    fake_slack.fail("chat.postEphemeral", "channel_not_found")
    async with (
        running_brain(tmp_path, database_url, **ONLY_ALICE) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await shortcut(sb, message)
        [dm] = await fake_slack.wait_for("chat.postMessage", within=15)
        vault = await vault_of(brain, "slack", "U0ALICE")

    (path,) = notes(vault)
    assert dm.args["channel"] == "U0ALICE" and path in dm.args["text"]


async def test_socket_mode_saves_by_shortcut_and_reaction_under_one_event_id(
    socket_bot: tuple[SlackAdapter, Recorder], fake_slack: FakeSlack
) -> None:
    _, recorder = socket_bot
    message = fake_slack.add_message(CHANNEL, "U0BOB", "the <https://x.org/q3|Q3 numbers>")
    acks = [
        await fake_slack.push("interactive", message_shortcut(message)),
        await fake_slack.push("events_api", reaction_event(message["ts"])),
        await fake_slack.push("events_api", reaction_event(message["ts"], reaction="eyes")),
    ]
    for envelope_id in acks:
        await fake_slack.wait_for_ack(envelope_id)
    await fake_slack.push("events_api", dm_event("sentinel"))
    await fake_slack.wait_for("chat.postMessage")
    await fake_slack.wait_for("chat.postEphemeral", 2)
    await asyncio.sleep(0)
    saves = [e for e in recorder.events if isinstance(e, InboundMessage) and e.text != "sentinel"]
    assert [e.text for e in saves] == ["/capture the Q3 numbers (https://x.org/q3)"] * 2
    assert {e.event_id for e in saves} == {f"save:{CHANNEL}:{message['ts']}:U0ALICE"}
    assert {e.conversation.chat_id for e in saves} == {CHANNEL}


async def test_the_confirmation_keeps_the_category_buttons_and_they_work_where_it_is_shown(
    tmp_path: Path, database_url: str, fake_slack: FakeSlack
) -> None:
    message = fake_slack.add_message(CHANNEL, "U0BOB", "the blue door by the old mill")
    async with (
        running_brain(tmp_path, database_url, **ONLY_ALICE) as brain,
        serving(brain, fake_slack) as sb,
    ):
        await shortcut(sb, message)
        await fake_slack.wait_for("chat.postEphemeral", within=15)
        [told] = fake_slack.ephemerals
        [actions] = [b for b in told.blocks if b["type"] == "actions"]
        ideas = next(b for b in actions["elements"] if b["text"]["text"] == "ideas")
        press = block_actions(
            action_id=ideas["action_id"],
            value=ideas["value"],
            channel=CHANNEL,
            message_ts="1763683300.000001",
            response_url=fake_slack.response_url("pressed"),
            ephemeral=True,
        )
        status, _ = await post_signed(sb.session, sb.url, interactive_body(press))
        assert status == 200
        [answer] = await fake_slack.wait_for("response_url", within=15)
        vault = await vault_of(brain, "slack", "U0ALICE")

    assert notes(vault) == ["ideas/the-blue-door-by-the-old-mill.md"]
    assert answer.args["replace_original"] is True
    assert "ideas" in answer.args["text"]
