"""Slack: DMs, mentions, Block Kit buttons and "save this" (a message shortcut or a
reaction) through slack-bolt (Socket Mode or HTTP)."""

from .app import SlackAdapter

__all__ = ["SlackAdapter"]
