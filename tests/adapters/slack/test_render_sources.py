"""An answer with its sources in Slack: the matched words in mrkdwn bold, and one
button per source that Slack accepts and that maps back to the `source` action."""

from __future__ import annotations

from adapters.slack.render import decode_action_id, render
from bot.events import Button, Reply
from tests.fakes.slack_api import block_errors

ANSWER = Reply(
    "You agreed to cut travel costs [[Budget Q3]].\n\nSources:\n"
    "- Budget Q3 (projects/budget-q3.md) · words\n"
    "    The **budget** call with Sarah: cut travel **costs** <by> a third.",
    buttons=(
        Button("Budget Q3", "source", "k3J9xQ2mPa"),
        Button("Lisbon trip", "source", "Zt8wq01LmN"),
    ),
)


def test_sources_show_marked_words_in_bold_and_a_button_each() -> None:
    (message,) = render(ANSWER)
    assert block_errors(list(message.blocks)) == []
    section, actions = message.blocks
    assert section["text"]["text"].endswith(
        "The *budget* call with Sarah: cut travel *costs* &lt;by&gt; a third."
    )
    assert [
        (e["text"]["text"], decode_action_id(e["action_id"]), e["value"])
        for e in actions["elements"]
    ] == [("Budget Q3", "source", "k3J9xQ2mPa"), ("Lisbon trip", "source", "Zt8wq01LmN")]
    # Two buttons of one action get action_ids Slack accepts as distinct.
    assert len({e["action_id"] for e in actions["elements"]}) == 2


def test_a_lone_mark_stays_as_typed() -> None:
    (message,) = render(Reply("2 ** 3 = 8; **a**b"))
    assert message.blocks[0]["text"]["text"] == "2 ** 3 = 8; *a*b"
