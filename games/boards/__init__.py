"""Turns a game's view into what its board template (``templates/games/boards/<slug>.html``)
draws, from the viewer's side of the table. Each game has a module here named by its slug
with one function, ``present(view, seat, legal, last=None) -> dict``; ``last`` (a
``LastMove``) says what to mark as changed, and the template puts ``data-last-move`` on
every element it marks. Only views reach here, never states, so a template cannot leak a
secret.

A module may also say that a turn's steps may be taken back (``TAKE_BACK``) and which steps
reveal something to their mover (``step_reveals(before, after)``, over the mover's views: such
a step cannot be taken back), name its options' values in words (``OPTION_WORDS``) for the
line that tells matches apart, and, for a game whose boards and log speak of colours, give
each seat's colours (``seat_colours(view)``) for the seat list, which speaks of names."""

from __future__ import annotations

from importlib import import_module
from typing import NamedTuple

from games.engine import get_game


class LastMove(NamedTuple):
    """What changed: ``before`` is the viewer's view of the position the marks count from (the
    viewer's own last move, or the start of the latest turn), ``played`` the moves since then,
    in order, as ``(seat, notation)``."""

    before: dict
    played: tuple[tuple[int, str], ...]


def last_span_words(span: int) -> str:
    """How far back a board's last-move marks reach, for its key ("ringed: what changed ...")."""
    return "in the last move" if span == 1 else f"in the last {span} moves"


def board_context(slug: str, view: dict, seat: int | None, legal: list[str], last: LastMove | None = None) -> dict:
    return import_module(f"games.boards.{slug}").present(view, seat, legal, last)


def takes_back(slug: str) -> bool:
    """Whether a turn of the game is several steps its player may take back (``TAKE_BACK``)."""
    return getattr(import_module(f"games.boards.{slug}"), "TAKE_BACK", False)


def step_reveals(slug: str, before: dict, after: dict) -> bool:
    """Whether a step showed its mover something they could not know before it (a tile or a card
    drawn, a die rolled): from there the turn cannot be taken back. ``before`` and ``after`` are
    the mover's views around the step."""
    reveals = getattr(import_module(f"games.boards.{slug}"), "step_reveals", None)
    return bool(reveals and reveals(before, after))


def options_label(slug: str, options: dict[str, str]) -> str:
    """A match's options in words ("Egyptian"; "No starting card, played cards removed"),
    empty for a game without options."""
    words = getattr(import_module(f"games.boards.{slug}"), "OPTION_WORDS", {})
    # In the game's order of options, not the stored one: PostgreSQL's jsonb keeps keys shortest
    # first, so a match read back said "Played cards reshuffled, no starting card" and its invitation the reverse.
    order = list(get_game(slug).options)
    named = sorted(options.items(), key=lambda item: order.index(item[0]) if item[0] in order else len(order))
    label = ", ".join(words.get(name, {}).get(value) or str(value).title() for name, value in named)
    return label[:1].upper() + label[1:]


def seat_colours(slug: str, view: dict) -> dict[int, str]:
    """Each seat's colour(s) in words ("Yellow and Green"), empty for a game without colours."""
    colours_of = getattr(import_module(f"games.boards.{slug}"), "seat_colours", None)
    return colours_of(view) if colours_of else {}
