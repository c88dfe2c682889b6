"""The command line answers at once: `--help` and `--version` import none of brainbot's
packages (the database, the model, the platforms), and every command's help says what
it does in a user's words. How fast it starts is measured by bench/cli.py."""

from __future__ import annotations

import argparse
import importlib
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from app.cli import Handler, build_parser

ROOT = Path(__file__).resolve().parents[2]
HEAVY = ("adapters", "bot", "storage", "scheduler", "sqlalchemy", "openai", "mcp")


def _brainbot(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def _imported_after(*args: str) -> set[str]:
    """The top-level packages `brainbot ARGS` has imported when it exits."""
    probe = (
        "import sys, app.cli\n"
        "try:\n"
        f"    app.cli.main({list(args)!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join({m.partition('.')[0] for m in sys.modules}), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return set(done.stderr.split())


@pytest.mark.parametrize("args", [("--help",), ("--version",), ("search", "--help")])
def test_help_and_version_import_nothing_heavy(args: tuple[str, ...]) -> None:
    # Before: the parser imported every command's module, and with them the database,
    # the platforms' SDKs and the model's client (3 s on a quiet 2-core machine).
    assert not _imported_after(*args) & set(HEAVY)


def test_version_is_the_installed_package_s() -> None:
    done = _brainbot("--version")
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert (done.returncode, done.stdout) == (0, f"brainbot {version}\n")


def test_help_speaks_to_a_user() -> None:
    done = _brainbot("--help")
    assert done.returncode == 0
    assert done.stdout.startswith("usage: brainbot")
    assert "second brain" in done.stdout and "BRAINBOT_DATA_DIR" in done.stdout
    assert "module" not in done.stdout  # before: "one sub-command module per concern"


def _commands(parser: object) -> dict[str, object]:
    """Every command, sub-commands as `mcp token` and `db upgrade`, by what a user types."""
    found: dict[str, object] = {}
    for action in getattr(parser, "_actions", ()):
        for name, sub in (getattr(action, "choices", None) or {}).items():
            if hasattr(sub, "_actions"):
                found[name] = sub
                found.update({f"{name} {k}": v for k, v in _commands(sub).items()})
    return found


def test_every_command_s_help_says_what_it_does() -> None:
    commands = _commands(build_parser())
    assert {"run", "chat", "search", "token", "mcp token", "db upgrade", "digest"} <= set(commands)
    for name, command in commands.items():
        description = getattr(command, "description", None) or ""
        # Before: `run --help` and `chat --help` printed the usage line and nothing else.
        assert len(description) > 20, name
        assert "module" not in description, name


def _handlers(parser: argparse.ArgumentParser) -> list[Handler]:
    """Every handler the command line can run, sub-commands of sub-commands included."""
    found = []
    for action in parser._actions:  # argparse keeps its sub-parsers nowhere public
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                handler = sub.get_default("func")
                if handler is not None:
                    found.append(handler)
                found.extend(_handlers(sub))
    return found


def test_every_command_names_a_handler_that_exists() -> None:
    """Handlers are named by module and function, so no import checks them: a module
    renamed under one would break only that command, when someone runs it."""
    handlers = _handlers(build_parser())
    assert len(handlers) >= 10
    for handler in handlers:
        module = importlib.import_module(handler.module)
        assert callable(getattr(module, handler.function, None)), handler


def test_run_and_chat_load_the_model_s_client_only_with_a_model() -> None:
    # Before: every `brainbot run` and `chat` imported the OpenAI SDK (half a second of
    # CPU), a model configured or not; now an LLM made from the settings brings it.
    probe = (
        "import sys\n"
        "import app.commands.run, app.runtime\n"
        "print('openai' in sys.modules, file=sys.stderr)\n"
        "from bot.config import Settings\n"
        "app.runtime.llm_from_settings(Settings(openai_api_key='sk-test'))\n"
        "print('openai' in sys.modules, file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stderr.split() == ["False", "True"]


def test_chat_imports_none_of_the_server_it_does_not_start() -> None:
    # Before: `brainbot chat` shared `run`'s module, and with it the HTTP server, MCP
    # over HTTP, email in and the watcher (a third of a second of CPU per chat).
    server = ["app.serve", "app.mcp_http", "app.mail", "app.watch"]
    assert _loaded_by("app.commands.chat", server) == []


def test_run_loads_the_mcp_sdk_and_jsonschema_only_when_they_are_used() -> None:
    # Before: `brainbot run` imported the MCP SDK and built its server at every start
    # (0.7 s of CPU), though most starts never see an MCP client; now the first request
    # with a live token loads it (tests/bot/mcp/test_mcp_http.py serves through it).
    # jsonschema (50 ms) checks the tools a vault declares (tests/bot/custom_tools).
    assert _loaded_by("app.commands.run", ["mcp", "starlette", "jsonschema"]) == []


def _loaded_by(module: str, names: list[str]) -> list[str]:
    """Which of `names` (modules or packages) a fresh Python has loaded after importing
    `module`."""
    probe = (
        f"import sys, {module}\n"
        "loaded = set(sys.modules) | {m.split('.')[0] for m in sys.modules}\n"
        f"print(*[n for n in {names!r} if n in loaded], file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    return done.stderr.split()


def _in_a_brain(
    tmp_path: Path, database_url: str, probe: str, stdin: str = ""
) -> subprocess.CompletedProcess[str]:
    """`probe` run by a fresh Python in a brain of its own: the owner's notes, no model."""
    (tmp_path / "data" / "vault").mkdir(parents=True)  # the owner's notes: a brain is here
    env = {
        **os.environ,
        "BRAINBOT_DATA_DIR": str(tmp_path / "data"),
        "BRAINBOT_EMBEDDINGS": "none",
        "DATABASE_URL": database_url,
    }
    return subprocess.run(
        [sys.executable, "-c", probe],
        cwd=ROOT,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
    )


def test_a_token_command_imports_no_http_client(tmp_path: Path, database_url: str) -> None:
    # Before: the platforms' contracts imported aiohttp for doctor's probes, and every
    # command reading the settings with them paid it (~0.15 CPU-s a `brainbot mcp token`).
    probe = (
        "import sys, app.cli\n"
        "code = app.cli.main(['mcp', 'token', '--list'])\n"
        "print(code, 'aiohttp' in sys.modules, file=sys.stderr)\n"
    )
    done = _in_a_brain(tmp_path, database_url, probe)
    assert done.stdout == "No MCP tokens.\n" and done.stderr.split()[-2:] == ["0", "False"], done


def test_approvals_import_neither_the_mcp_sdk_nor_the_date_parser(
    tmp_path: Path, database_url: str
) -> None:
    # Before: `brainbot approvals`, `approve` and `reject` decide through the MCP calls,
    # whose modules imported the MCP SDK for the results they build (~0.4 CPU-s); and
    # they loaded dateparser ahead of a first dated message they never read (~0.2 CPU-s).
    probe = (
        "import sys, app.cli\n"
        "codes = [app.cli.main(['approvals']), app.cli.main(['approve', 'no-such-id'])]\n"
        "print(*codes, 'mcp' in sys.modules, 'dateparser' in sys.modules, file=sys.stderr)\n"
    )
    done = _in_a_brain(tmp_path, database_url, probe)
    assert done.stdout == "Nothing waits for approval.\n", done
    assert "No approval 'no-such-id'" in done.stderr, done
    assert done.stderr.split()[-4:] == ["0", "2", "False", "False"], done


def test_a_chat_imports_the_http_client_only_to_fetch_a_link(
    tmp_path: Path, database_url: str
) -> None:
    # Before: the fetcher of shared links and the vaults' HTTP tools were imported with
    # the engine, and with them aiohttp (~0.1 CPU-s a chat, a `brainbot mcp`).
    probe = (
        "import sys, app.cli\n"
        "code = app.cli.main(['chat'])\n"
        "print(code, 'aiohttp' in sys.modules, file=sys.stderr)\n"
    )
    done = _in_a_brain(tmp_path, database_url, probe, stdin="/help\n")
    assert "your second brain" in done.stdout, done  # /help answered
    assert done.stderr.split()[-2:] == ["0", "False"], done
