"""Small builders for engine tests: events from a test platform, git log reading."""

from __future__ import annotations

import itertools
import subprocess
from datetime import UTC, datetime
from pathlib import Path

from bot.events import ButtonPress, Conversation, InboundMessage, Reply, Sender

_ids = itertools.count(1)
CHAT = Conversation("test", "chat-1")


def sender(user: str = "U1", name: str = "Ada") -> Sender:
    return Sender("test", user, name)


def message(
    text: str, *, user: str = "U1", event_id: str | None = None, chat: Conversation = CHAT
) -> InboundMessage:
    return InboundMessage(
        event_id or f"m{next(_ids)}",
        chat,
        sender(user),
        text,
        datetime.now(UTC),
        source={"message_id": "42"},
    )


def press(
    reply: Reply, label: str, *, user: str = "U1", event_id: str | None = None
) -> ButtonPress:
    button = next(b for b in reply.buttons if b.label == label)
    return ButtonPress(
        event_id or f"b{next(_ids)}",
        CHAT,
        sender(user),
        button.action,
        button.value,
        datetime.now(UTC),
    )


def git_log(vault: Path) -> list[str]:
    out = subprocess.run(
        ["git", "-C", str(vault), "log", "--format=%s"], capture_output=True, text=True, check=True
    )
    return out.stdout.splitlines()


def git_status(vault: Path) -> str:
    return subprocess.run(
        ["git", "-C", str(vault), "status", "--porcelain"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def notes(vault: Path) -> list[str]:
    """Every note in the vault, as sorted vault-relative paths."""
    return sorted(
        p.relative_to(vault).as_posix() for p in vault.rglob("*.md") if ".git" not in p.parts
    )
