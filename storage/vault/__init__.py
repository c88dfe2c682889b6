"""The vault room: Markdown notes in a git repository, the source of truth.

`vault.Vault` is its door; beside it the note file format (`notefile`, `schema`),
path safety (`paths`), git (`gitrepo`, `commits`, `history`, `undo`, `gitlocks`),
crash-safe writes (`atomic`), imports, and backups to a remote (`backup`)."""
