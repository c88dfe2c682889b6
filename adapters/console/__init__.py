"""The console: chat with brainbot in a terminal or through a pipe."""

from adapters.console.terminal import ConsoleAdapter

__all__ = ["ConsoleAdapter"]
