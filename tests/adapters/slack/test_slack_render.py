"""Reply → Block Kit and Slack text → plain text, without a server."""

from __future__ import annotations

from pathlib import Path

import yaml

import adapters.slack
from adapters.slack.app import COMMAND
from adapters.slack.render import decode_action_id, escape, render, split_text
from adapters.slack.save import SHORTCUT
from adapters.slack.translate import parse_command, permalink, slack_to_plain
from bot.events import Button, Reply
from tests.fakes.slack_api import block_errors


def test_text_is_escaped_for_mrkdwn() -> None:
    [message] = render(Reply(text="a < b && c > d"))
    assert message.blocks[0]["text"]["text"] == "a &lt; b &amp;&amp; c &gt; d"
    assert message.text == "a &lt; b &amp;&amp; c &gt; d"


def test_hard_split_never_cuts_an_entity() -> None:
    text = escape("&" * 5000)
    pieces = split_text(text, 3000)
    assert all(len(p) <= 3000 and p.count("&") == p.count(";") for p in pieces)
    assert "".join(pieces) == text


def test_preview_is_a_code_block_and_keeps_indentation() -> None:
    preview = "\n".join(f"  line {n} <tag>" for n in range(400))
    messages = render(Reply(text="Apply?", preview=preview))
    code = [b["text"]["text"] for m in messages for b in m.blocks][1:]
    assert all(c.startswith("```\n") and c.endswith("\n```") and len(c) <= 3000 for c in code)
    assert "\n".join(c[4:-4] for c in code) == escape(preview)


def test_many_blocks_are_split_into_messages_with_buttons_last() -> None:
    text = "\n\n".join("x" * 2900 for _ in range(120))
    buttons = tuple(Button(f"Cat {n}", "category", f"c{n}") for n in range(30))
    messages = render(Reply(text=text, buttons=buttons, notice="LLM offline"))
    assert [len(m.blocks) for m in messages] == [50, 50, 23]
    assert all(block_errors(list(m.blocks)) == [] for m in messages)
    actions = [b for b in messages[-1].blocks if b["type"] == "actions"]
    ids = [e["action_id"] for block in actions for e in block["elements"]]
    assert ids[:3] == ["bb:category", "bb:category:1", "bb:category:2"]
    assert {decode_action_id(i) for i in ids} == {"category"}
    assert messages[-1].blocks[-1] == {
        "type": "context",
        "elements": [{"type": "mrkdwn", "text": "LLM offline"}],
    }


def test_long_button_labels_are_shortened() -> None:
    [message] = render(Reply(text="?", buttons=(Button("L" * 100, "open", "e1"),)))
    assert block_errors(list(message.blocks)) == []


def test_empty_reply_renders_nothing() -> None:
    assert render(Reply(text="")) == []


def test_foreign_action_ids_are_not_ours() -> None:
    assert decode_action_id("approve") is None
    assert decode_action_id("bb:reject:3") == "reject"


def test_slack_text_becomes_what_was_typed() -> None:
    text = "<@UBOT> ping <@U1|ann> in <#C1|general> <!here> <mailto:a@b.c|a@b.c> x &lt;3 &amp; y"
    assert slack_to_plain(text, bot_user_id="UBOT") == "ping @ann in #general @here a@b.c x <3 & y"


def test_permalink_is_built_locally() -> None:
    base = "https://acme.slack.com/"
    assert permalink(base, "C1", "1700000000.000100") == (
        "https://acme.slack.com/archives/C1/p1700000000000100"
    )
    assert permalink(base, "C1", "2.5", "1.5") == (
        "https://acme.slack.com/archives/C1/p25?thread_ts=1.5&cid=C1"
    )


def test_manifest_subscribes_to_what_the_adapter_handles() -> None:
    manifest = yaml.safe_load(
        (Path(adapters.slack.__file__).parent / "manifest.yaml").read_text(encoding="utf-8")
    )
    assert set(manifest["settings"]["event_subscriptions"]["bot_events"]) == {
        "app_mention",
        "message.im",
        "reaction_added",  # the save emoji
    }
    assert set(manifest["oauth_config"]["scopes"]["bot"]) >= {
        "app_mentions:read",
        "channels:read",  # team membership: conversations.members
        "groups:read",
        "chat:write",
        "im:history",
        "users:read",
        "commands",
        "reactions:read",  # saving: reaction_added
        "channels:history",  # saving: conversations.replies
        "groups:history",
        "mpim:history",
    }
    assert manifest["settings"]["interactivity"]["is_enabled"] is True
    assert [c["command"] for c in manifest["features"]["slash_commands"]] == [COMMAND]
    [shortcut] = manifest["features"]["shortcuts"]
    assert (shortcut["type"], shortcut["callback_id"]) == ("message", SHORTCUT)


def test_brain_rename_is_the_rename_command_and_other_words_stay_a_note() -> None:
    def text_of(words: str) -> str:
        parsed = parse_command({"channel_id": "C1", "user_id": "U1", "text": words})
        assert parsed is not None
        return parsed.text

    assert text_of('rename "Green tea" Matcha') == '/rename "Green tea" Matcha'
    assert text_of("renaming the garden shed") == "renaming the garden shed"


def test_brain_knows_every_command_brainbot_has() -> None:
    """`/brain WORD …` is a command for every command brainbot answers to (their records
    in bot.commands), not a list kept apart: `log …` and `tick …` were notes."""

    def text_of(words: str) -> str:
        parsed = parse_command({"channel_id": "C1", "user_id": "U1", "text": words})
        assert parsed is not None
        return parsed.text

    assert text_of("log bought milk") == "/log bought milk"
    assert text_of("tick Groceries milk") == "/tick Groceries milk"
    assert text_of("logbook of the boat") == "logbook of the boat"
