"""Mancala, the piecepack adaptation by Mesomorph Games (2001), with the Egyptian,
Ethiopian and Nigerian options of the rule text and standard Kalah(6,4).

The rules are summarised in docs/rules/mancala.md. Rule decisions (``[spec]``: our reading
of the rule text, listed in the decisions table of docs/rules/mancala.md, where "[ours]" marks
rulings the text gives no hint for; ``[code]``: decided here where both the text and that
reading are silent, listed in the same table):

Board and notation
- [spec] Seat 0 is Player 1 and moves first; 4 coins on each of the 12 tiles, mancalas empty.
- [spec] ``tiles[s][0..5]`` run from seat s's left to the tile next to its own mancala;
  ``tiles[s][i]`` lies across from ``tiles[1-s][5-i]``.
- [spec] Moves are the tile number 1-6 from the mover's left; Ethiopian adds ``r`` (right,
  counterclockwise) or ``l`` (left, clockwise): ``3r``, ``3l``.

All variants
- [spec, ours] A sowing that laps the board drops into the tile it started from.
- [spec] Scores are the coins in the mancalas; equal scores are a draw and both seats are
  listed as winners.
- [code] ``moves_played`` counts moves applied; a turn passed automatically is not a move.

Egyptian (and Ethiopian and Kalah, which build on it)
- [spec] Skip the opponent's mancala, drop into your own.
- [spec] Last coin in your own mancala: move again.
- [spec] Last coin into a tile of your own side that was empty before that coin: bank that
  coin and every coin of the tile across, even when the tile across is empty.
- [code] The tile a sowing started from counts as empty when a lap brings the last coin
  back to it, so a 13-coin sowing captures there.
- [spec] The game ends as soon as either side has no coins on its tiles after a move; each
  player then sweeps the coins on his own tiles into his own mancala.
- [code] That end takes precedence over a pending extra turn.

Ethiopian
- [spec] Each turn you choose the direction; going left the path is your tiles leftwards,
  the opponent's tiles from his tile 6 down to 1 (his mancala skipped), then your mancala.
  Captures and extra turns work the same in both directions.
- [spec] You may never start from a tile holding exactly one coin.
- [spec, ours] A player with no legal move (every non-empty tile holds one coin) passes,
  also when he had just earned an extra turn; the pass happens inside ``apply``.
- [spec, ours] If neither player can move, the game ends and each banks his own tiles.
- [code] Sowing to the left can cycle: twelve moves that bank nothing can come back to the
  same position, and nothing else would end the game while both players go along. After
  ``STALL_LIMIT`` (50) moves in a row that put no coin into a mancala, the game ends as when
  neither can move: each player banks his own tiles. ``quiet_moves`` counts those moves
  (positions stored before the rule load with 0). In 2,000 random games the longest such run
  was 16 moves.

Nigerian
- [spec] No extra turns and no Egyptian captures; you drop into both mancalas.
- [spec] Relay: last coin on a tile of either side that was not empty and does not now hold
  4 coins -> pick up that tile's coins and sow on in the same direction. This includes a tile
  that now holds 5 or more coins.
- [spec] The turn ends when the last coin lands in a mancala, in an empty tile, or on a tile
  that now holds 4 coins.
- [spec] Whenever a drop brings a tile to exactly 4 coins, whoever dropped it, the tile's owner
  banks those 4 coins at once (in the last-coin case before the turn ends).
- [code] A tile the 4-coin rule emptied earlier in the same sowing is an empty tile when the last
  coin lands on it: the turn ends there, with no relay.
- [code] The 4 coins of every tile at the start are not banked: only a drop that makes a
  tile reach 4 triggers the rule (the spec's "reaches 4").
- [spec] The game ends when the player to move has no coins on his tiles; coins left on the
  other side stay there and do not count.
- [spec, ours] A relay that returns to a position already seen in the same turn ends the turn.
  [code] note: it cannot trigger, since between two equal positions no coin may have reached a
  mancala, and without passing a mancala every relay lands strictly further along the row.

Kalah
- [spec] Egyptian in every respect except that a capture needs at least one coin in the tile
  across; otherwise the last coin simply stays.

Move log (``describe``)
- [code] "captures N" counts every coin the capture banks, the mover's last coin included.
"""

from __future__ import annotations

from games.rules.mancala.game import Mancala

GAME = Mancala()

__all__ = ["GAME"]
