"""Several rounds of both sides editing at once: in each, the laptop and the bot append
lines, rename, delete, add notes and set frontmatter fields (the bot also captures,
and a note is edited by hand on the server), chosen at random from a fixed seed.
After each round: every line either side wrote is in the vault and on the laptop,
the two are the same commit, and the conflicts are exactly the notes both sides
appended to."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from storage.vault.remote_sync import RemoteSync
from storage.vault.vault import Vault
from tests.storage.vault.sync_support import Device, bare_remote, run_git
from tests.storage.vault.vault_support import ANN, make_vault

ROUNDS = 5


class Rounds:
    def __init__(self, vault: Vault, laptop: Device, seed: int) -> None:
        self.vault = vault
        self.laptop = laptop
        self.rng = random.Random(seed)
        self.written: set[str] = set()  # every line either side wrote and kept
        self.number = 0
        self.fields: dict[str, set[str]] = {}  # a note: the fields both sides set this round

    def token(self, side: str) -> str:
        self.number += 1
        word = f"{side}-line-{self.number:04d}"
        self.written.add(word)
        return word

    def notes(self) -> list[str]:
        return [p for p in self.vault.note_paths() if "(conflict " not in p]

    def round(self) -> set[str]:
        """One round of edits on both sides; the notes expected to conflict."""
        picked = self.rng.sample(self.notes(), 9)
        both, laptop_only, bot_only, fields = picked[0], picked[1], picked[2], picked[3]
        laptop_moves, laptop_drops, bot_moves, hand, kept = picked[4:9]
        self.laptop.pull()
        for path in (both, laptop_only):
            self.laptop.write(path, self.laptop.read(path) + self.token("laptop") + "\n")
        text = self.laptop.read(fields)
        if text.startswith("---\n"):
            text = text.replace("---\n", f"---\nlaptop_field: {self.token('laptop')}\n", 1)
            self.laptop.write(fields, text)
            self.fields = {fields: {"laptop_field", "bot_field"}}
        else:
            self.fields = {fields: {"bot_field"}}
        renamed = f"{Path(laptop_moves).parent}/Moved {self.number}.md"
        run_git(self.laptop.root, "mv", laptop_moves, renamed)
        # Lines in a note the laptop deletes (and the bot leaves alone) go with it.
        self.written -= set(self.laptop.read(laptop_drops).split())
        run_git(self.laptop.root, "rm", "--quiet", laptop_drops)
        self.laptop.write(f"inbox/Laptop {self.number}.md", f"# New\n\n{self.token('laptop')}\n")
        self.laptop.write(kept, self.laptop.read(kept) + self.token("laptop") + "\n")
        self.laptop.commit(f"round {self.number}")
        assert self.laptop.push().returncode == 0

        for path in (both, bot_only):
            body = self.vault.read(path).body
            self.vault.update(path, body=f"{body}\n{self.token('bot')}", author=ANN)
        self.vault.update(fields, fields={"bot_field": self.token("bot")}, author=ANN)
        self.vault.create("ideas", f"Capture {self.number}", self.token("bot"), author=ANN)
        self.vault.rename(bot_moves, f"Renamed {self.number}", author=ANN)
        full = self.vault.root / hand
        full.write_text(full.read_text() + self.token("hand") + "\n")
        self.vault.delete(kept, author=ANN)  # the laptop's edit of it wins
        return {both}

    def check(self, conflicts: set[str]) -> None:
        self.laptop.pull()
        assert run_git(self.laptop.root, "rev-parse", "HEAD").stdout.strip() == self.vault.head()
        assert run_git(self.vault.root, "status", "--porcelain").stdout == ""
        text = "\n".join(
            p.read_text() for p in self.vault.root.rglob("*.md") if ".git" not in p.parts
        )
        lost = sorted(word for word in self.written if word not in text)
        assert lost == []
        for path, names in self.fields.items():  # merged field by field
            assert names <= set(self.vault.read(path).fields)


@pytest.mark.parametrize("seed", [1, 2])
def test_rounds_of_edits_on_both_sides_lose_no_line(tmp_path: Path, seed: int) -> None:
    remote = bare_remote(tmp_path / "remote.git")
    vault = make_vault(tmp_path / "vault")
    for number in range(40):
        vault.create("ideas", f"Note {number}", f"first line {number}", author=ANN)
    RemoteSync(vault, str(remote)).run()
    rounds = Rounds(vault, Device(remote, tmp_path / "laptop"), seed)
    for _ in range(ROUNDS):
        expected = rounds.round()
        done = RemoteSync(vault, str(remote)).run()
        assert done.problem is None, done.problem
        assert {c.path for c in done.conflicts} == expected
        rounds.check(expected)
