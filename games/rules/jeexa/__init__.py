"""Jeexa, the puzzle-piece family game, for 2 to 8 players (rules summarised in
docs/rules/jeexa.md).

Rule decisions (``[spec]``: our reading of the rule text, listed in the decisions table of
docs/rules/jeexa.md, where "[ours]" marks rulings of our own; ``[code]``: decided here where
both the text and that reading are silent, listed in the same table):

Pieces
- [spec, ours] Six kinds, value = colour = shape: 1 red (+ - 0 0), 2 yellow (+ 0 - 0),
  3 green (+ + - 0), 4 blue (- - + 0), 5 orange (+ - + -), 6 purple (+ + - -), sides N E S W,
  ``+`` a tab (outlet), ``-`` a slot (inlet), ``0`` flat. Ten of each: 60 pieces; with 5 to 8
  players two sets are combined: 120.
- [code] At most 8 players, though the text sets none ("There's no limit of players"): two
  sets, the most the spec combines, leave 15 pieces a player at 8.
- [spec] A piece fills one square cell and may be turned by 0, 90, 180 or 270 degrees
  (clockwise), never mirrored, never moved afterwards.
- [code] Turns that look the same are offered once: the orange 5 has only 0 and 90 (turned
  by 180 it is the same piece). ``x,y,180`` for it is refused with a message naming 0.

Contacts, each player on an own grid
- [spec] Facing sides: tab in slot = joined; flat on flat = touching; slot on flat = a gap;
  slot on slot = one gap; a tab on a flat side or on another tab is not allowed.

A turn
- [spec] The die is rolled for the player by the server when the turn starts; the player
  takes a piece of that value from the pile. [code] The roll is ``rng_for(seed, moves played,
  "jeexa-die", hand, attempt)``, made inside the move that ends the previous turn (or when the
  game is created), so seed + move list replay every roll. The roll of the turn under way is
  public (``die`` in the view); a future roll is not computed before its turn starts.
- [spec] If no piece of the rolled value is left, the turn is lost and the next player rolls;
  [code] this happens inside ``apply`` and is logged ("Player 3 rolled 5: none left, turn
  lost") in the state's public ``events`` (what happened by itself after the last move).
- [spec] If any placement on a cell next to one's own pieces makes at least one join (and no
  forbidden contact), the piece must go to one of those. Only if none exists is it placed
  freely. [code] To keep the list finite, "freely" means any empty cell inside the puzzle's
  bounding box grown by two cells on each side (room to leave a one-cell hole), any turn,
  with no forbidden contact. Such a cell always exists (the outer ring touches nothing).
- [code] The first piece of a hand goes at 0,0; the player chooses its turn.
- [code] Placements are always asked, even when only one is possible (the player sees where
  it goes); ``legal_moves`` lists them sorted as text (the engine contract), and the board
  offers them cell by cell, row by row, turns ascending; fitting ones only, free ones only
  when nothing fits (the rules already allow nothing else).

Jokers
- [spec] Every gap the new piece makes with a neighbour earns one joker; two opposing slots
  are one gap. Free placements earn jokers the same way.
- [spec] Each joker steals one piece from another player: a piece with exactly one join
  ("at one end"), whose joined neighbour keeps at least one other join ("no loose piece").
  Pieces with no join at all cannot be stolen. [code] A player never steals from himself.
- [spec] The stolen piece is placed at once under the same fitting rule, by the thief; its
  gaps earn new jokers, and so on. [code] A "turn" is the roll, the placement of the piece
  drawn and every steal and placement its jokers lead to; the die is rolled once per turn.
  Each placement and each steal is one move; ``to_act`` keeps naming the same seat.
- [code] Jokers are spent one steal and its placement at a time: earning two
  at once means steal, place, steal, place.
- [code] A steal with exactly one possible target is not asked: it is taken inside ``apply``
  and logged ("... the only piece that can be taken"); only the placement of that piece is
  asked. [spec] A joker with no possible target is lost (all pending ones, logged).
- [code] Stealing is compulsory (the spec: "for each joker the player steals"): there is no
  pass.

Hands and goals
- [spec] Hand 1 trio, 2 pair, 3 quartet, 5 quintet: that many pieces of one colour connected
  by joins among themselves (other colours in between do not connect them). Hand 4: a
  staircase, four pieces of consecutive values each joined to the next, so the sequence can
  be followed as a path (1-2-3-4 all joined to one piece does not count). Hand 6: a connected
  4 of one colour and a trio of one colour (any, also the same) [ours] sharing no piece.
- [spec] The goal is checked after every placement, stolen pieces included; the hand ends the
  moment the player who placed meets it. [code] Jokers still pending are lost with it.
- [spec] The winner scores the values of the pieces forming the goal, [ours] the
  highest-scoring such set (a group of five when a trio is asked counts three pieces), + 20;
  [spec] every other player scores his best partial goal (``goals.partial``): the most
  valuable group of one colour (hands 1, 2, 3, 5), the most valuable path of consecutive
  joined values (hand 4), two groups counted up to 4 and 3 pieces (hand 6). [code] Matches
  begun under our first reading (every piece with a join) keep it: their states have no
  ``scoring`` and load as ``joined pieces``; ``initial_state_as_stored`` replays them so.
- [spec] If a turn starts with the pile empty, the hand ends without a winner and everyone
  scores his best partial goal, no bonus. [code] A player who still has jokers finishes his turn
  first (stealing needs no pile). [code] The player who could not draw starts the next hand.
- [code] Completing the goal is never forced by the rules beyond the fitting rule: a player
  who can fit elsewhere may choose not to end the hand.
- [spec] All pieces return to the pile after a hand; the winner starts the next hand; seat 0
  starts the first [ours]; play goes in seat order. The text's "with the dice, the player who
  starts the game is determined" is left to the seating: the site's new-match form offers a
  random seat. [code] After the sixth hand the puzzles stay on the table so the final
  position can be looked at.
- [spec] After six hands the highest total wins; ties share the win.

Notation, view and log
- [spec] ``2,-1,90`` places the piece in hand at x=2, y=-1 (y grows downwards) turned 90°
  clockwise; ``steal 3 0,1`` takes the piece at 0,1 from seat 3 (seats count from 0, so that
  is Player 4).
- [code] ``view`` adds to the spec's keys the piece in hand (``piece``, ``stolen_from``), which
  rule places it (``placement_rule``: first, fit or free), the steal targets, each seat's
  standing (what it would score now), totals, the last hand's result (winner, scores, every
  puzzle and the cells each seat scored) and
  ``events``; it never holds the seed or a future roll.
- [code] ``describe`` names the roll, the piece, the cell and turn, the joins or "placed
  freely", the jokers earned, and then everything that followed by itself but the roll that
  begins the next turn: that turn's placement names it, so the log has one line per move.

Game length
- [code] ``playout_limit`` is a true bound (six hands x 120 turns x one placement and up to
  119 steals with their placements); measured random games last 240 to 730 moves.
"""

from __future__ import annotations

from games.rules.jeexa.game import Jeexa

GAME = Jeexa()

__all__ = ["GAME"]
