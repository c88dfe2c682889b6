"""brainbot: a second brain you talk to. Capture thoughts, links, photos and files from
Slack, Telegram, this terminal, an AI assistant (MCP), the HTTP API or email; ask and
search them; get digests and reminders. Your notes are Markdown files in a git folder
you can open in Obsidian."""

from __future__ import annotations

import argparse
import gc
import importlib
import sys
import textwrap
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

# The parser is built from this module alone (the standard library): `--help` and
# `--version` answer at once, and a command imports what it needs when it runs.

WHERE = """\
Your notes and the database live in the data folder, BRAINBOT_DATA_DIR (./data by
default; set it in the environment or in a .env file here). `brainbot COMMAND --help`
says more about a command."""
WIDTH = 88  # a sub-command's description, wrapped as the main help's text is
VAULT_HELP = "the vault to use, by name (see `brainbot vaults`); default: your own"
PERSON_HELP = "a user id, or platform:id such as slack:U123 or telegram:42"


@dataclass(frozen=True)
class Handler:
    """A sub-command's handler, named by module and function and imported only when
    the command runs; it takes the parsed arguments and returns the exit code."""

    module: str
    function: str
    # The settings are read and checked before the command's own modules are imported
    # (a start that a bad setting stops ends in a second, not after importing the whole
    # house), and handed to the command as `args.settings`.
    settings_first: bool = False

    def __call__(self, args: argparse.Namespace) -> int:
        with collecting_later():
            if self.settings_first:
                from app.settings_check import load_settings

                args.settings = load_settings()
            run = getattr(importlib.import_module(self.module), self.function)
        return int(run(args))


@contextmanager
def collecting_later() -> Iterator[None]:
    """Python's cyclic garbage collector paused inside: a command's imports (a thousand
    modules, `run`'s) make objects that all live as long as the process, and the
    collections they set off found nothing to free while costing a start about a
    tenth of its CPU (0.2 s of 1.4 s here)."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


class _Version(argparse.Action):
    """`--version`: the installed package's version, looked up only when asked."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, help="print brainbot's version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        from importlib.metadata import PackageNotFoundError, version

        try:
            number = version("brainbot")
        except PackageNotFoundError:  # run from a source folder that was never installed
            number = "unknown (not installed)"
        print(f"brainbot {number}")
        parser.exit()


