"""The index room: Postgres tables derived from the vault, and search over them.

`index.Index` is its door; beside it what a note becomes in the index (`documents`,
`tokens`, `chunking`, `links`), writing it (`indexer`), reading it back (`lookups`,
`digest_queries`, `snippets`), ranking (`search`), vectors (`embeddings`) and keeping
the index in step with notes changed outside the bot (`sync`)."""
