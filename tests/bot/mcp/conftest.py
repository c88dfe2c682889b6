"""The fake Slack, Telegram and OpenAI servers of the production tests, for a real
`brainbot run` (HTTP) or `brainbot mcp` (stdio) process."""

from tests.production.conftest import fakes

__all__ = ["fakes"]