def _command(
    subparsers: Any, name: str, handler: Handler | None, summary: str, more: str = ""
) -> argparse.ArgumentParser:
    """A sub-command: `summary` for the list, `summary` and `more` for its own --help."""
    paragraphs = [f"{summary[0].upper()}{summary[1:]}.", *([more] if more else [])]
    description = "\n\n".join(textwrap.fill(paragraph, WIDTH) for paragraph in paragraphs)
    command: argparse.ArgumentParser = subparsers.add_parser(
        name,
        help=summary,
        description=description,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    if handler is not None:  # None: a group, whose commands have their own
        command.set_defaults(func=handler)
    return command


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, with every command's options and help."""
    parser = argparse.ArgumentParser(
        prog="brainbot",
        description=__doc__,
        epilog=WHERE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_Version)
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _serving(commands)
    _notes(commands)
    _tokens(commands)
    _checks(commands)
    return parser


def _serving(commands: Any) -> None:
    _command(
        commands,
        "run",
        Handler("app.commands.run", "main_run", settings_first=True),
        "start brainbot and keep it running",
        "Serves every door that is set up: Slack and Telegram (when their tokens are set), "
        "the HTTP API and MCP at /api/v1 and /mcp, email in (BRAINBOT_IMAP_URL), digests "
        "and reminders. With neither Slack nor Telegram set up, you chat with it here when "
        "this is a terminal; otherwise (a service, `nohup`, Docker) it runs without one "
        "until it is stopped (SIGTERM or Ctrl-C). The first start makes a new brain in the "
        "data folder and says where.",
    )
    _command(
        commands,
        "chat",
        Handler("app.commands.chat", "main_chat", settings_first=True),
        "chat with brainbot in this terminal",
        "Type a thought to save it, a question to ask your notes, /help for the commands. "
        "Lines can be piped in too (`echo 'idea: paint the fence' | brainbot chat`). "
        "/quit, Ctrl-D or Ctrl-C ends the chat.",
    )
    mcp = _command(
        commands,
        "mcp",
        Handler("app.commands.mcp", "main_stdio"),
        "let an AI assistant (an MCP client) use your notes",
        "An assistant such as Claude Desktop starts `brainbot mcp` itself and talks to it "
        "over standard input and output; give it a token from `brainbot token me` in "
        "BRAINBOT_MCP_TOKEN. `brainbot mcp token` is the same as `brainbot token`.",
    )
    mcp.add_argument("--token", help="the token (default: $BRAINBOT_MCP_TOKEN)")
    actions = mcp.add_subparsers(dest="mcp_command", metavar="token")
    _token_arguments(
        _command(
            actions,
            "token",
            Handler("app.commands.token", "main_token"),
            "make, list (--list) or revoke (--revoke) tokens for MCP and the API",
        )
    ).set_defaults(token_last=False)


def _notes(commands: Any) -> None:
    imp = _command(
        commands,
        "import",
        Handler("app.commands.storage", "import_command"),
        "copy a folder of Markdown notes (e.g. an Obsidian vault) into your notes",
        "Each note is copied as it is and becomes searchable; files that are not notes are "
        "copied alongside. What cannot be imported is listed with why. The first import "
        "makes a new brain in the data folder and says where.",
    )
    imp.add_argument("path", type=Path, help="the folder to import")
    imp.add_argument("--vault", help=VAULT_HELP)

    search = _command(
        commands,
        "search",
        Handler("app.commands.storage", "search_command"),
        "search your notes",
        'Words find notes that hold them; "a phrase", OR, -word, tag:x, category:x, '
        "after:YYYY-MM-DD and before:YYYY-MM-DD narrow it down, as /search does in a chat.",
    )
    search.add_argument(
        "query",
        help="what to look for (a query starting with '-': `brainbot search -- -draft`); "
        "'-' reads one query per line from standard input and prints JSON lines",
    )
    search.add_argument("--category", help="only notes of this category (e.g. projects)")
    search.add_argument("--limit", type=int, default=10, help="at most this many notes (10)")
    search.add_argument("--json", action="store_true", help="print JSON instead of text")
    search.add_argument("--vault", help=VAULT_HELP)

    digest = _command(
        commands,
        "digest",
        Handler("app.commands.digest", "main"),
        "print a digest of what is due and new, or send it (--send)",
    )
    digest.add_argument("--user", help=f"whose digest: {PERSON_HELP} (default: the only person)")
    digest.add_argument(
        "--date",
        metavar="DAY",
        help="the day: YYYY-MM-DD, or words such as tomorrow, friday, next monday "
        "(default: today in the person's time zone)",
    )
    digest.add_argument("--weekly", action="store_true", help="the weekly review instead")
    digest.add_argument(
        "--send",
        action="store_true",
        help="send it to the person's chat and keep it as digests/YYYY-MM-DD.md",
    )

    reindex = _command(
        commands,
        "reindex",
        Handler("app.commands.storage", "reindex_command"),
        "rebuild the search index from the notes",
        "Needed only after restoring the notes by hand, or with --embed after changing "
        "BRAINBOT_EMBEDDINGS or its model.",
    )
    reindex.add_argument(
        "--embed",
        action="store_true",
        help="embed every note again with the embedder the settings name (after changing it)",
    )
    reindex.add_argument("--vault", help="only this vault (default: every vault)")
    _command(
        commands,
        "vaults",
        Handler("app.commands.storage", "vaults_command"),
        "list the vaults: whose, how many notes, which folder",
    )


def _tokens(commands: Any) -> None:
    _token_arguments(
        _command(
            commands,
            "token",
            Handler("app.commands.token", "main_token"),
            "make a token for the HTTP API and MCP, list (--list) or revoke (--revoke) them",
            "A phone shortcut, a bookmarklet or an AI assistant sends it as "
            "`Authorization: Bearer TOKEN`. The new token is the last line printed "
            "(`brainbot token me | tail -1`); it is shown only once.",
        )
    ).set_defaults(token_last=True)
    listing = _command(
        commands,
        "approvals",
        Handler("app.commands.approvals", "main"),
        "list the changes waiting for your approval",
        "Changes an assistant asked for over MCP wait here when no chat shows their "
        "Approve button; `brainbot approve ID` or `brainbot reject ID` decides one.",
    )
    listing.add_argument("person", nargs="?", help=f"only this person's: {PERSON_HELP}")
    for name, verb in (("approve", "make"), ("reject", "drop")):
        decide = _command(
            commands,
            name,
            Handler("app.commands.approvals", "main"),
            f"{verb} a change that waits for approval",
        )
        decide.add_argument("approval_id", metavar="ID", help="its id (`brainbot approvals`)")


def _checks(commands: Any) -> None:
    _command(
        commands,
        "doctor",
        Handler("app.commands.doctor", "main"),
        "check the settings and everything they point at, and say what to fix",
        "Checks the settings, the database, the notes' folder and its backup, reading of "
        "photos and documents, Slack, Telegram, email, the model and the tools you added. "
        "Exits 1 when something is wrong.",
    )
    db = _command(
        commands,
        "db",
        None,
        "upgrade the built-in database by hand (`brainbot db upgrade`)",
    )
    actions = db.add_subparsers(dest="db_command", required=True, metavar="upgrade")
    up = _command(
        actions,
        "upgrade",
        Handler("app.commands.db", "main_upgrade"),
        "carry the built-in database over to the installed PostgreSQL's version",
        "`brainbot run` does it by itself for PostgreSQL 16's folders; this runs it by "
        "hand, or for another version whose programs are in --old-postgres.",
    )
    up.add_argument(
        "--old-postgres",
        type=Path,
        metavar="DIR",
        help="the programs of the PostgreSQL that wrote the folder, when not shipped "
        "(PostgreSQL 16's are): its bin folder",
    )


def _token_arguments(token: argparse.ArgumentParser) -> argparse.ArgumentParser:
    token.add_argument(
        "person", nargs="?", help=f"whom the token acts as: `me` for you (the owner), {PERSON_HELP}"
    )
    token.add_argument("--owner", action="store_true", help="for the owner, as `me`")
    token.add_argument("--label", default="", help="what the token is for, e.g. 'iphone'")
    token.add_argument("--list", action="store_true", help="list tokens (of PERSON, or all)")
    token.add_argument("--revoke", metavar="ID", help="revoke the token with this id")
    return token


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    with collecting_later():  # imported once a command runs: what every command may stop on
        from app.brain_data import NoBrainData
        from app.settings_check import EXIT_CONFIG, SettingsInvalid
        from storage import StorageError

    try:
        code: int = args.func(args)
    except SettingsInvalid as exc:
        # Every command reads the settings first: a bad one stops it with one line
        # per variable (doctor reports them as problems itself).
        for line in exc.lines:
            print(f"brainbot: {line}", file=sys.stderr)
        return EXIT_CONFIG
    except NoBrainData as exc:
        print(f"brainbot {args.command}: {exc}", file=sys.stderr)
        return 1
    except StorageError as exc:
        # A database or vault a command cannot open (or use): its reason, in one line.
        print(f"brainbot: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    sys.exit(main())
