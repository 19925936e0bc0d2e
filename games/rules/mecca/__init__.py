"""Mecca by Javier Garcia (nestorgames, 2011), for 2 to 6 players.

Rule decisions (``[text]``: the published rule text, as summarised in docs/rules/mecca.md;
``[spec]``: our reading of it, listed in the decisions table of docs/rules/mecca.md, where
"[ours]" marks rulings of our own; ``[code]``: decided here where both are silent, as a player
of the physical game would expect, listed in the same table). Our reading and the text agree
everywhere; where the reading chose, it is followed.

The compound and the notation
- [spec, ours] An 11 × 11 grid, columns a-k from the left, rows 1-11 from the top; f6 is
  the centre. The Kaaba (e5:g7) is never played. Purple mats: the four corner triangles
  of 10 squares (r + c <= 3 and mirrors). The 16 squares around the Kaaba (d4:h8 without
  it) are "close to the Kaaba". Entrances, counter-clockwise from the top door: E1 f1,
  E2 a5, E3 a7, E4 f11, E5 k7, E6 k5. Crescents: yellow c3 i9, red i3 c9, green e3 g9,
  blue g3 e9, black c5 i7, white c7 i5.
- [spec] "Next to" is any of the eight surrounding squares ("even if diagonally").
- [spec] Moves: ``f3`` places a pilgrim (during set-up: takes that entrance), ``xf3``
  removes the pilgrim on f3, ``pass`` declines the removal.

Players and colours
- [spec] Seat s plays colour s of yellow, red, green, blue, black, white; with 2 or 3
  players each seat also plays colour s + players (2: yellow+green, red+blue; 3:
  yellow+blue, red+black, green+white). Colours in play: 4, 6, 4, 5, 6 for 2-6 players.
- [text] Purple mats are in play only with 3, 5 or 6 players (5 or 6 colours).
- [text, spec] 18 pilgrims per colour; every colour takes its own turns, also when one
  player owns two.

Set-up
- [spec] Seat 0 is "the youngest player". Colours choose an entrance in colour order,
  which is seat order, alternating seats in two-colour games (A1 B1 A2 B2 / A1 B1 C1 A2
  B2 C2); the pilgrim comes from the colour's hand.
- [code] Taking the last free entrance (six colours) is still a move its player makes:
  the engine only plays passes by itself, never a single remaining choice.
- [text] Entrances not chosen at set-up stay empty for the whole game; chosen entrances
  take no second pilgrim (no entrance square is ever playable after set-up).

Order of play
- [spec] Yellow (seat 0's first colour) starts; then each colour whose entrance follows
  counter-clockwise (E1 -> E2 -> ... -> E6 -> E1). A round runs from yellow to the last
  colour of that order.

A colour's turn
- [spec] First round (each colour's turn in round 1): one pilgrim, on a square next to
  exactly one pilgrim, of another colour (the ordinary test for a 1st pilgrim).
- [text] Later turns: pilgrims one at a time; the k-th goes on an empty square in play
  whose neighbours hold exactly k pilgrims, of k different colours, none the mover's.
  A 1st pilgrim thus never stands alone nor next to its own colour.
- [text] Placing is compulsory: a colour places while a square takes its next pilgrim
  and it has pilgrims in hand, up to M = colours in play - 1 (3, 4 or 5). [code] note: the
  k-th test itself stops a turn at M, since a square can touch at most colours - 1 other
  colours; the first round's limit of one is the only cap that ever bites.
- [text] Having placed at least T pilgrims this turn (T = 3 with 4 colours, 4 with 5 or 6),
  the colour may remove one pilgrim of any colour, its own included, that is next to two
  or more pilgrims of one same colour and not on an entrance; it goes back to its owner's
  hand. Removal is optional (``pass``).
- [text, spec] Then every pilgrim left with no neighbour at all goes back to its owner as
  well; a pair (or larger group) cut off from the rest stays. [code] Pilgrims on entrances
  never go back, even when left alone (they start the game alone and "can never be
  removed").
- [spec] A colour with no square for its 1st pilgrim, or nothing in hand, passes by itself
  inside ``apply``; a removal step with no removable pilgrim is skipped.

The end
- [text] The game ends at once when, at the end of a turn (after its removal), no colour
  can place a pilgrim (nobody has a square for a 1st pilgrim with pilgrims in hand).
- [text] When, at the end of a turn, a player has no pilgrim in hand (both colours empty for
  a two-colour player), the round is completed so that every colour has had as many turns,
  and the game ends. [code] Once triggered the round is played out even if a removal hands
  that player a pilgrim back; the empty-hand win below looks at the hands at the end.
- [text] If exactly one player has no pilgrim in hand at the end, he wins.
- [text] Otherwise each player scores his pilgrims on the board (entrances included [spec]),
  a pilgrim on a crescent of its own colour counting twice. [code] In two-colour games
  only the pilgrim's own colour doubles: a yellow pilgrim on green's crescent counts once
  for the yellow+green player. [text] A tie goes to the most pilgrims on the squares close
  to the Kaaba (plain count); players still tied all win.
- [code] ``Outcome.scores`` is each seat's total with the crescent bonus, also when the
  empty-hand rule decides the winner.
- [code] ``win_reason`` names the player the empty-hand rule made the winner, so the
  match's result says why a lower (or equal) total won.

Showing the game
- [code] ``view`` gives the step (entrance, place, remove, over), the number of the next
  placement, the squares the colour to act may play (``targets``, public: Mecca hides
  nothing), the last removal with the pilgrims that went back (kept until the next turn a
  player plays; automatic passes do not clear it), every removal of the last round
  (``recent_removals``: each stays until its colour acts or passes again, so a player
  coming back sees all he missed), the colours that just passed, and at the end the
  score table with crescent bonus and tie-break count.
- [code] ``describe`` writes one line per move with what followed by itself: "Red places a
  pilgrim on f3 (2nd of the turn); no square takes a 3rd pilgrim, so the turn ends;
  Green cannot place and passes."
"""

from __future__ import annotations

from games.rules.mecca.game import Mecca

GAME = Mecca()

__all__ = ["GAME"]
