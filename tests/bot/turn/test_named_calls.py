"""A model's answer mended once (bot.turn.mending.calls_in_text): its calls named, a
repeat left out, and each call's arguments read once for the mending that follows."""

from __future__ import annotations

from bot.llm import Completion, ModelToolCall
from bot.turn.mending import calls_in_text


def test_calls_are_named_once_repeats_dropped_and_arguments_read() -> None:
    answer = Completion(
        None,
        (
            ModelToolCall("a", "save_note", '{"text": "buy oat milk"}'),
            ModelToolCall("b", "save_note", '{"text":  "buy oat milk"}'),  # the same call
            ModelToolCall("c", "search_entries", '{"query": "oat'),  # cut off: out of tokens
            ModelToolCall("d", "frobnicate", "not json"),
        ),
        0,
    )

    repaired = calls_in_text(answer)

    assert [(n.call.id, n.name, n.fix) for n in repaired.calls] == [
        ("a", "capture", "tool_name"),
        ("c", "search_entries", None),
        ("d", None, None),
    ]
    assert [n.arguments for n in repaired.calls] == [
        {"text": "buy oat milk"},
        {"query": "oat"},
        None,
    ]


def test_calls_written_into_the_text_are_named_too() -> None:
    answer = Completion(
        '<tool_call>{"name": "remember", "arguments": {"text": "tea"}}</tool_call>', (), 0
    )

    repaired = calls_in_text(answer)

    assert repaired.fixes == ["call_in_text"] and repaired.text is None
    ((named,),) = [repaired.calls]
    assert (named.name, named.fix, named.arguments) == ("capture", "tool_name", {"text": "tea"})
