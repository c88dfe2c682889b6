"""The database room: the Postgres connection (`engine`, with an embedded server when
no URL is given), the tables (`index_tables` for the derived index, `chat_tables` for
what the conversation engine keeps), and the records the engine reads
and writes (`records`, `admission`, `send_ledger`, `liveness`)."""
