"""The `brainbot` command: one sub-command module per concern under `app.commands`."""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from app.settings_check import EXIT_CONFIG, SettingsInvalid
from storage import StorageError

# Each module defines `register(subparsers)`, adding its sub-commands; a sub-command
# stores its handler as `func(args) -> int` (the exit code).
COMMAND_MODULES: tuple[str, ...] = (
    "app.commands.run",
    "app.commands.storage",
    "app.commands.digest",
    "app.commands.doctor",
    "app.commands.mcp",
    "app.commands.approvals",
    "app.commands.db",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="brainbot", description=__doc__)
    subparsers = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
    except SettingsInvalid as exc:
        # Every command reads the settings first: a bad one stops it with one line
        # per variable (doctor reports them as problems itself).
        for line in exc.lines:
            print(f"brainbot: {line}", file=sys.stderr)
        return EXIT_CONFIG
    except StorageError as exc:
        # A database or vault a command cannot open (or use): its reason, in one line.
        print(f"brainbot: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
