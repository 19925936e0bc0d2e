"""Why a move is refused, in the words a player reads."""

from __future__ import annotations

from games.rules.mesopotamia.hexes import DIRECTIONS, step
from games.rules.mesopotamia.rules import (
    can_discover,
    holy_left,
    legal,
    parse_hex,
    parse_tribe,
    playable_cards,
    supply_tribes,
    tribes_at,
)
from games.rules.mesopotamia.state import (
    ACTION,
    CARD_NAMES,
    COLOURS,
    FREE_STEPS_PER_TURN,
    HOLY_PER_SEAT,
    LETTERS,
    MAX_DISCOVERIES,
    MOVE,
    OFFERINGS,
    PLACE_CHOICE,
    PLAINS,
    TARGET_CHOICE,
    TEMPLE,
    VOLCANO,
    VOLCANO_CHOICE,
    State,
    Tile,
    Tribe,
    format_hex,
    seat_tribes,
    tribe_owner,
)

CHOICE_VERBS = {VOLCANO_CHOICE: "volcano", TARGET_CHOICE: "to"}
SPACING = "Write the move with one space between its words: “{move}”."
UNREADABLE = "“{move}” is not a Mesopotamia move (for example: move b3 ne, carry b3 stone, hut -1,0 6, end)."
CHOOSE_VOLCANO = "First choose where the volcano goes (volcano q,r)."
CHOOSE_PLACE = "First choose where the next {resource} goes ({resource} q,r)."
CHOOSE_TARGET = "First choose where the card sends its target (to q,r)."
BAD_PLACE = "“{where}” is not one of the places you may choose now (they are outlined on the map)."
MOVEMENT_ONLY = "That belongs to the movement phase, which is over."
ACTION_ONLY = "Actions come after the movement: end the movement first."
NOT_YOUR_TRIBE = "{tribe} is not one of your tribes."
IN_SUPPLY = "{tribe} is in your supply, not on the board."
NO_MP = "You have no movement points left."
VOLCANO_BLOCKS = "Tribes may never enter a volcano."
NO_TILE = "There is no tile there: discover it instead."
NO_TILE_NO_LAND = "There is no tile there, and the stack is empty: no land is left to discover."
NO_TILE_NO_DISCOVERY = f"There is no tile there, and you have made all {MAX_DISCOVERIES} discoveries a turn allows."
NO_TILE_AT = "There is no tile at {where}."
TILE_THERE = "There is already a tile there: move onto it instead."
WOOD_IN_TEMPLE = "No wood may be carried into the temple."
MANA_SHORT = "You need {value} mana to deliver this offering and have {mana}."
RIVAL_OFFERING = "A rival's tribe carrying an offering cannot be sent into the temple: delivering is its owner's to do."
DISCOVERY_LIMIT = f"You may discover at most {MAX_DISCOVERIES} tiles a turn (volcanoes not counted)."
STACK_EMPTY = "The stack is empty: there is no land left to discover."
FREE_LIMIT = f"A turn allows at most {FREE_STEPS_PER_TURN} carry, drop and steal steps."
OFFERING_STUCK = "A carried offering can only be put down by delivering it at the temple."
NOTHING_TO_CARRY = "There is no {what} on that tile to pick up."
ALREADY_CARRIES = "{tribe} already carries a {what}."
NOTHING_CARRIED = "That tribe carries no resource."
STEAL_OWN = "You cannot steal from your own tribes."
STEAL_ELSEWHERE = "{victim} is not on {thief}'s tile: a tribe steals only on its own tile."
STEAL_SPENT = "Each tribe may steal only once a turn."
STEAL_HANDS_FULL = "Only an empty-handed tribe can steal."
STEAL_MAJORITY = "You may only steal where you have more tribes than that player."
STEAL_NOTHING = "That tribe carries no wood or stone to steal."
ACTION_CHOSEN = "You chose another action this turn; only that one may be repeated."
DRAW_ONCE = "You may draw only one card a turn, and it is your action."
NO_CARD_LEFT = "There is no card left to draw: the deck and the discard pile are empty."
NO_CARD_LEFT_REMOVED = "There is no card left to draw: the deck is empty and played cards have left the game."
NEEDS_PLAINS = "That can only be built on a plains tile."
NEEDS_TWO = "You need two of your tribes there."
HUT_FULL = "A tile holds at most two huts, and none on a holy place."
NO_MARKER = "There is no offering marker {value}: the markers are worth 2, 4, 6 and 7."
MARKER_USED = "Your offering marker {value} is no longer in your hand (you still hold {hand})."
NO_MARKER_LEFT = "You have no offering marker left to put under a hut."
HUT_WOOD = "You need a wood carried by one of your tribes there (wood lying on the tile must be picked up first)."
HOLY_EMPTY = "A holy place needs a plains tile without huts, holy places or other players' tribes."
HOLY_NONE_LEFT = f"You have already built all {HOLY_PER_SEAT} of your holy places."
HOLY_STONE = "You need a stone there (carried by one of your tribes or lying on the tile)."
GROW_HUT = "Population grows only where one of your own huts stands."
GROW_USED = "Population grows once per hut and turn, and your huts on that tile have already grown it this turn."
GROW_SUPPLY = "All your tribes are on the board: none is left in your supply to join them."
GROW_MARKER = "No tribe may be added to a tile with an offering marker lying on it."
NO_CARD = "You hold no {card} card that you may play now (cards drawn this turn wait for your next turn)."
CARD_USELESS = "That card would do nothing now."
THEFT_AT_MAXIMUM = "Your mana is at its maximum: a stolen mana would be lost."
THEFT_NOBODY = "Name a player to steal from by colour: {letters}."
THEFT_NO_MANA = "{colour} has no mana to take."


