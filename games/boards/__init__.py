"""Turns a game's view into what its board template (``templates/games/boards/<slug>.html``)
draws, from the viewer's side of the table. Each game has a module here named by its slug
with one function, ``present(view, seat, legal) -> dict``. Only views reach here, never
states, so a template cannot leak a secret."""

from __future__ import annotations

from importlib import import_module


def board_context(slug: str, view: dict, seat: int | None, legal: list[str]) -> dict:
    return import_module(f"games.boards.{slug}").present(view, seat, legal)
