"""A sentence about the game as parts: plain text, and the seats it names (``Who``).

The engines write the move log's line and the reason a game ended this way, so that the site
names each seat as its seat list does ("Bob (green) places a pilgrim on h8") without reading
English back; ``plain`` gives the engine's own words ("Green places a pilgrim on h8").
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, NamedTuple


class Who(NamedTuple):
    """A seat named in a sentence: by its number ("Player 2") or, where the game names players
    by colour, by the colour it plays ("Green"); ``possessive``: as an owner ("Green's")."""

    seat: int
    colour: str = ""
    possessive: bool = False

    def plain(self) -> str:
        name = self.colour.capitalize() if self.colour else f"Player {self.seat + 1}"
        return f"{name}'s" if self.possessive else name


Part = str | Who
Parts = tuple[Part, ...]


def sentence(template: str, *names: Any) -> Parts:
    """``template`` with each ``{}`` replaced by the next of ``names``: a ``Who`` stays a part,
    anything else becomes text (``sentence("{} rolled {}", Who(1), 5)``)."""
    pieces = template.split("{}")
    if len(pieces) != len(names) + 1:
        raise ValueError(f"{template!r} has {len(pieces) - 1} places for {len(names)} names")
    parts: list[Part] = [pieces[0]]
    for name, piece in zip(names, pieces[1:], strict=True):
        parts += [name if isinstance(name, Who) else str(name), piece]
    return merged(parts)


def join(sentences: Iterable[Sequence[Part]], separator: str) -> Parts:
    """The sentences one after the other, ``separator`` between them (as ``str.join``)."""
    parts: list[Part] = []
    for index, words in enumerate(sentences):
        parts += [separator, *words] if index else list(words)
    return merged(parts)


def merged(parts: Iterable[Part]) -> Parts:
    """The same parts with neighbouring texts joined and empty ones dropped."""
    result: list[Part] = []
    for part in parts:
        if isinstance(part, str) and result and isinstance(result[-1], str):
            result[-1] += part
        elif part != "":
            result.append(part)
    return tuple(result)


def plain(parts: Iterable[Part]) -> str:
    """The sentence in the engine's own words: each seat as "Player N", or by its colour."""
    return "".join(part.plain() if isinstance(part, Who) else part for part in parts)


def dump(parts: Iterable[Part]) -> list[Any]:
    """JSON for a state or a view: texts as strings, a seat as ``{"seat": n}`` with its colour
    and ``possessive`` where set."""
    return [part if isinstance(part, str) else _dump_who(part) for part in parts]


def _dump_who(who: Who) -> dict[str, Any]:
    data: dict[str, Any] = {"seat": who.seat}
    if who.colour:
        data["colour"] = who.colour
    if who.possessive:
        data["possessive"] = True
    return data


def load(data: Iterable[Any]) -> Parts:
    return tuple(part if isinstance(part, str) else Who(**part) for part in data)
