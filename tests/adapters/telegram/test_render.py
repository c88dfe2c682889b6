"""Reply → HTML: escaping, layout, and splits that never break a tag or entity.

Each rendered message is checked with the fake Bot API's own HTML parser, the
same check a sendMessage would meet.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.telegram.render import (
    callback_data,
    keyboard,
    parse_callback_data,
    render_text,
    rendered,
)
from bot.events import Button, Reply
from tests.fakes.telegram_html import utf16_len, visible_text


def test_text_is_escaped_and_notice_and_preview_are_styled() -> None:
    reply = Reply("a < b & c > d", notice="LLM unavailable", preview="<tag> & x")
    assert render_text(reply) == [
        "<i>LLM unavailable</i>\n\na &lt; b &amp; c &gt; d\n\n<pre>&lt;tag&gt; &amp; x</pre>"
    ]


def test_an_empty_reply_renders_no_message() -> None:
    assert render_text(Reply("  ")) == []


def test_a_long_preview_is_split_into_closed_pre_blocks() -> None:
    diff = "\n".join(f"+ line {n} <&>" for n in range(1000))
    messages = render_text(Reply("Apply this change?", preview=diff))
    assert len(messages) > 1
    for message in messages:
        visible_text(message)  # raises on an unbalanced tag or broken entity
        assert utf16_len(message) <= 4096
    assert messages[0].startswith("Apply this change?\n\n<pre>") or messages[1].startswith("<pre>")
    rebuilt = "".join(visible_text(m).removeprefix("Apply this change?\n\n") for m in messages)
    assert rebuilt == diff


def test_a_word_longer_than_a_message_is_cut_hard() -> None:
    messages = render_text(Reply("&" * 5000))
    assert [visible_text(m) for m in messages] == ["&" * 819, "&" * 819] + ["&" * 819] * 4 + [
        "&" * (5000 - 6 * 819)
    ]


@settings(max_examples=150, deadline=None)
@given(
    text=st.text(alphabet=st.sampled_from("ab <>&\n🧠é"), max_size=12000),
    preview=st.one_of(st.none(), st.text(alphabet=st.sampled_from("x<&\n "), max_size=6000)),
    limit=st.sampled_from([64, 300, 4096]),
)
def test_every_split_is_valid_html_within_the_limit_and_loses_nothing(
    text: str, preview: str | None, limit: int
) -> None:
    messages = render_text(Reply(text, preview=preview), limit=limit)
    shown = []
    for message in messages:
        assert utf16_len(message) <= limit
        shown.append(visible_text(message))
    expected = "".join(part for part in (text, preview) if part and part.strip())
    assert "".join(shown).replace("\n", "").replace(" ", "") == expected.replace("\n", "").replace(
        " ", ""
    )


def test_buttons_become_rows_of_three_with_action_and_value() -> None:
    buttons = [Button(name.title(), "category", name) for name in ("people", "projects", "ideas")]
    markup = keyboard([*buttons, Button("Inbox", "category", "inbox")])
    assert markup is not None
    rows = [[(b.text, b.callback_data) for b in row] for row in markup.inline_keyboard]
    assert rows == [
        [
            ("People", "category:people"),
            ("Projects", "category:projects"),
            ("Ideas", "category:ideas"),
        ],
        [("Inbox", "category:inbox")],
    ]
    assert keyboard([]) is None


def test_callback_data_over_64_bytes_is_refused() -> None:
    assert callback_data(Button("ok", "approve", "x" * 56)) == "approve:" + "x" * 56
    with pytest.raises(ValueError, match="64 bytes"):
        callback_data(Button("ok", "approve", "x" * 57))
    with pytest.raises(ValueError, match="64 bytes"):
        callback_data(Button("ok", "category", "é" * 28))  # 2 bytes each in UTF-8


def test_callback_data_round_trips_and_foreign_data_is_rejected() -> None:
    assert parse_callback_data("approve:ab:cd") == ("approve", "ab:cd")
    assert parse_callback_data("nocolon") is None
    assert parse_callback_data(":x") is None
    assert parse_callback_data(None) is None


def test_a_reply_renders_as_its_messages_and_the_keyboard_for_the_last() -> None:
    reply = Reply("Filed <b>", buttons=[Button("Undo", "undo", "abc")])
    chunks, markup = rendered(reply)
    assert chunks == ["Filed &lt;b&gt;"]
    assert markup is not None and markup.inline_keyboard[0][0].callback_data == "undo:abc"
    assert rendered(Reply("")) == ([], None)
