"""The image and the compose stack, checked without a Docker engine: the Dockerfile
lints clean, its entry command is a real `brainbot` sub-command, its health check
really asks /healthz on the configured port, and compose and .env.example agree
with the settings."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shlex
import subprocess
import sys
import tomllib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import yaml
from aiohttp import web

from app.cli import build_parser
from app.platforms import GRACE_SECONDS, settings_class
from bot.config import Settings

ROOT = Path(__file__).parents[2]
HADOLINT = Path(sys.executable).parent / "hadolint"


def instructions() -> list[tuple[str, str]]:
    """The Dockerfile's (INSTRUCTION, arguments), continuation lines joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    found = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            found.append((keyword.upper(), rest.strip()))
    return found


def final_stage() -> list[tuple[str, str]]:
    steps = instructions()
    last_from = max(i for i, (keyword, _) in enumerate(steps) if keyword == "FROM")
    return steps[last_from:]


def one(keyword: str) -> str:
    values = [rest for k, rest in final_stage() if k == keyword]
    assert len(values) == 1, f"{keyword}: {values}"
    return values[0]


def env() -> dict[str, str]:
    values: dict[str, str] = {}
    for keyword, rest in final_stage():
        if keyword == "ENV":
            for pair in shlex.split(rest):
                name, _, value = pair.partition("=")
                values[name] = value
    return values


def test_the_dockerfile_lints_clean() -> None:
    done = subprocess.run(
        [str(HADOLINT), "--no-color", str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_entry_command_is_brainbot_run() -> None:
    command = [*json.loads(one("ENTRYPOINT")), *json.loads(one("CMD"))]
    assert command[:2] == ["tini", "--"]  # reaps the embedded Postgres' children
    program, *arguments = command[2:]
    scripts = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]
    assert scripts[program] == "app.cli:main"
    parsed = build_parser().parse_args(arguments)
    assert (parsed.command, callable(parsed.func)) == ("run", True)


def test_the_image_keeps_its_data_in_a_volume_and_runs_as_a_user() -> None:
    variables = env()
    assert json.loads(one("VOLUME")) == [variables["BRAINBOT_DATA_DIR"]]
    assert variables["BRAINBOT_HTTP_HOST"] == "0.0.0.0"
    assert one("EXPOSE") == variables["BRAINBOT_HTTP_PORT"]
    user = one("USER").split(":")[0]
    assert user.isdigit() and int(user) != 0


class Probe:
    """An HTTP server standing in for brainbot: records paths, answers `status`."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.status = 200

    async def handle(self, request: web.Request) -> web.Response:
        self.paths.append(request.path)
        return web.json_response({}, status=self.status)


@pytest.fixture
async def probe() -> AsyncIterator[tuple[Probe, int]]:
    server = Probe()
    app = web.Application()
    app.router.add_get("/{tail:.*}", server.handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    yield server, port
    await runner.cleanup()


async def test_the_health_check_asks_healthz_on_the_configured_port(
    probe: tuple[Probe, int],
) -> None:
    server, port = probe
    options, _, command = one("HEALTHCHECK").partition("CMD ")
    program, *arguments = json.loads(command)
    assert program == "python"  # the image's venv python, first on PATH
    run_env = {**os.environ, **env(), "BRAINBOT_HTTP_PORT": str(port)}

    async def health_check() -> int:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *arguments, env=run_env, stderr=asyncio.subprocess.DEVNULL
        )
        return await asyncio.wait_for(process.wait(), 30)

    assert await health_check() == 0
    server.status = 503
    assert await health_check() != 0
    assert server.paths == ["/healthz", "/healthz"]
    assert "'8080'" in command and env()["BRAINBOT_HTTP_PORT"] == "8080"
    assert Settings.model_fields["http_port"].default == 8080
    assert "--start-period=" in options


def test_compose_runs_brainbot_beside_pgvector() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    bot, db = compose["services"]["brainbot"], compose["services"]["postgres"]
    assert db["image"].startswith("pgvector/pgvector:")
    assert bot["env_file"] == ".env"
    assert "@postgres:5432/" in bot["environment"]["DATABASE_URL"]
    assert bot["depends_on"]["postgres"]["condition"] == "service_healthy"
    named = set(compose["volumes"])
    assert {v.split(":")[0] for v in bot["volumes"] + db["volumes"]} == named
    assert [v.split(":")[1] for v in bot["volumes"]] == [env()["BRAINBOT_DATA_DIR"]]
    # Docker kills after stop_grace_period; brainbot needs its grace to drain.
    assert int(bot["stop_grace_period"].rstrip("s")) > GRACE_SECONDS
    # No terminal: `brainbot run` serves headless (the API, MCP, email) and stays up,
    # with or without Slack and Telegram; a terminal would make it a console chat.
    assert not bot.get("tty") and not bot.get("stdin_open")
    assert bot["restart"] == "unless-stopped"


def test_env_example_names_only_real_settings() -> None:
    # The platforms' settings live in their folders; the composed class has them all.
    aliases = {field.alias for field in settings_class().model_fields.values()}
    names = re.findall(r"^#? ?([A-Z][A-Z0-9_]+)=", (ROOT / ".env.example").read_text(), re.M)
    assert names and set(names) - aliases == {"POSTGRES_PASSWORD"}
