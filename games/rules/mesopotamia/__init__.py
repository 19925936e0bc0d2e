"""Mesopotamia (Klaus-Jürgen Wrede, Phalanx 2005 / Mayfair), for 2 to 4 players.

Sources: the published one-page rule summary ("[text]", as summarised in
docs/rules/mesopotamia.md) and our decisions where it is silent ("[spec]", listed in the
decisions table of docs/rules/mesopotamia.md); "[code]" marks what this package decided where
both are silent (listed in the same table).

Move notation (one small step per move; tribes are named by colour letter and number,
b1..b8 blue, y1.. yellow, g1.. green, r1.. red; tiles by axial coordinates "q,r" with the
temple at 0,0; directions n, ne, se, s, sw, nw on flat-topped hexes)
- Movement phase: ``move b3 ne`` (onto a tile, 1 MP; into the temple it delivers the
  carried stone or offering), ``discover b3 ne`` (onto an empty hex, 1 MP: a tile is
  drawn), ``carry b3 wood`` / ``carry b3 stone`` (pick up; swaps a carried resource),
  ``carry b3 offering 6`` (pick up own marker 6 from a hut on the tile), ``drop b3``,
  ``steal b3 y2`` (b3 takes y2's wood or stone), ``end`` (end the movement).
- Choices inside the movement: ``volcano 3,-2`` (where a drawn volcano goes),
  ``wood 1,-1`` / ``stone 1,0`` (where one resource goes when there are not enough).
- Action phase: ``hut -1,0 6`` (build a hut, marker 6 under it), ``holy 2,-1``,
  ``grow -1,0``, ``draw``, ``end`` (end the turn; mana comes automatically).
- Cards, in the movement or action phase: ``play endurance``, ``play priest``,
  ``play fertility``, ``play holy-stone``, ``play land``, ``play mana-theft y``,
  ``play teleport y2`` then ``to 2,-1``, ``play expulsion -1,0 2`` (the 2nd hut on -1,0)
  then ``to 2,-1``.

Components and setup
- [spec] 41 tiles (1 temple, 5 volcanoes, 6 forests, 7 quarries, 22 plains); 18 cards
  (3 Endurance, 3 Priest, 2 each of Fertility, Holy Stone, Land, Mana Theft, Teleport,
  Expulsion); per colour 8 tribes, 5 huts, 3 holy places, offerings 2, 4, 6 and 7;
  20 wood and 20 stone; mana 0..8, maximum 3 at the start.
- [spec] Start map: temple 0,0, volcanoes 0,-1 and 0,1, plains A -1,0 and B -1,1, forest
  1,-1 holding one wood per player, quarry 1,0 holding one stone per player. Each player
  starts with a hut and 3 tribes: 4 players A: seats 0 and 3, B: seats 1 and 2; 3 players
  A: seats 0 and 2, B: seat 1 and a neutral hut; 2 players A: seat 0, B: seat 1, each
  beside a neutral hut. Starting huts hold no offering. [code] A neutral hut takes one of
  its tile's two places for huts.
- [spec] The stack holds the other 34 tiles less 6 plains (2 players) or 4 plains
  (3 players), shuffled from the seed; the deck is shuffled from the seed too.
- [spec] With 2 players no card is removed: which cards carry the "three heads" symbol is
  unknown, so all 18 are used (the board says so).
- [text] Seat 0 starts (the site's seat order stands for the random first player).
  First-turn movement points: 2 players 2, 5; 3 players 2, 3, 4; 4 players 2, 3, 4, 5.
  [spec] Every later turn 5. Unused points are lost.

Movement
- [text] Each step onto an adjacent tile costs 1 MP; volcanoes are never entered; any
  number of tribes share a tile.
- [spec] A tribe carries one wood, stone or own offering; carrying, swapping, dropping
  and stealing cost no MP. [code] Picking up a resource while carrying the other kind is
  the swap (the carried one stays on the tile); picking up an offering while carrying a
  resource puts the resource down; a carried offering can be neither put down nor
  swapped (only delivered) and cannot be stolen.
- [spec] Stealing: a tribe with empty hands takes the wood or stone of a rival's tribe on
  its tile when its owner has more tribes there than that rival; each tribe steals at
  most once a turn.
- [text] No resource is carried through the temple: a tribe with wood cannot enter it; a
  stone entering it is delivered at once (removed from the game, maximum +1 up to 8,
  mana +1 up to the maximum), so a tribe leaves the temple empty-handed.
- [spec] An offering carried into the temple is paid with its value in mana, put face up
  on the player's stack and the carrier returns to the supply; [code] without enough mana
  the move is simply not offered (the rule's "return it and the tribe" leaves nothing to
  undo), and explain_illegal says why.
- [spec] Discovery: a tribe next to an empty hex steps into it for 1 MP and the top tile
  is placed there with the tribe. A volcano goes to an empty hex of the mover's choice
  touching the map (not the hex being discovered) and the next tile is drawn. At most
  3 discoveries a turn, volcanoes not counted; none once the stack is empty. [code] If
  volcanoes empty the stack, the tribe stays and gets its movement point back.
- [text] A new forest (quarry) brings one wood (stone) per player from the supply: one on
  it, one on each forest (quarry) already on the map, the rest on the new tile.
  [spec] "If there are not enough, the mover chooses, but the new tile always gets at
  least one": not enough is fewer than new tile + existing tiles, or the supply holding
  less than one per player. [code] Then one goes on the new tile and the mover places
  each of the others, one at a time, on the new tile or on an existing tile of that kind
  that has not had one yet; with no choice to make nothing is asked. An empty supply
  brings nothing.
- [code] A turn allows at most 30 carry/drop/steal steps (no sensible turn needs more;
  it makes every turn, hence every game, finite).

Actions (one kind per turn, repeated while possible; drawing only once)
- [text] Hut: a plains tile with fewer than 2 huts and no holy place, 2 own tribes and
  "1 wood resource there": [spec] the wood is carried by one of those tribes (wood lying
  on the tile must be picked up first). It returns to the supply; the player puts one of
  his markers from hand face down under the hut. [code] A hut needs a marker in hand (a
  player always has as many huts left as markers, so this never bites).
- [text] Holy place: a plains tile with no hut, no holy place and no other player's
  tribes, 2 own tribes and a stone there ([code] the spec names no carrier here, unlike
  for huts: carried or lying on the tile, a carried one used first; back to the supply).
  [spec] No marker goes under it (the text's marker sentence there is a copy of the hut
  paragraph).
- [text] Growth: a tile with a hut and 2 of the player's tribes and no marker lying there
  (under any hut; carried markers do not count): one tribe from the supply joins them.
  [spec] The hut is one of the player's own (the text's "if you have 2 tribes and a hut
  there"). [spec] Once per hut and turn: two own huts on a tile let it grow twice.
  [code] Of a player's two huts on one tile the first grows first; a hut that has grown
  and is moved by Expulsion stays used on its new tile (it goes first among the huts there).
- [text] Draw one card (the whole action; it can be played from the next turn on).
- [code] ``end`` is always allowed: a player may take no action.

Mana (automatic at the end of the turn)
- [text] +1 per own holy place with at least 1 own tribe, +1 per other player's holy
  place with at least 2 own tribes, never above the maximum.

Cards (hand unlimited; played during one's own movement or action phase, never while a
volcano, resource or card target is being chosen; a card drawn this turn waits)
- [spec] Endurance: +3 MP ([code] movement phase only). Priest: one holy place that gives
  mana this turn gives one more ([code] each Priest adds one, at most one per giving holy
  place; offered while any holy place is on the map). Fertility: [code] the next growth
  this turn brings two tribes (if two are in the supply; otherwise the card waits for
  another growth this turn); offered before an action or while growing. Holy Stone: as a
  stone delivered to the temple ([code] offered only if it changes something). Land:
  look at the top 3 tiles ([code] that seat's view shows them until they are drawn;
  offered while it would show a tile not yet seen).
  Mana Theft: take 1 mana from a player who has some ([code] only while below one's
  own maximum). Teleport: any tribe with its load to any tile but a volcano and its own
  tile; into the temple as if it walked in ([code] stone is delivered, for the tribe's
  owner; one's own offering too if one has the mana; wood never enters, and neither does a
  rival's offering: whether its owner could pay would tell its hidden value).
  Expulsion: a hut with its marker to another plains tile with fewer than 2 huts
  ([code] any player's hut or a neutral one; and no holy place, as huts never stand on one).
- [text] Played cards go to a discard pile, shuffled into a new deck when a card is
  drawn from an empty deck; variant ``discard=remove``: played cards leave the game.
  Variant ``start_card=yes``: everyone starts with one card, playable at once.

End of the game
- [text] A player who delivers his fourth offering wins at once.
- [code] The rules have no other end, and players can get stuck (one tribe left and no
  hut to grow on), so two bounds end a game too: after 60 rounds, or when 15 rounds in a
  row pass without any offering delivered (random players never deliver, so their
  games end this way). Then the player with the highest value of delivered offerings
  wins; equal values share the win.
- Scores are the total value of the offerings each player delivered (19 for all four).

Secrets (see ``view``): other players' marker values in hand, under huts and carried,
their cards, and the stack order are never shown (Land's peek only to its player); the
move log says "with a hidden offering", "draws a card". After the game all is shown.
"""

from __future__ import annotations

from games.rules.mesopotamia.game import Mesopotamia

GAME = Mesopotamia()

__all__ = ["GAME"]