def explain(state: State, move: str) -> str:
    """The first rule ``move`` breaks, or a pointer to the notation."""
    words = move.split()
    if not words:
        return UNREADABLE.format(move=move)
    if " ".join(words) != move and " ".join(words) in legal(state):
        return SPACING.format(move=" ".join(words))
    phase = state.turn.phase
    waiting = _waiting(state, phase)
    if waiting:
        assert state.turn.pending is not None  # a choice phase always waits on a pending choice
        verb = state.turn.pending.resource if phase == PLACE_CHOICE else CHOICE_VERBS[phase]
        if words[0] != verb:
            return waiting
        return _into_temple(state, words[-1]) or BAD_PLACE.format(where=words[-1])
    verb = words[0]
    try:
        if verb in ("move", "discover", "carry", "drop", "steal"):
            return _movement(state, words) if phase == MOVE else MOVEMENT_ONLY
        if verb in ("hut", "holy", "grow", "draw"):
            return _action(state, words) if phase == ACTION else ACTION_ONLY
        if verb == "play":
            return _card(state, words)
    except (ValueError, IndexError, KeyError):
        pass
    return UNREADABLE.format(move=move)


def _into_temple(state: State, where: str) -> str:
    """Why a teleported tribe may not go into the temple, if that is where it was sent."""
    pending = state.turn.pending
    try:
        temple = state.tile_map().get(parse_hex(where))
    except ValueError:
        return ""
    assert pending is not None  # called only while a choice is pending
    if pending.kind != "teleport" or temple is None or temple.kind != TEMPLE:
        return ""
    tribe = state.tribes[pending.tribe]
    if tribe.load == "wood":
        return WOOD_IN_TEMPLE
    if tribe.load == "offering" and tribe_owner(pending.tribe) != state.turn.seat:
        return RIVAL_OFFERING  # not a word on whether its owner could pay: the value is hidden
    if tribe.load == "offering":
        return MANA_SHORT.format(value=tribe.offering, mana=state.players[state.turn.seat].mana)
    return ""


def _waiting(state: State, phase: str) -> str:
    """What the player must choose first, while a choice inside a phase is open."""
    if phase == VOLCANO_CHOICE:
        return CHOOSE_VOLCANO
    if phase == PLACE_CHOICE:
        assert state.turn.pending is not None  # a choice phase always waits on a pending choice
        return CHOOSE_PLACE.format(resource=state.turn.pending.resource)
    if phase == TARGET_CHOICE:
        return CHOOSE_TARGET
    return ""


def _movement(state: State, words: list[str]) -> str:
    verb, index = words[0], parse_tribe(words[1])
    tribe = state.tribes[index]
    seat = state.turn.seat
    if tribe_owner(index) != seat:
        return NOT_YOUR_TRIBE.format(tribe=words[1])
    if tribe.pos is None:
        return IN_SUPPLY.format(tribe=words[1])
    if verb in ("move", "discover"):
        return _stepping(state, verb, tribe, words[2])
    if state.turn.free_steps >= FREE_STEPS_PER_TURN:
        return FREE_LIMIT
    if tribe.load == "offering":
        return OFFERING_STUCK
    tile = state.tile_map()[tribe.pos]
    if verb == "carry" and words[2] == tribe.load:
        return ALREADY_CARRIES.format(tribe=words[1], what=tribe.load)
    if verb == "carry" and words[2] in ("wood", "stone") and not getattr(tile, words[2]):
        return NOTHING_TO_CARRY.format(what=words[2])
    if verb == "carry" and words[2] == "offering":
        return NOTHING_TO_CARRY.format(what="offering of yours")
    if verb == "drop":
        return NOTHING_CARRIED
    if verb == "steal":
        return _stealing(state, words[1], words[2])
    return UNREADABLE.format(move=" ".join(words))


