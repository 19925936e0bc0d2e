"""Applying a move: ``play(state, move)`` returns the new state with the public events of the move
(the move log's line is built from them, so an event never names a hidden offering or a drawn
card). After every move ``settle`` skips what offers no choice: a phase whose only move is ``end``,
a pending choice with a single option, a whole turn without a move. Legal moves are ``rules``'s.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from games.engine.rng import rng_for
from games.engine.words import Part, Parts, Who, merged
from games.rules.mesopotamia.hexes import step
from games.rules.mesopotamia.rules import (
    RESOURCES,
    carrier_of,
    legal,
    mana_gain,
    named,
    parse_hex,
    parse_tribe,
    playable_cards,
)
from games.rules.mesopotamia.state import (
    ACTION,
    ENDURANCE_MP,
    FIRST_TURN_MP,
    LAND_PEEK,
    LETTERS,
    MANA_CAP,
    MAX_ROUNDS,
    MOVE,
    MP_PER_TURN,
    OFFERINGS,
    PLACE_CHOICE,
    RESOURCE_OF,
    STALL_ROUNDS,
    TARGET_CHOICE,
    TEMPLE,
    VOLCANO,
    VOLCANO_CHOICE,
    Hex,
    Hut,
    Pending,
    Player,
    State,
    Tile,
    Tribe,
    Turn,
    format_hex,
    seat_tribes,
    tribe_name,
    tribe_owner,
)

# --- applying ---------------------------------------------------------------------------


class Work:
    """A mutable copy of a state while one move is applied; ``freeze`` makes the new state."""

    # State fields read through ``__getattr__`` (declared for the type checker only: no value,
    # so ``__getattr__`` still answers them at run time).
    num_players: int
    reshuffle: bool
    seed: int
    ply: int
    stack: tuple[str, ...]
    deck: tuple[int, ...]
    discard: tuple[int, ...]
    gone: tuple[int, ...]
    stones_used: int
    turn_number: int
    last_offering_turn: int
    known_top: tuple[int, ...]

    def __init__(self, state: State) -> None:
        self.state = state
        self.tiles = list(state.tiles)
        self.index = {t.pos: i for i, t in enumerate(self.tiles)}
        self.tribes = list(state.tribes)
        self.players = list(state.players)
        self.fields: dict[str, Any] = {}
        self.turn = state.turn
        self.events: list[Parts] = []

    def __getattr__(self, name: str) -> object:
        # Unchanged scalar fields read through to the original state.
        fields = self.__dict__["fields"]
        return fields[name] if name in fields else getattr(self.__dict__["state"], name)

    def set(self, **changes: Any) -> None:
        self.fields.update(changes)

    def say(self, *parts: Part) -> None:
        """One public event of the move, for its line in the log."""
        self.events.append(merged(parts))

    def tile(self, pos: Hex) -> Tile:
        return self.tiles[self.index[pos]]

    def put_tile(self, tile: Tile) -> None:
        if tile.pos in self.index:
            self.tiles[self.index[tile.pos]] = tile
        else:
            self.index[tile.pos] = len(self.tiles)
            self.tiles.append(tile)

    def add_resource(self, pos: Hex, resource: str, n: int) -> None:
        tile = self.tile(pos)
        self.put_tile(tile._replace(**{resource: getattr(tile, resource) + n}))

    def from_supply(self, pos: Hex, resource: str, n: int) -> None:
        self.add_resource(pos, resource, n)
        supply = f"{resource}_supply"
        self.set(**{supply: getattr(self, supply) - n})

    def set_turn(self, **changes: Any) -> None:
        self.turn = self.turn._replace(**changes)

    def player(self, seat: int) -> Player:
        return self.players[seat]

    def set_player(self, seat: int, **changes: Any) -> None:
        self.players[seat] = self.players[seat]._replace(**changes)

    def freeze(self) -> State:
        return replace(
            self.state,
            **self.fields,
            tiles=tuple(self.tiles),
            tribes=tuple(self.tribes),
            players=tuple(self.players),
            turn=self.turn,
        )


def play(state: State, move: str, settled: bool = True) -> tuple[State, list[Parts]]:
    """The state after ``move`` (already known to be legal), with the move's public events.

    ``settled=False`` leaves out the steps without a choice that follow (ending a phase
    with nothing left to do, the turn's mana): the AI's quick look ahead."""
    work = Work(state)
    words = move.split()
    HANDLERS[words[0]](work, words[1:])
    work.set(ply=state.ply + 1)
    if not settled:
        return work.freeze(), work.events
    return settle(work.freeze(), work.events)


def settle(state: State, events: list[Parts]) -> tuple[State, list[Parts]]:
    while not state.over:
        moves = legal(state)
        phase = state.turn.phase
        if phase in (MOVE, ACTION) and moves == ["end"]:
            work = Work(state)
            _end_phase(work)
        elif phase not in (MOVE, ACTION) and len(moves) == 1:
            work = Work(state)
            words = moves[0].split()
            HANDLERS[words[0]](work, words[1:])
        else:
            break
        state = work.freeze()
        events += work.events
    return state, events


def _who(work: Work, *, possessive: bool = False) -> Who:
    return named(work.turn.seat, possessive=possessive)


def _move(work: Work, args: list[str]) -> None:
    index = parse_tribe(args[0])
    tribe = work.tribes[index]
    assert tribe.pos is not None  # only a tribe on the board moves
    dest = step(tribe.pos, args[1])
    work.set_turn(mp=work.turn.mp - 1)
    tile = work.tile(dest)
    name = tribe_name(index)
    work.say(_who(work), f" moves {name} {args[1].upper()} to {format_hex(dest)}")
    work.tribes[index] = tribe._replace(pos=dest)
    if tile.kind == TEMPLE:
        _into_temple(work, index)


def _into_temple(work: Work, index: int) -> None:
    """A tribe arrives in the temple, on foot or by Teleport: what it carries is delivered."""
    load = work.tribes[index].load
    if load == "stone":
        _temple_stone(work, index)
    elif load == "offering":
        _deliver(work, index)


def _temple_stone(work: Work, index: int) -> None:
    """Building the temple: the stone leaves the game, the tribe's owner's maximum and mana rise."""
    seat = tribe_owner(index)
    work.tribes[index] = work.tribes[index]._replace(load="")
    work.set(stones_used=work.stones_used + 1)
    _raise_mana(work, seat)
    player = work.player(seat)
    mana = f"mana {player.mana} of {player.max_mana}"
    if seat == work.turn.seat:
        work.say(f"delivers a stone to the temple: {mana}")
    else:  # a rival's tribe, teleported in
        work.say("delivers a stone to the temple for ", named(seat), ": ", named(seat, possessive=True), f" {mana}")


def _raise_mana(work: Work, seat: int) -> None:
    player = work.player(seat)
    top = min(MANA_CAP, player.max_mana + 1)
    work.set_player(seat, max_mana=top, mana=min(top, player.mana + 1))


def _deliver(work: Work, index: int) -> None:
    seat = tribe_owner(index)
    tribe = work.tribes[index]
    player = work.player(seat)
    delivered = (*player.delivered, tribe.offering)
    work.set_player(seat, mana=player.mana - tribe.offering, delivered=delivered)
    work.tribes[index] = Tribe(None)
    work.set(last_offering_turn=work.turn_number)
    work.say(
        f"delivers the offering {tribe.offering} for {tribe.offering} mana; {tribe_name(index)} returns to the supply"
    )
    if len(delivered) == len(OFFERINGS):
        work.set(end_reason="offerings")
        work.say(named(seat), " has delivered all four offerings and wins")


def _discover(work: Work, args: list[str]) -> None:
    index = parse_tribe(args[0])
    pos = work.tribes[index].pos
    assert pos is not None  # only a tribe on the board discovers
    target = step(pos, args[1])
    work.set_turn(mp=work.turn.mp - 1)
    work.say(_who(work), f" sends {tribe_name(index)} {args[1].upper()} to discover {format_hex(target)}")
    _draw_tile(work, index, target)


def _draw_tile(work: Work, index: int, target: Hex) -> None:
    """Draw for the discovering tribe until a tile other than a volcano comes up."""
    if not work.stack:
        # Volcanoes used up the stack: the tribe stays and keeps its movement point.
        work.set_turn(mp=work.turn.mp + 1, phase=MOVE, pending=None)
        work.say(f"the stack is empty; {tribe_name(index)} stays where it is")
        return
    kind = work.stack[0]
    work.set(stack=work.stack[1:], known_top=tuple(max(0, k - 1) for k in work.known_top))
    if kind == VOLCANO:
        work.set_turn(phase=VOLCANO_CHOICE, pending=Pending("volcano", tribe=index, pos=target))
        work.say("draws a volcano")
        return
    work.put_tile(Tile(target[0], target[1], kind))
    work.tribes[index] = work.tribes[index]._replace(pos=target)
    work.set_turn(phase=MOVE, pending=None, discoveries=work.turn.discoveries + 1)
    work.say(f"finds {'an' if kind[0] in 'aeiou' else 'a'} {kind}")
    if kind in RESOURCE_OF:
        _distribute(work, index, kind, target)


def _distribute(work: Work, index: int, kind: str, target: Hex) -> None:
    resource = RESOURCE_OF[kind]
    amount = min(work.num_players, getattr(work, f"{resource}_supply"))
    if amount == 0:
        work.say(f"no {resource} is left to place")
        return
    existing = [t.pos for t in work.tiles if t.kind == kind and t.pos != target]
    short = amount < work.num_players  # the supply runs short: the mover chooses too
    if amount - 1 >= len(existing) and not (short and existing):
        for pos in existing:
            work.from_supply(pos, resource, 1)
        work.from_supply(target, resource, amount - len(existing))
        where = [f"{amount - len(existing)} on {format_hex(target)}", *(f"1 on {format_hex(pos)}" for pos in existing)]
        work.say(f"{amount} {resource} placed ({', '.join(where)})")
    else:
        # Not enough for one per player or for every tile of the kind: the mover chooses where the rest goes.
        work.from_supply(target, resource, 1)
        rest = f"; {amount - 1} more to place" if amount > 1 else ""
        work.say(f"1 {resource} placed on {format_hex(target)}{rest}")
        if amount > 1:
            work.set_turn(phase=PLACE_CHOICE, pending=Pending("place", index, target, resource, amount - 1))


def _volcano(work: Work, args: list[str]) -> None:
    pos = parse_hex(args[0])
    pending = work.turn.pending
    assert pending is not None and pending.pos is not None  # the volcano's pending names the discovered hex
    work.put_tile(Tile(pos[0], pos[1], VOLCANO))
    work.say(_who(work), f" places the volcano on {format_hex(pos)} and draws again")
    work.set_turn(phase=MOVE, pending=None)
    _draw_tile(work, pending.tribe, pending.pos)


def _place(work: Work, args: list[str]) -> None:
    pos = parse_hex(args[0])
    pending = work.turn.pending
    assert pending is not None  # resources are placed only while they are pending
    work.from_supply(pos, pending.resource, 1)
    given = pending.given if pos == pending.pos else (*pending.given, pos)
    work.say(_who(work), f" puts a {pending.resource} on {format_hex(pos)}")
    if pending.left == 1:
        work.set_turn(phase=MOVE, pending=None)
    else:
        work.set_turn(pending=pending._replace(left=pending.left - 1, given=given))


def _free_step(work: Work) -> None:
    work.set_turn(free_steps=work.turn.free_steps + 1)


def _carry(work: Work, args: list[str]) -> None:
    index = parse_tribe(args[0])
    tribe = work.tribes[index]
    assert tribe.pos is not None  # only a tribe on the board carries
    name = tribe_name(index)
    if tribe.load in RESOURCES:
        work.add_resource(tribe.pos, tribe.load, 1)
    swap = f" (putting down its {tribe.load})" if tribe.load else ""
    if args[1] == "offering":
        value = int(args[2])
        tile = work.tile(tribe.pos)
        seat = work.turn.seat
        huts = list(tile.huts)
        at = huts.index(Hut(seat, value))
        huts[at] = Hut(seat)
        work.put_tile(tile._replace(huts=tuple(huts)))
        work.tribes[index] = Tribe(tribe.pos, "offering", value)
        work.say(_who(work, possessive=True), f" {name} takes up a face-down offering on {format_hex(tribe.pos)}{swap}")
    else:
        work.add_resource(tribe.pos, args[1], -1)
        work.tribes[index] = Tribe(tribe.pos, args[1])
        work.say(_who(work, possessive=True), f" {name} picks up a {args[1]}{swap}")
    _free_step(work)


def _drop(work: Work, args: list[str]) -> None:
    index = parse_tribe(args[0])
    tribe = work.tribes[index]
    assert tribe.pos is not None  # only a tribe on the board drops its load
    work.add_resource(tribe.pos, tribe.load, 1)
    work.tribes[index] = Tribe(tribe.pos)
    work.say(_who(work, possessive=True), f" {tribe_name(index)} puts down its {tribe.load}")
    _free_step(work)


def _steal(work: Work, args: list[str]) -> None:
    thief, victim = parse_tribe(args[0]), parse_tribe(args[1])
    load = work.tribes[victim].load
    work.tribes[thief] = work.tribes[thief]._replace(load=load)
    work.tribes[victim] = work.tribes[victim]._replace(load="")
    work.set_turn(stolen=(*work.turn.stolen, thief))
    work.say(_who(work, possessive=True), f" {tribe_name(thief)} steals a {load} from {tribe_name(victim)}")
    _free_step(work)


def _hut(work: Work, args: list[str]) -> None:
    pos, value = parse_hex(args[0]), int(args[1])
    seat = work.turn.seat
    _use_resource(work, seat, pos, "wood")
    tile = work.tile(pos)
    work.put_tile(tile._replace(huts=(*tile.huts, Hut(seat, value))))
    hand = list(work.player(seat).hand)
    hand.remove(value)
    work.set_player(seat, hand=tuple(hand))
    work.set_turn(action="hut")
    work.say(_who(work), f" builds a hut on {format_hex(pos)} with a hidden offering underneath")


def _use_resource(work: Work, seat: int, pos: Hex, resource: str) -> None:
    """A building's wood or stone goes back to the supply: a carried one first."""
    carrier = carrier_of(work.freeze(), seat, pos, resource)
    if carrier is not None:
        work.tribes[carrier] = work.tribes[carrier]._replace(load="")
    else:
        work.add_resource(pos, resource, -1)
    supply = f"{resource}_supply"
    work.set(**{supply: getattr(work, supply) + 1})


def _holy(work: Work, args: list[str]) -> None:
    pos = parse_hex(args[0])
    seat = work.turn.seat
    _use_resource(work, seat, pos, "stone")
    work.put_tile(work.tile(pos)._replace(holy=seat))
    work.set_turn(action="holy")
    work.say(_who(work), f" erects a holy place on {format_hex(pos)}")


def _grow(work: Work, args: list[str]) -> None:
    pos = parse_hex(args[0])
    seat = work.turn.seat
    free = [i for i in seat_tribes(seat) if work.tribes[i].pos is None]
    doubled = work.turn.fertility > 0 and len(free) >= 2
    born = free[: 2 if doubled else 1]
    for index in born:
        work.tribes[index] = Tribe(pos)
    work.set_turn(action="grow", grown=(*work.turn.grown, pos), fertility=work.turn.fertility - doubled)
    names = " and ".join(tribe_name(i) for i in born)
    work.say(_who(work, possessive=True), f" population grows on {format_hex(pos)}: {names}")


def _draw_card(work: Work, args: list[str]) -> None:
    deck = work.deck
    drawn: Parts = (_who(work), " draws a card")
    if not deck:
        pile = list(work.discard)
        rng_for(work.seed, work.ply, "reshuffle").shuffle(pile)
        deck = tuple(pile)
        work.set(discard=())
        drawn = (_who(work), " shuffles the discard pile into a new deck and draws a card")  # in that order
    seat = work.turn.seat
    card = deck[0]
    work.set(deck=deck[1:])
    work.set_player(seat, cards=(*work.player(seat).cards, card))
    work.set_turn(action="draw", fresh=(*work.turn.fresh, card))
    work.events.insert(0, drawn)


def _end(work: Work, args: list[str]) -> None:
    work.say(_who(work), f" ends the {'movement' if work.turn.phase == MOVE else 'turn'}")
    _end_phase(work)


def _end_phase(work: Work) -> None:
    if work.turn.phase == MOVE:
        work.set_turn(phase=ACTION)
    else:
        _end_turn(work)


def _end_turn(work: Work) -> None:
    seat = work.turn.seat
    gain = mana_gain(work.freeze(), seat)
    player = work.player(seat)
    mana = min(player.max_mana, player.mana + gain)
    if mana != player.mana:
        work.set_player(seat, mana=mana)
        work.say(named(seat), f" gains {mana - player.mana} mana ({mana} of {player.max_mana})")
    turns = work.turn_number + 1
    nxt = turns % work.num_players
    work.set(turn_number=turns)
    if turns >= MAX_ROUNDS * work.num_players:
        work.set(end_reason="rounds")
        work.say(f"after {MAX_ROUNDS} rounds the game ends")
        return
    if turns - work.last_offering_turn >= STALL_ROUNDS * work.num_players:
        work.set(end_reason="stalled")
        work.say(f"{STALL_ROUNDS} rounds without an offering: the game ends")
        return
    first_round = turns < work.num_players
    mp = FIRST_TURN_MP[work.num_players][nxt] if first_round else MP_PER_TURN
    work.turn = Turn(seat=nxt, phase=MOVE, mp=mp)


def _play_card(work: Work, args: list[str]) -> None:
    name = args[0]
    seat = work.turn.seat
    card = playable_cards(work.freeze(), seat)[name]
    cards = list(work.player(seat).cards)
    cards.remove(card)
    work.set_player(seat, cards=tuple(cards))
    if work.reshuffle:
        work.set(discard=(*work.discard, card))
    else:
        work.set(gone=(*work.gone, card))
    title = name.replace("-", " ").title()
    played = len(work.events)
    work.say(_who(work), f" plays {title}")
    CARD_EFFECTS[name](work, args[1:])
    # The effect's words go on the same line: "Blue plays Mana Theft and takes 1 mana from Red".
    if len(work.events) > played + 1:
        effect = work.events.pop(played + 1)
        glued = isinstance(effect[0], str) and effect[0].startswith(":")
        work.events[played] = merged([*work.events[played], *(effect if glued else (" ", *effect))])


def _endurance(work: Work, args: list[str]) -> None:
    work.set_turn(mp=work.turn.mp + ENDURANCE_MP)
    work.say(f"for {ENDURANCE_MP} more movement points")


def _priest(work: Work, args: list[str]) -> None:
    work.set_turn(priests=work.turn.priests + 1)
    work.say(": one holy place will give an extra mana this turn")


def _fertility(work: Work, args: list[str]) -> None:
    work.set_turn(fertility=work.turn.fertility + 1)
    work.say(": the next population growth brings two tribes")


def _holy_stone(work: Work, args: list[str]) -> None:
    seat = work.turn.seat
    _raise_mana(work, seat)
    player = work.player(seat)
    work.say(f"as a stone for the temple: mana {player.mana} of {player.max_mana}")


def _land(work: Work, args: list[str]) -> None:
    seat = work.turn.seat
    seen = min(LAND_PEEK, len(work.stack))
    work.set(known_top=tuple(seen if s == seat else k for s, k in enumerate(work.known_top)))
    work.say(f"and looks at the top {seen} tiles of the stack")


def _mana_theft(work: Work, args: list[str]) -> None:
    seat, victim = work.turn.seat, LETTERS.index(args[0])
    work.set_player(victim, mana=work.player(victim).mana - 1)
    work.set_player(seat, mana=work.player(seat).mana + 1)
    work.say("and takes 1 mana from ", named(victim))


def _teleport(work: Work, args: list[str]) -> None:
    index = parse_tribe(args[0])
    work.set_turn(phase=TARGET_CHOICE, pending=Pending("teleport", tribe=index, back=work.turn.phase))
    pos = work.tribes[index].pos
    assert pos is not None  # only a tribe on the board is teleported
    work.say(f"on {tribe_name(index)} at {format_hex(pos)}")


def _expulsion(work: Work, args: list[str]) -> None:
    pos = parse_hex(args[0])
    hut = int(args[1]) - 1
    work.set_turn(phase=TARGET_CHOICE, pending=Pending("expulsion", pos=pos, hut=hut, back=work.turn.phase))
    owner = work.tile(pos).huts[hut].owner
    whose: Part = "a neutral" if owner < 0 else named(owner, possessive=True)
    work.say("on ", whose, f" hut at {format_hex(pos)}")


def _target(work: Work, args: list[str]) -> None:
    dest = parse_hex(args[0])
    pending = work.turn.pending
    assert pending is not None  # a target is chosen only while a card waits for it
    if pending.kind == "teleport":
        work.tribes[pending.tribe] = work.tribes[pending.tribe]._replace(pos=dest)
        work.say(_who(work), f" teleports {tribe_name(pending.tribe)} to {format_hex(dest)}")
        if work.tile(dest).kind == TEMPLE:
            _into_temple(work, pending.tribe)
    else:
        assert pending.pos is not None  # an expulsion always names the hut's tile
        _expel(work, pending.pos, pending.hut, dest)
    work.set_turn(phase=pending.back, pending=None)


def _expel(work: Work, pos: Hex, at: int, dest: Hex) -> None:
    """Expulsion moves hut number ``at`` of ``pos`` to ``dest``. A hut that has grown the
    population this turn takes that along: it may not grow it again on its new tile."""
    source = work.tile(pos)
    huts = list(source.huts)
    hut = huts.pop(at)
    seat = work.turn.seat
    grown = list(work.turn.grown)
    # The seat's huts on a tile grow in their order there (see ``can_grow``).
    used = hut.owner == seat and sum(h.owner == seat for h in source.huts[:at]) < grown.count(pos)
    work.put_tile(source._replace(huts=tuple(huts)))
    target = work.tile(dest)
    if used:
        grown.remove(pos)
        work.set_turn(grown=(*grown, dest))
        # First, so that it stays a used one there (``dest`` holds at most one other hut).
        work.put_tile(target._replace(huts=(hut, *target.huts)))
    else:
        work.put_tile(target._replace(huts=(*target.huts, hut)))
    work.say(_who(work), f" moves the hut from {format_hex(pos)} to {format_hex(dest)}")


HANDLERS = {
    "move": _move,
    "discover": _discover,
    "volcano": _volcano,
    "wood": _place,
    "stone": _place,
    "carry": _carry,
    "drop": _drop,
    "steal": _steal,
    "hut": _hut,
    "holy": _holy,
    "grow": _grow,
    "draw": _draw_card,
    "play": _play_card,
    "to": _target,
    "end": _end,
}

CARD_EFFECTS = {
    "endurance": _endurance,
    "priest": _priest,
    "fertility": _fertility,
    "holy-stone": _holy_stone,
    "land": _land,
    "mana-theft": _mana_theft,
    "teleport": _teleport,
    "expulsion": _expulsion,
}
