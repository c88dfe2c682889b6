"""The vault's everyday operations, checked on disk and with the git CLI."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml

from storage.entry import BOT_AUTHOR, Author
from storage.errors import (
    EntryNotFound,
    EntryTooLarge,
    NothingToChange,
    StaleEdit,
    StorageError,
    UnknownCategory,
)
from storage.vault.schema import SLUG_MAX_CHARS, slugify
from storage.vault.vault import Vault
from tests.storage.vault.vault_support import ANN, LIMITS, commit_count, git, make_vault, status

SLACK = {"platform": "slack", "chat_id": "C123", "message_id": "1700000000.1234"}


@pytest.fixture
def vault(tmp_path: Path) -> Vault:
    return make_vault(tmp_path / "vault")


def frontmatter(path: Path) -> dict[str, object]:
    text = path.read_text(encoding="utf-8")
    block = text.split("---\n")[1]
    loaded = yaml.safe_load(block)
    assert isinstance(loaded, dict)
    return loaded


def test_first_use_makes_a_git_repo_with_a_folder_per_category(vault: Vault) -> None:
    for category in ("people", "projects", "ideas", "admin", "inbox"):
        assert (vault.root / category / ".gitkeep").is_file()
    assert git(vault.root, "log", "--format=%s|%an|%cn").strip().startswith("init vault")
    assert commit_count(vault.root) == 1
    assert status(vault.root) == ""
    # Opening it again changes nothing.
    make_vault(vault.root)
    assert commit_count(vault.root) == 1


def test_create_files_a_note_with_frontmatter_as_one_commit(vault: Vault) -> None:
    written = vault.create(
        "projects",
        "Tea ceremony",
        "Learn the steps.\n\nSee [[Kyoto trip]].",
        {"status": "active", "tags": ["tea", "japan"], "mood": "calm"},
        author=ANN,
        source=SLACK,
    )
    assert written.entry is not None
    assert written.entry.path == "projects/tea-ceremony.md"
    fields = frontmatter(vault.root / "projects/tea-ceremony.md")
    assert re.fullmatch(r"[0-9a-f]{12}", str(fields["id"]))
    assert fields["title"] == "Tea ceremony"
    assert fields["created"] == fields["updated"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d", str(fields["created"]).replace(" ", "T"))
    assert fields["tags"] == ["tea", "japan"]
    assert {k: v for k, v in fields.items() if k.startswith("source")} == {
        f"source_{k}": v for k, v in SLACK.items()
    }
    assert fields["status"] == "active"
    assert "next_action" not in fields and "due" not in fields
    assert fields["mood"] == "calm"
    text = (vault.root / "projects/tea-ceremony.md").read_text()
    assert text.endswith("\n\nLearn the steps.\n\nSee [[Kyoto trip]].\n")

    log = git(vault.root, "log", "-1", "--format=%an <%ae>|%cn|%B")
    author, committer, message = log.split("|", 2)
    assert author == "Ann Example <ann@example.org>"
    assert committer == "brainbot"
    assert message.startswith("create projects/tea-ceremony.md\n\n")
    assert "source: slack chat_id=C123 message_id=1700000000.1234" in message
    changed = git(vault.root, "show", "--name-only", "--format=", "HEAD").split()
    assert changed == ["projects/tea-ceremony.md"]
    assert written.change.paths == ("projects/tea-ceremony.md",)
    assert written.change.operation == "create"
    assert written.change.commit == git(vault.root, "rev-parse", "HEAD").strip()
    assert status(vault.root) == ""


def test_read_returns_what_create_wrote(vault: Vault) -> None:
    written = vault.create("people", "Sarah Lee", "Met at the *budget* call.", author=ANN)
    assert written.entry is not None
    entry = vault.read("people/Sarah Lee.md")
    assert entry == written.entry
    assert entry.category == "people"
    assert entry.title == "Sarah Lee"
    assert entry.body == "Met at the *budget* call."
    assert "follow_ups" not in entry.fields  # nothing to follow up: no empty property
    assert entry.frontmatter_error is None


def test_a_taken_slug_gets_a_number_and_nothing_is_overwritten(vault: Vault) -> None:
    paths = [vault.create("ideas", "Tea", f"version {n}").change.paths[0] for n in range(3)]
    assert paths == ["ideas/tea.md", "ideas/tea-2.md", "ideas/tea-3.md"]
    assert [vault.read(p).body for p in paths] == ["version 0", "version 1", "version 2"]


def test_slugs_keep_any_script_and_stay_short() -> None:
    assert slugify("Café Crème: über Straße!") == "café-crème-über-straße"
    assert slugify("日本語のメモ") == "日本語のメモ"
    assert slugify("  --__ ") == ""
    long = slugify("word " * 100)
    assert 0 < len(long) <= SLUG_MAX_CHARS and not long.endswith("-")


def test_a_note_without_title_is_named_after_its_first_words(vault: Vault) -> None:
    written = vault.create("inbox", "", "\n\nbuy oat milk and bread\nsecond line")
    assert written.change.paths == ("inbox/buy-oat-milk-and-bread.md",)
    assert vault.read("inbox/buy-oat-milk-and-bread.md").title == "buy oat milk and bread"
    assert vault.create("inbox", "", "").change.paths == ("inbox/untitled.md",)
    assert vault.create("inbox", "🎉🎉", "").change.paths == ("inbox/untitled-2.md",)


def test_title_falls_back_to_the_first_heading_then_the_file_name(vault: Vault) -> None:
    (vault.root / "ideas/heading.md").write_text("---\ntags: []\n---\n\n# The Heading\n\ntext\n")
    (vault.root / "ideas/plain-name.md").write_text("just text\n")
    assert vault.read("ideas/heading.md").title == "The Heading"
    assert vault.read("ideas/plain-name.md").title == "plain-name"
    assert vault.read("ideas/plain-name.md").body == "just text"


def test_unknown_category_is_refused(vault: Vault) -> None:
    with pytest.raises(UnknownCategory):
        vault.create("recipes", "Soup")
    with pytest.raises(UnknownCategory):
        vault.list("recipes")
    assert commit_count(vault.root) == 1


def test_update_merges_fields_and_keeps_the_rest(vault: Vault) -> None:
    created = vault.create(
        "projects", "Garden", "Plant tulips.", {"status": "active", "x": 1, "tags": ["garden"]}
    )
    assert created.entry is not None
    before = created.entry.fields
    written = vault.update(
        created.entry.path,
        fields={"status": "done", "next_action": "water", "id": "hacked", "created": "never"},
        remove_fields=("x",),
        author=ANN,
        source=SLACK,
    )
    assert written.entry is not None
    after = written.entry.fields
    assert after["status"] == "done" and after["next_action"] == "water"
    assert "x" not in after
    assert after["id"] == before["id"] and after["created"] == before["created"]
    assert after["tags"] == before["tags"] == ["garden"] and after["title"] == "Garden"
    assert after["updated"] >= before["updated"]
    assert written.entry.body == "Plant tulips."
    assert git(vault.root, "log", "-1", "--format=%s|%an").strip() == (
        "update projects/garden.md|Ann Example"
    )
    body_only = vault.update(created.entry.path, body="Plant roses.", author=ANN)
    assert body_only.entry is not None
    assert body_only.entry.body == "Plant roses."
    assert body_only.entry.fields["status"] == "done"
    assert commit_count(vault.root) == 4
    assert status(vault.root) == ""


def test_update_with_a_stale_hash_writes_nothing(vault: Vault) -> None:
    created = vault.create("ideas", "Stale", "one")
    assert created.entry is not None
    vault.update("ideas/stale.md", body="two", author=ANN)
    on_disk = (vault.root / "ideas/stale.md").read_bytes()
    commits = commit_count(vault.root)
    with pytest.raises(StaleEdit) as caught:
        vault.update(
            "ideas/stale.md", body="three", expected_hash=created.entry.content_hash, author=ANN
        )
    assert caught.value.expected_hash == created.entry.content_hash
    stale = created.entry.content_hash
    with pytest.raises(StaleEdit):
        vault.move("ideas/stale.md", "projects", expected_hash=stale, author=ANN)
    with pytest.raises(StaleEdit):
        vault.delete("ideas/stale.md", expected_hash=stale, author=ANN)
    assert (vault.root / "ideas/stale.md").read_bytes() == on_disk
    assert commit_count(vault.root) == commits
    current = vault.read("ideas/stale.md").content_hash
    vault.update("ideas/stale.md", body="three", expected_hash=current, author=ANN)


def test_an_update_that_changes_nothing_makes_no_commit(vault: Vault) -> None:
    vault.create("projects", "Same", "body", {"status": "active"})
    commits = commit_count(vault.root)
    with pytest.raises(NothingToChange):
        vault.update("projects/same.md", fields={"status": "active"}, body="body", author=ANN)
    with pytest.raises(NothingToChange):
        vault.update("projects/same.md", remove_fields=("absent",), author=ANN)
    assert commit_count(vault.root) == commits
    assert vault.preview_update("projects/same.md", fields={"status": "active"}).diff == ""


def test_move_follows_the_new_category_and_keeps_user_data(vault: Vault) -> None:
    created = vault.create(
        "people", "Bob", "Knows about bees.", {"follow_ups": ["call him"], "context": None}
    )
    assert created.entry is not None
    moved = vault.move("people/Bob.md", "projects", author=ANN, source=SLACK)
    assert moved.entry is not None
    assert moved.entry.path == "projects/Bob.md"
    assert not (vault.root / "people/Bob.md").exists()
    fields = moved.entry.fields
    assert fields["follow_ups"] == ["call him"]  # had a value: kept
    assert "context" not in fields and "last_touched" not in fields  # empty: dropped
    assert not {"status", "next_action", "due"} & set(fields)  # no empty properties
    assert fields["id"] == created.entry.fields["id"]
    assert moved.entry.body == "Knows about bees."
    assert moved.change.paths == ("people/Bob.md", "projects/Bob.md")
    names = git(vault.root, "show", "--name-status", "--format=", "HEAD").split()
    assert set(names) >= {"people/Bob.md", "projects/Bob.md"}
    assert git(vault.root, "log", "-1", "--format=%s").strip() == (
        "move people/Bob.md -> projects/Bob.md"
    )
    # History of the new path goes back through the move to the creation.
    assert [c.operation for c in vault.history("projects/Bob.md")] == ["move", "create"]
    assert status(vault.root) == ""


def test_move_onto_a_taken_name_gets_a_number(vault: Vault) -> None:
    vault.create("ideas", "Bees")
    vault.create("projects", "Bees")
    moved = vault.move("ideas/bees.md", "projects", author=ANN)
    assert moved.change.paths == ("ideas/bees.md", "projects/bees-2.md")
    with pytest.raises(NothingToChange):
        vault.move("projects/bees.md", "projects", author=ANN)
    with pytest.raises(UnknownCategory):
        vault.move("projects/bees.md", "recipes", author=ANN)


def test_delete_removes_the_file_and_git_keeps_it(vault: Vault) -> None:
    vault.create("admin", "Taxes", "file them")
    written = vault.delete("admin/taxes.md", author=ANN)
    assert written.entry is None
    assert written.change.operation == "delete"
    assert not (vault.root / "admin/taxes.md").exists()
    assert "file them" in git(vault.root, "show", "HEAD~1:admin/taxes.md")
    assert (vault.root / "admin").is_dir()  # the category folder stays
    with pytest.raises(EntryNotFound):
        vault.read("admin/taxes.md")
    with pytest.raises(EntryNotFound):
        vault.delete("admin/taxes.md", author=ANN)
    assert status(vault.root) == ""


def test_list_and_note_paths_read_every_note(vault: Vault) -> None:
    vault.create("ideas", "One")
    vault.create("projects", "Two")
    (vault.root / "loose.md").write_text("a note at the root\n")
    assert vault.note_paths("ideas") == ["ideas/one.md"]
    assert vault.note_paths() == ["ideas/one.md", "loose.md", "projects/two.md"]
    entries = {e.path: e for e in vault.list()}
    assert entries["loose.md"].category == ""
    assert [e.title for e in vault.list("projects")] == ["Two"]
    assert vault.exists("ideas/one.md") and not vault.exists("ideas/none.md")


def test_too_large_a_note_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    small = make_vault(tmp_path / "vault", max_bytes=500)
    with pytest.raises(EntryTooLarge):
        small.create("ideas", "Big", "x" * 1000)
    assert small.note_paths() == []
    assert commit_count(small.root) == 1


def test_write_note_writes_a_whole_file_at_a_given_path(vault: Vault) -> None:
    text = "# Digest for 2026-11-20\n\n- [[tea-ceremony]]\n"
    written = vault.write_note(
        "digests/2026-11-20.md", text, operation="digest", author=BOT_AUTHOR, message="daily"
    )
    assert (vault.root / "digests/2026-11-20.md").read_text() == text
    assert written.entry is not None and written.entry.title == "Digest for 2026-11-20"
    assert git(vault.root, "log", "-1", "--format=%B").startswith(
        "digest digests/2026-11-20.md\n\ndaily"
    )
    assert written.change.operation == "digest"
    with pytest.raises(NothingToChange):
        vault.write_note("digests/2026-11-20.md", text, operation="digest", author=BOT_AUTHOR)
    vault.write_note("digests/2026-11-20.md", text + "more\n", operation="digest", author=ANN)
    with pytest.raises(StorageError):
        vault.write_note("digests/x.md", text, operation="two words", author=ANN)
    assert status(vault.root) == ""


def test_write_attachments_keeps_any_extension_under_a_safe_name(vault: Vault) -> None:
    first = vault.write_attachments([("../../Holiday photo.JPG", b"\xff\xd8jpeg")], author=ANN)
    assert first.entry is None
    assert first.change.paths == ("attachments/Holiday photo.JPG",)
    assert (vault.root / "attachments/Holiday photo.JPG").read_bytes() == b"\xff\xd8jpeg"
    second = vault.write_attachments([("Holiday photo.JPG", b"other")], author=ANN)
    assert second.change.paths == ("attachments/Holiday photo-2.JPG",)
    assert vault.write_attachments([(".bashrc", b"x")], author=ANN).change.paths == (
        "attachments/bashrc",
    )
    capped = make_vault(vault.root, max_attachment_bytes=10)
    commits = commit_count(vault.root)
    with pytest.raises(EntryTooLarge):
        capped.write_attachments([("small.txt", b"x"), ("big.bin", b"x" * 11)], author=ANN)
    assert commit_count(vault.root) == commits
    assert not (vault.root / "attachments/big.bin").exists()
    assert not (vault.root / "attachments/small.txt").exists()  # all or nothing
    assert status(vault.root) == ""


def test_files_of_the_same_name_are_one_commit_each_with_its_own_path(vault: Vault) -> None:
    commits = commit_count(vault.root)
    written = vault.write_attachments(
        [("scan.pdf", b"1"), ("scan.pdf", b"2"), ("scan.pdf", b"3")], author=ANN
    )
    assert written.attachments == (
        "attachments/scan.pdf",
        "attachments/scan-2.pdf",
        "attachments/scan-3.pdf",
    )
    assert [(vault.root / p).read_bytes() for p in written.attachments] == [b"1", b"2", b"3"]
    assert commit_count(vault.root) == commits + 1
    assert written.change.message.startswith("attach 3 files")


def test_a_note_and_its_files_are_one_commit(vault: Vault) -> None:
    commits = commit_count(vault.root)
    written = vault.create(
        "ideas", "Receipts", "from the trip", author=ANN, attachments=[("r.jpg", b"j")] * 2
    )
    assert written.entry is not None
    assert written.attachments == ("attachments/r.jpg", "attachments/r-2.jpg")
    assert set(written.change.paths) == {written.entry.path, *written.attachments}
    assert commit_count(vault.root) == commits + 1
    assert written.entry.body == (
        "from the trip\n\n![[attachments/r.jpg]]\n\n![[attachments/r-2.jpg]]"
    )


def test_a_hand_edit_is_committed_on_its_own_before_a_change(vault: Vault) -> None:
    vault.create("ideas", "Hand", "original")
    path = vault.root / "ideas/hand.md"
    path.write_text(path.read_text().replace("original", "edited by hand"))
    written = vault.update("ideas/hand.md", fields={"tags": ["x"]}, author=ANN)
    subjects = git(vault.root, "log", "-2", "--format=%s").split("\n")[:2]
    assert subjects == ["update ideas/hand.md", "edit ideas/hand.md"]
    # Undoing the bot's update keeps what the person wrote.
    vault.undo(written.change.commit, author=ANN)
    entry = vault.read("ideas/hand.md")
    assert entry.body == "edited by hand" and entry.tags == ()
    assert status(vault.root) == ""


def test_a_new_category_gets_its_folder_when_the_vault_opens(vault: Vault) -> None:
    bigger = Vault(vault.root, (*vault.categories, "recipes"), **LIMITS)
    assert (bigger.root / "recipes/.gitkeep").is_file()
    assert git(vault.root, "log", "-1", "--format=%s").strip() == "add categories recipes"
    assert bigger.create("recipes", "Soup").change.paths == ("recipes/soup.md",)
    assert status(vault.root) == ""


def test_any_chat_user_name_makes_a_valid_commit_author(vault: Vault) -> None:
    odd = Author("<Zoë 🐙\nO'Brien>", "")
    vault.create("ideas", "Odd author", author=odd)
    assert git(vault.root, "log", "-1", "--format=%an|%ae").strip() == (
        "Zoë 🐙 O'Brien|unknown@localhost"
    )


def test_a_failed_commit_leaves_the_files_as_they_were(vault: Vault) -> None:
    vault.create("ideas", "Keep", "original")
    before = (vault.root / "ideas/keep.md").read_bytes()
    head = vault.head()
    # A git command run by hand holds the branch's lock: moving HEAD fails, after
    # the files were already switched.
    (vault.root / ".git/refs/heads/main.lock").write_bytes(b"")
    with pytest.raises(StorageError):
        vault.update("ideas/keep.md", body="changed", author=ANN)
    with pytest.raises(StorageError):
        vault.create("ideas", "New one")
    with pytest.raises(StorageError):
        vault.delete("ideas/keep.md", author=ANN)
    assert (vault.root / "ideas/keep.md").read_bytes() == before
    assert not (vault.root / "ideas/new-one.md").exists()
    assert vault.head() == head
    assert status(vault.root) == ""
    assert sorted(p.name for p in (vault.root / "ideas").iterdir()) == [".gitkeep", "keep.md"]


def test_attachments_named_like_windows_devices_get_a_suffix(vault: Vault) -> None:
    for name, kept in (
        ("CON.txt", "CON-note.txt"),
        ("aux", "aux-note"),
        ("com1.jpg", "com1-note.jpg"),
    ):
        written = vault.write_attachments([(name, b"data")], author=ANN)
        assert written.change.paths == (f"attachments/{kept}",)
    assert vault.write_attachments([("console.txt", b"x")], author=ANN).change.paths == (
        "attachments/console.txt",
    )
