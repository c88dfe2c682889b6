"""A fetch policy as brainbot starts with one (the settings' defaults, built by the
composition root), with what a test changes."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from app.engine_parts import fetch_policy
from bot.config import Settings
from bot.enrich.fetch_policy import FetchPolicy

DEFAULT = fetch_policy(Settings(_env_file=None))


def policy(**changes: Any) -> FetchPolicy:
    """The default policy with `changes` (`allow_private=True`, `timeout=2.0` …)."""
    return replace(DEFAULT, **changes)
