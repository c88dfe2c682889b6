"""brainbot as users install it, without extras: a wheel built from only what the
Dockerfile's COPY lines let into the build, installed by pip into a fresh virtual
environment beside the distributions its declared dependencies name (and theirs), then
`brainbot run` from there, with the embedded Postgres, the console and the HTTP server.

A module the shipped packages import but pyproject.toml does not declare is missing in
that environment, so the start fails here rather than in the image. The dependencies
are this environment's own copies, which pip resolved for the same pyproject.toml when
it was made (each checked against what the wheel asks for): asking an index again cost
the suite most of a minute and changed nothing the test shows."""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import subprocess
import sys
import time
import zipfile
from email.parser import Parser
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.bot.helpers import git_log, notes
from tests.production.process import ROOT, Brainbot, clean_env, terminal

pytestmark = pytest.mark.slow  # starts brainbot processes

INSTALL_WITHIN = 600  # seconds for one step; the whole install takes a few


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
    path."""
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


def run_step(*command: str | Path) -> None:
    done = subprocess.run(
        [str(word) for word in command], capture_output=True, text=True, timeout=INSTALL_WITHIN
    )
    assert done.returncode == 0, f"{shlex.join(map(str, command))} failed:\n{done.stderr[-3000:]}"


def requirements_of(wheel: Path) -> list[Requirement]:
    """What the wheel's metadata declares it needs (every extra's too; markers say which)."""
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        fields = Parser().parsestr(archive.read(name).decode())
    return [Requirement(line) for line in fields.get_all("Requires-Dist") or []]


def dependencies(requirements: list[Requirement]) -> list[metadata.Distribution]:
    """The installed distributions that `requirements` (no extras of their own) name,
    with the extras asked of them, and theirs, recursively: what `pip install` of the
    wheel would add. Each must satisfy the version asked of it."""
    found: dict[str, metadata.Distribution] = {}
    done: set[tuple[str, str]] = set()  # (distribution, extra) whose requirements were read
    todo = [(requirement, "") for requirement in requirements]
    while todo:
        requirement, extra = todo.pop()
        if requirement.marker is not None and not requirement.marker.evaluate({"extra": extra}):
            continue
        name = canonicalize_name(requirement.name)
        dist = found.get(name) or metadata.distribution(requirement.name)
        assert requirement.specifier.contains(dist.version, prereleases=True), (
            f"this environment's {name} {dist.version} is not the {requirement} asked for:"
            " reinstall it (make install)"
        )
        found[name] = dist
        for wanted in ("", *requirement.extras):
            if (name, wanted) not in done:
                done.add((name, wanted))
                todo.extend((Requirement(line), wanted) for line in dist.requires or [])
    return list(found.values())


def copy_distribution(dist: metadata.Distribution, site: Path) -> None:
    """The distribution's files as pip installed them into its site-packages (its
    RECORD), into `site`; scripts outside site-packages are left behind."""
    assert dist.files is not None, f"{dist.metadata['Name']} has no RECORD"
    for file in dist.files:
        if file.parts[0] == ".." or "__pycache__" in file.parts:
            continue
        destination = site / file
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(Path(str(file.locate())), destination)


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv with brainbot installed as the image has it, no extras; its bin folder."""
    root = tmp_path_factory.mktemp("image")
    source, wheels, venv = root / "src", root / "wheels", root / "venv"
    copy_sources(source)
    started = time.monotonic()
    pip = (sys.executable, "-m", "pip", "--disable-pip-version-check")
    run_step(*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, source)
    [wheel] = wheels.glob("brainbot-*.whl")
    run_step(sys.executable, "-m", "venv", "--without-pip", venv)
    python = venv / "bin" / "python"
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    for dist in dependencies(requirements_of(wheel)):
        copy_distribution(dist, Path(site))
    run_step(*pip, "--python", python, "install", "--no-deps", "--no-index", "--no-compile", wheel)
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