def _stepping(state: State, verb: str, tribe: Tribe, direction: str) -> str:
    if direction not in DIRECTIONS:
        return UNREADABLE.format(move=f"{verb} … {direction}")
    if state.turn.mp <= 0:
        return NO_MP
    assert tribe.pos is not None  # _movement answered a tribe in supply
    tile = state.tile_map().get(step(tribe.pos, direction))
    if verb == "move":
        if tile is None:
            return _no_tile(state)
        if tile.kind == VOLCANO:
            return VOLCANO_BLOCKS
        if tile.kind == TEMPLE and tribe.load == "wood":
            return WOOD_IN_TEMPLE
        if tile.kind == TEMPLE and tribe.load == "offering":
            return MANA_SHORT.format(value=tribe.offering, mana=state.players[state.turn.seat].mana)
    elif tile is not None:
        return TILE_THERE
    elif not state.stack:
        return STACK_EMPTY
    elif not can_discover(state):
        return DISCOVERY_LIMIT
    return UNREADABLE.format(move=f"{verb} … {direction}")


def _no_tile(state: State) -> str:
    if not state.stack:
        return NO_TILE_NO_LAND
    return NO_TILE if can_discover(state) else NO_TILE_NO_DISCOVERY


def _stealing(state: State, thief_name: str, victim_name: str) -> str:
    thief, victim = parse_tribe(thief_name), parse_tribe(victim_name)
    if tribe_owner(victim) == state.turn.seat:
        return STEAL_OWN
    if state.tribes[victim].pos != state.tribes[thief].pos:
        return STEAL_ELSEWHERE.format(victim=victim_name, thief=thief_name)
    if thief in state.turn.stolen:
        return STEAL_SPENT
    if state.tribes[thief].load:
        return STEAL_HANDS_FULL
    if state.tribes[victim].load not in ("wood", "stone"):
        return STEAL_NOTHING
    pos = state.tribes[thief].pos
    assert pos is not None  # _movement answered a thief in supply
    here = tribes_at(state).get(pos)
    if here is None or here[state.turn.seat] <= here[tribe_owner(victim)]:
        return STEAL_MAJORITY
    return STEAL_NOTHING


def _action(state: State, words: list[str]) -> str:
    verb = words[0]
    turn = state.turn
    if verb == "draw" and turn.action == "draw":
        return DRAW_ONCE
    if turn.action and turn.action != verb:
        return ACTION_CHOSEN
    if verb == "draw":
        return NO_CARD_LEFT if state.reshuffle else NO_CARD_LEFT_REMOVED
    pos = parse_hex(words[1])
    tile = state.tile_map().get(pos)
    if tile is None:
        return NO_TILE_AT.format(where=format_hex(pos))
    seat = turn.seat
    if verb == "holy" and holy_left(state, seat) <= 0:
        return HOLY_NONE_LEFT
    mine = [i for i in seat_tribes(seat) if state.tribes[i].pos == pos]
    if verb in ("hut", "holy") and tile.kind != PLAINS:
        return NEEDS_PLAINS
    if len(mine) < 2:
        return NEEDS_TWO
    if verb == "hut":
        if len(tile.huts) >= 2 or tile.holy is not None:
            return HUT_FULL
        return _marker(state, int(words[2])) or HUT_WOOD
    if verb == "holy":
        if tile.huts or tile.holy is not None or len(mine) != sum(tribes_at(state)[pos]):
            return HOLY_EMPTY
        return HOLY_STONE
    return _growing(state, tile) or UNREADABLE.format(move=" ".join(words))


def _marker(state: State, value: int) -> str:
    """Why ``value`` cannot go under a new hut, or "" when it can."""
    hand = state.players[state.turn.seat].hand
    if value not in OFFERINGS:
        return NO_MARKER.format(value=value)
    if not hand:
        return NO_MARKER_LEFT
    if value not in hand:
        return MARKER_USED.format(value=value, hand=", ".join(map(str, hand)))
    return ""


def _growing(state: State, tile: Tile) -> str:
    """Why growth is refused on ``tile`` (two own tribes there), or "" when it is not."""
    seat = state.turn.seat
    own = sum(hut.owner == seat for hut in tile.huts)
    if not own:
        return GROW_HUT
    if own <= state.turn.grown.count(tile.pos):
        return GROW_USED
    if any(h.offering for h in tile.huts):
        return GROW_MARKER
    if not supply_tribes(state, seat):
        return GROW_SUPPLY
    return ""


def _card(state: State, words: list[str]) -> str:
    name = words[1]
    if name not in CARD_NAMES:
        return UNREADABLE.format(move=" ".join(words))
    if name not in playable_cards(state, state.turn.seat):
        return NO_CARD.format(card=name.replace("-", " ").title())
    if name == "mana-theft":
        return _theft(state, words[2:])
    return CARD_USELESS


def _theft(state: State, target: list[str]) -> str:
    me = state.players[state.turn.seat]
    if me.mana >= me.max_mana:
        return THEFT_AT_MAXIMUM
    others = [seat for seat in range(len(state.players)) if seat != state.turn.seat]
    if len(target) != 1 or target[0] not in [LETTERS[seat] for seat in others]:
        return THEFT_NOBODY.format(letters=", ".join(f"{LETTERS[s]} ({COLOURS[s]})" for s in others))
    victim = LETTERS.index(target[0])
    if state.players[victim].mana == 0:
        return THEFT_NO_MANA.format(colour=COLOURS[victim].capitalize())
    return CARD_USELESS
