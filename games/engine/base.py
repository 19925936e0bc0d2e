"""The game contract: a base class that states the verbs and does the shared checks."""

from __future__ import annotations

from typing import Any, ClassVar, NamedTuple

from games.engine import words

NOT_YOUR_TURN = "It is not your turn."
NOT_A_LEGAL_MOVE = "“{move}” is not a legal move here."
GAME_IS_OVER = "The game is over."
NOT_NOTATION = "A move is written as text in the game's notation, as the list of legal moves shows it."
UNKNOWN_AI_LEVEL = "{game} has no AI level {level}."


class IllegalMove(ValueError):
    """A move the rules refuse; the message is written for the player."""


class Outcome(NamedTuple):
    """A NamedTuple, so that it reads both ways the contract writes it: ``outcome.winners``
    and ``scores, winners = outcome``."""

    scores: tuple[int, ...]
    winners: tuple[int, ...]


class Game:
    """Base of every game object ``GAME`` exposed by ``games/rules/<slug>/__init__.py``.

    Subclasses set the identity attributes and implement the ``_``-prefixed hooks;
    the public verbs below are the exact contract of the engine spec and do the checks
    every game needs (player count, options, whose turn, legal notation), so each game
    only writes its rules.

    "A seat is only ever asked to act when it has a real choice" is read as: a seat with
    no legal move is never asked (its turn or step passes inside ``apply``, and the log
    says so), but a seat with exactly one legal move is asked for it, as the physical game
    has the player make it (Mancala's only sowable tile, Mecca's only free square). One
    exception: a Jeexa joker that can steal only one piece takes it by itself (logged).
    """

    slug: ClassVar[str]
    name: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    options: ClassVar[dict[str, tuple[str, ...]]] = {}
    # AI levels this game offers, weakest first: level number -> label shown to players.
    ai_levels: ClassVar[dict[int, str]] = {}
    # Random playouts of this game end within this many moves (checked by the conformance suite).
    playout_limit: ClassVar[int] = 10_000

    # --- creating -----------------------------------------------------------------

    def resolve_options(self, options: dict[str, str] | None) -> dict[str, str]:
        """Every option filled in with its default; ``ValueError`` for anything unknown."""
        options = dict(options or {})
        for name in options:
            if name not in self.options:
                raise ValueError(f"{self.name} has no option “{name}”.")
        resolved = {}
        for name, allowed in self.options.items():
            value = options.get(name, allowed[0])
            if value not in allowed:
                choices = ", ".join(allowed)
                raise ValueError(f"“{value}” is not a {name} of {self.name}; choose one of {choices}.")
            resolved[name] = value
        return resolved

    def initial_state(self, num_players: int, options: dict[str, str] | None, seed: int) -> Any:
        if not self.min_players <= num_players <= self.max_players:
            if self.min_players == self.max_players:
                raise ValueError(f"{self.name} is played by exactly {self.min_players} players.")
            raise ValueError(f"{self.name} is played by {self.min_players} to {self.max_players} players.")
        return self._initial_state(num_players, self.resolve_options(options), seed)

    def initial_state_as_stored(
        self, stored: dict[str, Any], num_players: int, options: dict[str, str], seed: int
    ) -> Any:
        """The first position of a match whose latest stored state is ``stored``: by the rules it
        was played by, where a game keeps a version of its rules in its state (the site's replay
        rebuilds positions from here)."""
        return self.initial_state(num_players, options, seed)

    # --- playing ------------------------------------------------------------------

    def normalize(self, move: str) -> str:
        """The notation as ``legal_moves`` lists it: white space and letter case forgiven.
        Anything but a string (a number, ``None``) is ``IllegalMove`` like any other bad move."""
        if not isinstance(move, str):
            raise IllegalMove(NOT_NOTATION)
        return move.strip().lower()

    def legal_moves(self, state: Any, seat: int) -> list[str]:
        if seat not in self.to_act(state):
            return []
        return sorted(self._legal_moves(state, seat))

    def apply(self, state: Any, seat: int, move: str) -> Any:
        if self.is_over(state):
            raise IllegalMove(GAME_IS_OVER)
        if seat not in self.to_act(state):
            raise IllegalMove(NOT_YOUR_TURN)
        move = self.normalize(move)
        if move not in self._legal_moves(state, seat):
            raise IllegalMove(self.explain_illegal(state, seat, move))
        return self._apply(state, seat, move)

    def explain_illegal(self, state: Any, seat: int, move: str) -> str:
        """Why ``move`` is refused, in plain words; games override this to say more."""
        return NOT_A_LEGAL_MOVE.format(move=move)

    def is_over(self, state: Any) -> bool:
        return self.outcome(state) is not None

    # --- hooks every game implements ----------------------------------------------

    def _initial_state(self, num_players: int, options: dict[str, str], seed: int) -> Any:
        raise NotImplementedError

    def to_act(self, state: Any) -> tuple[int, ...]:
        raise NotImplementedError

    def _legal_moves(self, state: Any, seat: int) -> list[str]:
        raise NotImplementedError

    def _apply(self, state: Any, seat: int, move: str) -> Any:
        raise NotImplementedError

    def outcome(self, state: Any) -> Outcome | None:
        raise NotImplementedError

    def view(self, state: Any, seat: int | None) -> dict[str, Any]:
        raise NotImplementedError

    def dump(self, state: Any) -> dict[str, Any]:
        raise NotImplementedError

    def load(self, data: dict[str, Any]) -> Any:
        raise NotImplementedError

    def describe(self, state: Any, seat: int, move: str) -> str:
        """One plain line for the move log; ``state`` is the position *before* the move."""
        return words.plain(self.describe_parts(state, seat, move))

    def describe_parts(self, state: Any, seat: int, move: str) -> words.Parts:
        """``describe``'s line as parts, each seat it names a ``words.Who``: the site writes it
        with the players' names."""
        raise NotImplementedError

    def num_players(self, state: Any) -> int:
        raise NotImplementedError

    def win_reason(self, state: Any) -> str:
        """Why the game ended as it did, when the scores alone do not say it (a Mecca player
        who placed all their pilgrims wins whatever the totals); "" when the best score won."""
        return words.plain(self.win_reason_parts(state))

    def win_reason_parts(self, state: Any) -> words.Parts:
        """``win_reason`` as parts (``describe_parts``)."""
        return ()

    def ai_move(self, state: Any, seat: int, level: int, seed: int) -> str:
        """The move the AI of ``level`` picks for ``seat``; ``seed`` makes its choice repeatable."""
        if level not in self.ai_levels:
            raise ValueError(UNKNOWN_AI_LEVEL.format(game=self.name, level=level))
        if seat not in self.to_act(state):
            raise IllegalMove(NOT_YOUR_TURN)
        return self._ai_move(state, seat, level, seed)

    def _ai_move(self, state: Any, seat: int, level: int, seed: int) -> str:
        raise NotImplementedError

    # --- hooks for the conformance suite ------------------------------------------

    def conserved(self, state: Any) -> dict[str, int]:
        """Quantities that no move may change (coins on the board, pieces in the box)."""
        return {}

    def secrets(self, state: Any, seat: int) -> list[str]:
        """Distinctive strings only ``seat`` may see; no other seat's view may contain them."""
        return []
