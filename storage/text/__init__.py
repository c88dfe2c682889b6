"""The ground floor: facts of text that both `storage` and `bot` need, each in one home,
importing nothing of brainbot's.

- `storage.text.wikilinks`: `[[links]]` as Obsidian reads and writes them
- `storage.text.urls`: the web links and addresses a text holds
- `storage.text.code`: where Markdown is code (blanked, so nothing in it is read as words)
- `storage.text.tags`: `#tags` written in a note's text, as Obsidian reads them
- `storage.text.person_names`: person names and possessives, and a `Mention` of a note by name
- `storage.text.dates`: dates in people's words and the dates brainbot keeps
"""

__all__ = ["code", "dates", "person_names", "tags", "urls", "wikilinks"]
