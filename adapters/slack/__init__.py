"""Slack: DMs, mentions and Block Kit buttons through slack-bolt (Socket Mode or HTTP)."""

from .app import SlackAdapter

__all__ = ["SlackAdapter"]
