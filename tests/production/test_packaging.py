"""brainbot as users install it: the Dockerfile's own build steps (its COPY lines and its
`python -m venv` + `pip install`, no extras) into a fresh virtual environment, then
`brainbot run` from there, with the embedded Postgres, the console and the HTTP server.

A module the shipped packages import but pyproject.toml does not declare is missing in
that environment, so the start fails here rather than in the image."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.bot.helpers import git_log, notes
from tests.production.process import ROOT, Brainbot, clean_env, terminal

pytestmark = pytest.mark.slow  # starts brainbot processes

INSTALL_WITHIN = 600  # seconds; ~30-60 s with pip's cache warm on 2 cores


def build_stage() -> list[tuple[str, str]]:
    """The Dockerfile's first stage as (INSTRUCTION, arguments), continuations joined."""
    text = re.sub(r"\\\n", " ", (ROOT / "Dockerfile").read_text())
    steps: list[tuple[str, str]] = []
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        keyword, _, rest = line.partition(" ")
        if keyword.upper() == "FROM" and steps:
            break
        steps.append((keyword.upper(), rest.strip()))
    return steps


def copy_sources(into: Path) -> None:
    """Do what the build stage's COPY lines do: only those files reach the build."""
    for keyword, rest in build_stage():
        if keyword != "COPY":
            continue
        *sources, target = shlex.split(rest)
        for source in sources:
            origin = ROOT / source
            destination = into / target / origin.name if target.endswith("/") else into / target
            if origin.is_dir():
                shutil.copytree(origin, destination, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                destination.parent.mkdir(parents=True, exist_ok=True)
                shutil.copy2(origin, destination)


def install_commands(venv: Path) -> list[list[str]]:
    """The build stage's venv and pip commands, aimed at `venv` instead of the image's
    path; pip may use its cache here (the image turns it off only to stay small)."""
    runs = [rest for keyword, rest in build_stage() if keyword == "RUN"]
    parts = [shlex.split(part) for part in " && ".join(runs).split("&&")]
    commands = [words for words in parts if "venv" in words or "install" in words]
    assert [w[0] for w in commands][:1] == ["python"], f"unexpected build steps: {runs}"
    image_venv = commands[0][commands[0].index("venv") + 1]
    fixed = []
    for words in commands:
        words = [w.replace(image_venv, str(venv)) for w in words if w != "--no-cache-dir"]
        if words[0] == "python":
            words[0] = sys.executable
        fixed.append(words)
    return fixed


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with brainbot installed the Dockerfile's way; its bin folder."""
    root = tmp_path_factory.mktemp("image")
    source, venv = root / "src", root / "venv"
    copy_sources(source)
    started = time.monotonic()
    for command in install_commands(venv):
        done = subprocess.run(
            command, cwd=source, capture_output=True, text=True, timeout=INSTALL_WITHIN
        )
        assert done.returncode == 0, f"{shlex.join(command)} failed:\n{done.stderr[-3000:]}"
    print(f"installed in {time.monotonic() - started:.1f} s")
    return venv / "bin"


def test_the_dockerfile_installs_without_extras() -> None:
    pip = [words for words in install_commands(Path("/venv")) if "install" in words]
    assert pip and pip[0][-1] == ".", "the image installs the project itself, no extras"


@pytest.mark.slow(seconds=35)
async def test_the_installed_brainbot_runs_and_files_a_note(
    installed: Path, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    bot = Brainbot(tmp_path, clean_env(BRAINBOT_DATA_DIR=str(data), BRAINBOT_EMBEDDINGS="none"))
    with terminal() as (typed, read):  # `brainbot run` chats only at a terminal
        bot.process = await asyncio.create_subprocess_exec(
            installed / "brainbot",
            "run",
            env={k: v for k, v in bot.env.items() if k != "PYTHONPATH"},
            cwd=tmp_path,
            stdin=read,
            stdout=asyncio.subprocess.PIPE,
            stderr=bot.log_path.open("wb"),
        )
        assert bot.process.stdout is not None
        try:
            await bot.wait_ready()
            os.write(typed, b"project: paint the fence\n")
            said = b""
            while b"Saved to" not in said:
                said += await asyncio.wait_for(bot.process.stdout.readline(), 30)
            assert b"Saved to projects/paint-the-fence.md" in said, bot.log()
        finally:
            code = await bot.stop()
    assert code == 0, bot.log()
    vault = data / "vault"
    assert "projects/paint-the-fence.md" in notes(vault)
    assert any("projects/paint-the-fence.md" in subject for subject in git_log(vault))
