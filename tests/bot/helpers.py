"""Small builders for engine tests: events from a test platform, git log reading."""

from __future__ import annotations

import itertools
import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

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
    reply: Reply,
    label: str,
    *,
    user: str = "U1",
    event_id: str | None = None,
    chat: Conversation = CHAT,
) -> ButtonPress:
    button = next(b for b in reply.buttons if b.label == label)
    return ButtonPress(
        event_id or f"b{next(_ids)}",
        chat,
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


def notes_by_vault(data_dir: Path) -> dict[str, list[str]]:
    """The notes of every vault under a data folder: the owner's (`vault`) and each
    other person's or team's (`vaults/<name>`), by the vault's folder name."""
    roots = [data_dir / "vault", *sorted((data_dir / "vaults").glob("*"))]
    return {root.name: notes(root) for root in roots if root.is_dir()}


async def vault_of(runtime: Any, platform: str, user_id: str) -> Path:
    """The folder of the own vault of the person behind a platform identity."""
    person = await runtime.records.people.person_for(platform, user_id)
    assert person is not None, f"{platform}:{user_id} never wrote"
    vault = await runtime.vaults.of_person(person.id, person.name)
    return Path(runtime.vaults.root(vault))
