"""Slack: DMs, mentions, Block Kit buttons and "save this" (a message shortcut or a
reaction) through slack-bolt (Socket Mode or HTTP). The folder's one export is its
platform contract; the adapter (`app`) is built from it."""

from .platform import SLACK

__all__ = ["SLACK"]
