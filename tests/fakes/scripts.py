"""Scripted model steps that several test suites and benchmarks share."""

from __future__ import annotations

from typing import Any

from tests.fakes.openai_server import Step, call

# Files projects/launch-the-website.md with confidence: no approval, one model call.
CAPTURE = call(
    "capture",
    category="projects",
    title="Launch the website",
    body="Launch the new website before the conference",
    confidence=0.9,
    tags=["web"],
    fields=[{"name": "next_action", "value": "write the copy"}],
)

# Changes ideas/tea.md: waits for Approve.
UPDATE = call(
    "update_entry",
    path="ideas/tea.md",
    set_fields=[{"name": "status", "value": "tried"}],
    remove_fields=None,
    body=None,
    append="Tried oolong: great.",
)


def user_words(message: dict[str, Any]) -> str:
    """What the person said in the request's last message, without the context line
    the engine adds after it (the time, the newest notes)."""
    text = str(message.get("content") or "")
    return text.split("\n\n(Context, not from the user", 1)[0]


def capture_everything(body: dict[str, Any]) -> Step:
    """A responder that files whatever the user said as an idea, at once (benchmarks)."""
    said = user_words(body["messages"][-1]) or "thought"
    return call(
        "capture", category="ideas", title=said[:60], body=said, confidence=0.9, tags=[], fields=[]
    )
