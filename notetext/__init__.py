"""The ground floor: facts of text that both `storage` and `bot` need, each in one home,
importing nothing of brainbot's.

- `notetext.wikilinks`: `[[links]]` as Obsidian reads and writes them
- `notetext.urls`: the web links and addresses a text holds
- `notetext.code`: where Markdown is code (blanked, so nothing in it is read as words)
- `notetext.tags`: `#tags` written in a note's text, as Obsidian reads them
- `notetext.person_names`: person names and possessives, and a `Mention` of a note by name
- `notetext.dates`: dates in people's words and the dates brainbot keeps
"""

__all__ = ["code", "dates", "person_names", "tags", "urls", "wikilinks"]
