"""A command typed where there is no brain says so, names the data folder and
BRAINBOT_DATA_DIR, and makes nothing: only `run`, `chat` and `import` make a brain."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.cli import main


@pytest.fixture
def elsewhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Some folder with no brain in it, and no BRAINBOT_DATA_DIR set (so ./data)."""
    for name in ("BRAINBOT_DATA_DIR", "BRAINBOT_VAULT_DIR", "DATABASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("BRAINBOT_EMBEDDINGS", "none")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "heat"],
        ["token", "me"],
        ["mcp", "token", "--list"],
        ["vaults"],
        ["reindex"],
        ["digest"],
        ["approvals"],
    ],
)
def test_a_command_where_there_is_no_brain_says_so_and_makes_none(
    elsewhere: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    # Before: `brainbot search heat` made ./data/pg and ./data/vault, a new empty
    # brain, and answered "No matching notes." after 17 s.
    assert main(argv) == 1
    said = capsys.readouterr().err
    assert said.startswith(f"brainbot {argv[0]}: there is no brainbot data in {elsewhere / 'data'}")
    assert "BRAINBOT_DATA_DIR" in said and "`brainbot run`" in said
    assert list(elsewhere.iterdir()) == []


def test_doctor_checks_the_rest_and_makes_no_database(
    elsewhere: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    main(["doctor"])
    out = capsys.readouterr().out
    assert f"database: no brainbot data in {elsewhere / 'data'}" in out
    assert "configuration" in out
    assert not (elsewhere / "data").exists()
