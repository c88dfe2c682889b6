"""The console: chat with brainbot in a terminal or through a pipe. The folder's one
export is its platform contract; the adapter (`terminal`) is built from it."""

from adapters.console.platform import CONSOLE

__all__ = ["CONSOLE"]
