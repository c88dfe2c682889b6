"""An answer with its sources on Telegram: the matched words in bold, one button per
source whose callback data fits, and marks that never break the HTML or the limit."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from adapters.telegram.render import keyboard, parse_callback_data, render_text
from bot.events import Button, Reply
from tests.fakes.telegram_html import utf16_len, visible_text

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
    (message,) = render_text(ANSWER)
    assert "The <b>budget</b> call with Sarah: cut travel <b>costs</b> &lt;by&gt; a third." in (
        message
    )
    assert "**" not in visible_text(message)
    markup = keyboard(ANSWER.buttons)
    assert markup is not None
    cells = [(b.text, b.callback_data) for row in markup.inline_keyboard for b in row]
    assert cells == [("Budget Q3", "source:k3J9xQ2mPa"), ("Lisbon trip", "source:Zt8wq01LmN")]
    assert parse_callback_data(cells[0][1]) == ("source", "k3J9xQ2mPa")


def test_a_lone_or_empty_mark_stays_as_typed() -> None:
    (message,) = render_text(Reply("2 ** 3 = 8, and **** is no word; **a**b"))
    assert message == "2 ** 3 = 8, and **** is no word; <b>a</b>b"


@given(
    text=st.text(alphabet=st.sampled_from("ab *<&\n"), max_size=3000),
    limit=st.sampled_from([64, 300, 4096]),
)
def test_marks_never_break_the_html_or_the_limit(text: str, limit: int) -> None:
    for message in render_text(Reply(text), limit=limit):
        assert utf16_len(message) <= limit
        visible_text(message)  # raises on HTML Telegram would refuse
