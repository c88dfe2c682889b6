"""Sizes, limits and timeouts have one home, the settings (bot.config.Settings): the
parts that enforce them take them from there, handed in by the composition root."""

from __future__ import annotations

import dataclasses
import inspect

from adapters.imap.mailbox import Mailbox
from bot.enrich.fetch_policy import FetchPolicy
from bot.enrich.worker import Enricher
from bot.llm import LLM, LLMLimits
from storage.store import Store
from storage.vault.vault import Vault
from storage.vaults import VaultSettings


def test_sizes_and_limits_have_one_default_the_settings() -> None:
    """A note's and a file's size, a fetch's and the model's limits, the redirects
    followed: the settings hold their defaults, and the parts that enforce them take
    them from there (the composition root hands them in) with no default of their own,
    so a part built without its setting fails at once instead of quietly using another
    number."""

    def defaulted(target: object, names: tuple[str, ...]) -> list[str]:
        if dataclasses.is_dataclass(target):
            fields = {f.name: f for f in dataclasses.fields(target)}
            return [n for n in names if fields[n].default is not dataclasses.MISSING]
        parameters = inspect.signature(target).parameters  # type: ignore[arg-type]
        return [n for n in names if parameters[n].default is not inspect.Parameter.empty]

    assert defaulted(Vault, ("max_bytes", "max_attachment_bytes")) == []
    assert defaulted(Store.open, ("max_bytes", "max_attachment_bytes")) == []
    assert defaulted(VaultSettings, ("max_bytes", "max_attachment_bytes")) == []
    assert defaulted(Enricher, ("max_note_bytes", "max_file_bytes", "timeout")) == []
    assert defaulted(Mailbox, ("max_bytes", "poll_seconds")) == []
    assert defaulted(FetchPolicy, ("max_bytes", "timeout", "allow_private", "max_redirects")) == []
    assert defaulted(LLM, ("transcribe_model", "limits")) == []
    limits = ("first_token_timeout", "total_timeout", "retries", "max_tokens", "stream")
    assert defaulted(LLMLimits, limits) == []
