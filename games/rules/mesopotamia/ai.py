"""Computer players.

What the AI may know. ``ai_move`` receives the full state, so ``determinize`` first turns
it into one of the positions the seat cannot tell apart: the stack below the tiles Land
showed the seat is reshuffled, the other players' hidden offering markers are dealt
again at random over the places where face-down markers of theirs lie (hand, huts,
carrying tribes), and the cards the seat has not seen (the deck and the other hands) are
dealt again. Everything the planner reads comes from that copy, and it never looks at
the stack's order or at a drawn card: a discovery and a card draw are valued by
expectation, not by simulating them. (A test changes the hidden things and checks that
the move stays the same.)

How it plays. A turn is many small steps, and each step is chosen greedily: every legal
move except discoveries and draws is simulated and the resulting position is scored by a
potential ``Planner.value`` that rewards progress for the seat (offerings delivered,
mana and its maximum, markers under huts or carried towards the temple, holy places,
tribes) and, for every tribe, the best job it can do (carry a stone to the temple, bring
wood or stone to the turn's project, stand beside it, fetch a marker, stand on a holy
place, walk to where land can be discovered) less the steps it still needs. The project
is the turn's action: the best hut or holy place site reachable with its resource, or a
hut to grow on while the seat has fewer than four tribes. A step is taken only if it
raises the potential, so a phase ends when nothing improves.

Levels. Level 2 ("Strong") steals, plays Teleport and Expulsion where they pay and builds
up to three holy places. Level 1 ("Easy") adds seeded noise to its scores, never steals,
builds one holy place and plays only the simple cards. Both are deterministic for the
same inputs: ties and noise come from ``rng_for(seed, ply)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from typing import NamedTuple, cast

from games.engine.rng import rng_for
from games.rules.mesopotamia import effects, rules
from games.rules.mesopotamia.hexes import bfs, distance, neighbours, step
from games.rules.mesopotamia.state import (
    ACTION,
    MANA_CAP,
    MOVE,
    OFFERINGS,
    PLACE_CHOICE,
    PLAINS,
    TARGET_CHOICE,
    TEMPLE,
    VOLCANO,
    VOLCANO_CHOICE,
    Hex,
    Hut,
    Player,
    State,
    Tile,
    Tribe,
    seat_tribes,
    tribe_owner,
)

EASY, STRONG = 1, 2
TEMPLE_POS = (0, 0)
Offer = tuple[float, int, tuple[tuple[object, int], ...]]  # (value, tribe, ((job or resource, how many), ...))
WalkJob = tuple[Hex, int, tuple[tuple[object, ...], int]]  # (where, worth, (job, how many))

# Weights of the potential, in tenths of a mana.
DELIVERED = 300
MANA = 10
MAX_NEEDED = 15  # a point of maximum up to the dearest marker
MAX_SPARE = 3
INCOME = 9  # each mana the end of this turn will bring
HOLY_PLACE = (80, 70, 40)  # first, second, third holy place
TRIBES = (90, 90, 35, 28, 22, 15, 10, 6)  # the first, second, ... tribe on the board
MARKER_UNDER_HUT = 60
MARKER_CARRIED = 110
MARKER_AFFORDABLE = 25  # extra once the mana pays for it
STEP = 2  # every step a tribe still has to walk for its job
OFFERING_STEP = 6
STONE_JOB = 22
WOOD_JOB = 24
SITE_STONE_JOB = 26
PARTNER_JOB = 20
STATION_JOB = 8
FETCH_MARKER_JOB = 16
EXPLORE_JOB = 12
PICKUP_GAP = 4  # a job that still needs a pick-up is worth a little less
SITE_READY = 20
GROW_READY = 15
RIVAL_LOAD = 5  # a resource carried by another player (so stealing pays)
DRAW_CARD = 12
EXPLORE = 16
FERTILITY_READY = 15
ENDURANCE_USE = 8
CARD_TRICK = 30
EPSILON = 0.5
WIN = 1_000_000.0
STUCK = 500
UNREACHABLE = 99

# Choosing the turn's project.
SITE_BASE = 40
FIRST_HOLY_BONUS = 20
HUT_URGENCY = 25
GROW_BASE = 30
GROW_URGENCY = 12  # per tribe below the wanted number
WANTED_TRIBES = 4  # more tribes cost actions that huts and holy places need more (measured)

# What sets the levels apart.
WANTED_HOLY = {EASY: 1, STRONG: 3}
NOISE = {EASY: 14.0, STRONG: 0.0}
FREE_STEPS = {"carry", "drop", "steal"}  # cost no movement point


def choose(state: State, seat: int, level: int, seed: int) -> str:
    rng = rng_for(seed, state.ply, "mesopotamia-ai", level)
    known = determinize(state, seat, rng)
    moves = sorted(rules.legal(known))
    rng.shuffle(moves)  # ties go to a seeded coin toss
    planner = Planner(known, seat, level, rng)
    phase = known.turn.phase
    if phase == VOLCANO_CHOICE:
        return planner.volcano_site(moves)
    if phase == PLACE_CHOICE:
        return planner.resource_site(moves)
    if phase == TARGET_CHOICE:
        return planner.card_target(moves)
    return planner.best_step(moves)


# --- what the seat may know -------------------------------------------------------------


def determinize(state: State, seat: int, rng: random.Random) -> State:
    """A position the seat cannot tell from the real one, dealt again from ``rng``."""
    known = state.known_top[seat]
    rest = list(state.stack[known:])
    rng.shuffle(rest)
    players = list(state.players)
    pool = list(state.deck)
    for other, player in enumerate(players):
        if other != seat:
            pool += player.cards
    rng.shuffle(pool)
    tiles, tribes = list(state.tiles), list(state.tribes)
    for other, player in enumerate(players):
        if other != seat:
            dealt, pool = tuple(pool[: len(player.cards)]), pool[len(player.cards) :]
            players[other] = _redeal_markers(tiles, tribes, player._replace(cards=dealt), other, rng)
    return replace(
        state,
        stack=(*state.stack[:known], *rest),
        players=tuple(players),
        deck=tuple(pool),
        tiles=tuple(tiles),
        tribes=tuple(tribes),
    )


def _redeal_markers(tiles: list[Tile], tribes: list[Tribe], player: Player, seat: int, rng: random.Random) -> Player:
    """Shuffle a rival's face-down marker values over the places they lie (lists changed in place)."""
    values = [v for v in OFFERINGS if v not in player.delivered]
    rng.shuffle(values)
    for i, tile in enumerate(tiles):
        if any(h.owner == seat and h.offering for h in tile.huts):
            huts = tuple(Hut(h.owner, values.pop()) if h.owner == seat and h.offering else h for h in tile.huts)
            tiles[i] = tile._replace(huts=huts)
    for i in seat_tribes(seat):
        if tribes[i].load == "offering":
            tribes[i] = tribes[i]._replace(offering=values.pop())
    return player._replace(hand=tuple(sorted(values)))


# --- the planner --------------------------------------------------------------------------


class Project(NamedTuple):
    """What this turn's action should be: build a hut or a holy place, or grow."""

    kind: str  # "hut", "holy" or "grow"
    pos: Hex
    load: str  # the resource one of the two tribes must bring ("" to grow)


class Planner:
    def __init__(self, state: State, seat: int, level: int, rng: random.Random) -> None:
        self.state = state
        self.seat = seat
        self.level = level
        self.rng = rng
        self.tiles = state.tile_map()
        self._maps: dict[tuple[Hex, bool], dict[Hex, int]] = {}
        player = state.players[seat]
        self.wants_hut = bool(player.hand) and rules.huts_left(state, seat) > 0
        # Markers are what is missing once the mana could pay for the cheapest one.
        waiting = any(h.owner == seat and h.offering for t in state.tiles for h in t.huts) or any(
            state.tribes[i].load == "offering" for i in seat_tribes(seat)
        )
        self.hut_urgency = HUT_URGENCY if self.wants_hut and not waiting and player.mana >= min(player.hand) else 0
        self.owned_holy = sum(t.holy == seat for t in state.tiles)
        self.wants_holy = self.owned_holy < WANTED_HOLY[level] and rules.holy_left(state, seat) > 0
        self.reachable: set[str] = set()  # the kinds of project some site allows
        self.project = self._choose_project(state)
        # A partner for the project: worth more than standing on a holy place, and much
        # more when tribes are so few that the seat could get stuck.
        self.partner_worth = PARTNER_JOB
        if self.project is not None and self.project.kind == "grow":
            self.partner_worth += GROW_URGENCY * max(0, WANTED_TRIBES - len(self._own_on_board(state)))
        self.hungry = rules.can_discover(state) and self._hungry_for_land()
        self.frontier = self._frontier() if self.hungry else []

    def _own_on_board(self, state: State) -> list[int]:
        return [i for i in seat_tribes(self.seat) if state.tribes[i].pos is not None]

    # distances ---------------------------------------------------------------------------

    def dist_map(self, target: Hex, through_temple: bool) -> dict[Hex, int]:
        """Steps from every tile to ``target``; loaded tribes may not pass the temple."""
        key = (target, through_temple)
        if key not in self._maps:
            tiles = self.tiles

            def passable(pos: Hex) -> bool:
                tile = tiles.get(pos)
                return tile is not None and tile.kind != VOLCANO and (through_temple or tile.kind != TEMPLE)

            self._maps[key] = bfs([target], passable)
        return self._maps[key]

    def dist(self, a: Hex, b: Hex, through_temple: bool = False) -> int:
        return self.dist_map(b, through_temple).get(a, UNREACHABLE)

    # the turn's project ------------------------------------------------------------------

    def _spots(self, state: State, resource: str) -> list[Hex]:
        """Where a resource can be had: lying on tiles, or carried by the seat's tribes."""
        spots = [t.pos for t in state.tiles if getattr(t, resource)]
        # A tribe that carries something is on the board: its ``pos`` is never None.
        spots += [cast(Hex, state.tribes[i].pos) for i in seat_tribes(self.seat) if state.tribes[i].load == resource]
        return spots

    def _choose_project(self, state: State) -> Project | None:
        """The best hut or holy place site (near the temple and reachable by a tribe with
        the wood or stone it needs), or a hut to grow on when tribes run short."""
        seat = self.seat
        counts = rules.tribes_at(state)
        woods = self._spots(state, "wood") if self.wants_hut else []
        stones = self._spots(state, "stone") if self.wants_holy else []
        best: tuple[float, Project] | None = None
        for tile in state.tiles:
            here = counts.get(tile.pos)
            mine = here[seat] if here else 0
            rivals = sum(here) - mine if here else 0
            for score, project in self._site_options(state, tile, mine, rivals, woods, stones):
                self.reachable.add(project.kind)
                if best is None or (score, project) > best:
                    best = (score, project)
        return best[1] if best else None

    def _site_options(
        self, state: State, tile: Tile, mine: int, rivals: int, woods: list[Hex], stones: list[Hex]
    ) -> list[tuple[float, Project]]:
        """The projects ``tile`` allows, with their scores."""
        options: list[tuple[float, Project]] = []
        if tile.kind == PLAINS and tile.holy is None:
            near = self.dist(tile.pos, TEMPLE_POS)
            if woods and len(tile.huts) < 2:
                supply = min(self.dist(spot, tile.pos) for spot in woods)
                if supply < UNREACHABLE:
                    score = SITE_BASE + self.hut_urgency - 3 * near - 2 * supply + 2 * mine - 3 * rivals
                    options.append((score, Project("hut", tile.pos, "wood")))
            if stones and not tile.huts and rivals == 0:
                supply = min(self.dist(spot, tile.pos) for spot in stones)
                if supply < UNREACHABLE:
                    # Mana is what runs short: the first holy place comes before anything else.
                    bonus = FIRST_HOLY_BONUS if self.owned_holy == 0 else 0
                    score = SITE_BASE + bonus - 3 * near - 2 * supply + 2 * mine
                    options.append((score, Project("holy", tile.pos, "stone")))
        missing = WANTED_TRIBES - len(self._own_on_board(state))
        if missing > 0 and rules.can_grow(state, self.seat, tile):
            score = GROW_BASE + GROW_URGENCY * missing + 4 * min(mine, 2)
            options.append((score, Project("grow", tile.pos, "")))
        return options

    def _hungry_for_land(self) -> bool:
        """No reachable site to build on, or no stone left to raise the mana: discover."""
        if (self.wants_hut and "hut" not in self.reachable) or (self.wants_holy and "holy" not in self.reachable):
            return True
        player = self.state.players[self.seat]
        return player.max_mana < max(OFFERINGS) and not self._spots(self.state, "stone")

    def _frontier(self) -> list[Hex]:
        """Tiles a tribe can discover from, nearest the temple first."""
        tiles = self.tiles
        spots = [
            pos
            for pos, tile in tiles.items()
            if tile.kind not in (VOLCANO, TEMPLE) and any(n not in tiles for n in neighbours(pos))
        ]
        return sorted(spots, key=lambda pos: distance(pos, TEMPLE_POS))[:4]

    # the potential -------------------------------------------------------------------------

    def value(self, state: State) -> float:
        seat = self.seat
        player = state.players[seat]
        score: float = DELIVERED * len(player.delivered)
        if len(player.delivered) == len(OFFERINGS):
            return WIN
        # Every point of maximum up to the dearest marker (7) counts, whichever are left:
        # a rule that changed with the markers left would make delivering the 7 look bad.
        dearest = max(OFFERINGS)
        score += MAX_NEEDED * min(player.max_mana, dearest) + MAX_SPARE * max(0, player.max_mana - dearest)
        score += MANA * player.mana
        if state.turn.seat == seat and not state.over:
            score += INCOME * min(rules.mana_gain(state, seat), player.max_mana - player.mana)
        score += sum(HOLY_PLACE[: sum(t.holy == seat for t in state.tiles)])
        score += self._markers(state, player)
        score += self._jobs(state, player)
        if player.hand and len(self._own_on_board(state)) < 2:
            score -= STUCK  # no hut (so no marker in hand) can ever be built again
        score -= RIVAL_LOAD * sum(
            1 for i, t in enumerate(state.tribes) if t.load in ("wood", "stone") and tribe_owner(i) != seat
        )
        return score

    def _markers(self, state: State, player: Player) -> float:
        score = 0.0
        for tile in state.tiles:
            for hut in tile.huts:
                if hut.owner == self.seat and hut.offering:
                    score += MARKER_UNDER_HUT - STEP * self.dist(tile.pos, TEMPLE_POS)
        for index in seat_tribes(self.seat):
            tribe = state.tribes[index]
            if tribe.load == "offering":
                assert tribe.pos is not None  # a tribe that carries something is on the board
                score += MARKER_CARRIED + MARKER_AFFORDABLE * (player.mana >= tribe.offering)
                score -= OFFERING_STEP * self.dist(tribe.pos, TEMPLE_POS)
        return score

    def _jobs(self, state: State, player: Player) -> float:
        """The tribes, each tribe's best job (every job and every lying resource taken only
        as often as it exists), and a bonus when the project is ready for the action."""
        mine = [i for i in seat_tribes(self.seat) if state.tribes[i].pos is not None]
        score = float(sum(TRIBES[: len(mine)]))
        offers = self._job_offers(state, player, mine)
        offers.sort(key=lambda offer: (-offer[0], offer[1]))
        busy: set[int] = set()
        taken: dict[object, int] = {}
        for value, index, keys in offers:
            if index in busy or any(taken.get(key, 0) >= capacity for key, capacity in keys):
                continue
            busy.add(index)
            for key, _capacity in keys:
                taken[key] = taken.get(key, 0) + 1
            score += value
        return score + self._readiness(state, mine)

    def _job_offers(self, state: State, player: Player, mine: list[int]) -> list[Offer]:
        seat = self.seat
        wants_temple_stone = player.max_mana < MANA_CAP or player.mana < player.max_mana
        # The stones that still raise the maximum to the dearest marker are worth more
        # than the ones after them: the nearest carriers take those jobs first.
        raising = max(0, max(OFFERINGS) - player.max_mana)
        stone_jobs = ((STONE_JOB, (("raise", raising),)), (STONE_JOB // 2, ())) if raising else ((STONE_JOB // 2, ()),)
        project = self.project
        load = project.load if project else ""
        load_worth = WOOD_JOB if load == "wood" else SITE_STONE_JOB
        lying = {
            "stone": {t.pos: t.stone for t in state.tiles if t.stone},
            "wood": {t.pos: t.wood for t in state.tiles if t.wood},
        }
        markers = [t.pos for t in state.tiles if any(h.owner == seat and h.offering for h in t.huts)]
        stations = [t.pos for t in state.tiles if t.holy == seat]
        offers: list[Offer] = []
        # Distances looked up once: (map from the spot for walkers, steps on to the goal).
        to_temple = self.dist_map(TEMPLE_POS, False)
        stone_fetch = [
            (self.dist_map(spot, True), to_temple.get(spot, UNREACHABLE), spot, n) for spot, n in lying["stone"].items()
        ]
        load_fetch = []
        if load:
            assert project is not None  # ``load`` comes from the project
            to_site = self.dist_map(project.pos, False)
            load_fetch = [
                (self.dist_map(spot, True), to_site.get(spot, UNREACHABLE), spot, n) for spot, n in lying[load].items()
            ]
        walk_to = [(self.dist_map(spot, True), worth, key) for spot, worth, key in self._walk_jobs(markers, stations)]
        for index in mine:
            pos, carried = state.tribes[index].pos, state.tribes[index].load
            assert pos is not None  # ``mine`` holds only tribes on the board
            if carried == "offering":
                continue
            if carried == "stone" and wants_temple_stone:
                walk = to_temple.get(pos, UNREACHABLE)
                offers += [(worth - STEP * walk, index, keys) for worth, keys in stone_jobs]
            if load and carried == load:
                offers.append((load_worth - STEP * to_site.get(pos, UNREACHABLE), index, (("load", 1),)))
            if not carried:
                if wants_temple_stone:
                    for walks, onward, spot, n in stone_fetch:
                        walk = walks.get(pos, UNREACHABLE) + onward
                        for worth, keys in stone_jobs:
                            offers.append((worth - PICKUP_GAP - STEP * walk, index, ((spot, n), *keys)))
                for walks, onward, spot, n in load_fetch:
                    walk = walks.get(pos, UNREACHABLE) + onward
                    offers.append((load_worth - PICKUP_GAP - STEP * walk, index, (("load", 1), (spot, n))))
            for walks, worth, key in walk_to:
                if key[0][0] != "marker" or not carried:
                    offers.append((worth - STEP * walks.get(pos, UNREACHABLE), index, (key,)))
        return [offer for offer in offers if offer[0] > 0]

    def _walk_jobs(self, markers: list[Hex], stations: list[Hex]) -> list[WalkJob]:
        """Jobs that only need a tribe to walk somewhere: (where, worth, (job, how many))."""
        jobs: list[WalkJob] = [(spot, FETCH_MARKER_JOB, (("marker", spot), 1)) for spot in markers]
        project = self.project
        if project:
            jobs.append((project.pos, self.partner_worth, (("partner",), 2 - bool(project.load))))
        jobs += [(spot, STATION_JOB, (("station", spot), 1)) for spot in stations]
        jobs += [(spot, EXPLORE_JOB - distance(spot, TEMPLE_POS), (("explore",), 1)) for spot in self.frontier]
        return jobs

    def _readiness(self, state: State, mine: list[int]) -> float:
        project = self.project
        if project is None:
            return 0.0
        here = [state.tribes[i] for i in mine if state.tribes[i].pos == project.pos]
        if len(here) < 2:
            return 0.0
        if project.kind == "grow":
            return GROW_READY if rules.can_grow(state, self.seat, self.tiles[project.pos]) else 0.0
        return SITE_READY if any(t.load == project.load for t in here) else 0.0

    # choosing a step -----------------------------------------------------------------

    def best_step(self, moves: list[str]) -> str:
        base = self.value(self.state)
        best_move, best_value = "end", base + EPSILON
        for move in moves:
            verb = move.split()[0]
            if verb == "end":
                continue
            value = self.estimate(move, verb, base)
            if value is None:
                continue
            if verb in FREE_STEPS and value <= base:
                continue  # else noise had Easy pick a stone up and put it down again, 20 times a turn
            value += self.rng.uniform(0, NOISE[self.level]) if NOISE[self.level] else 0
            if value > best_value:
                best_move, best_value = move, value
        return best_move

    def estimate(self, move: str, verb: str, base: float) -> float | None:
        """The potential after ``move``; discoveries and draws by expectation."""
        state = self.state
        if verb == "discover":
            if not self.hungry:
                return None
            _verb, name, direction = move.split()
            pos = state.tribes[rules.parse_tribe(name)].pos
            assert pos is not None  # only a tribe on the board discovers
            target = step(pos, direction)
            return base + EXPLORE - STEP - distance(target, TEMPLE_POS)
        if verb == "draw":
            return base + DRAW_CARD
        if verb == "steal" and self.level == EASY:
            return None
        if verb == "hut" and int(move.split()[2]) != min(state.players[self.seat].hand):
            return None  # the cheapest marker goes under the first hut
        if verb == "play":
            return self.card_value(move, base)
        return self.value(effects.play(state, move, settled=False)[0])

    def card_value(self, move: str, base: float) -> float | None:
        words = move.split()
        name = words[1]
        state = self.state
        if name in ("holy-stone", "mana-theft", "priest"):
            return self.value(effects.play(state, move, settled=False)[0])
        if name == "endurance":
            return base + ENDURANCE_USE if state.turn.phase == MOVE and state.turn.mp == 0 else None
        if name == "fertility":
            growing = state.turn.phase == ACTION and any(m.startswith("grow") for m in rules.legal(state))
            return base + FERTILITY_READY if growing and len(rules.supply_tribes(state, self.seat)) >= 2 else None
        if self.level == EASY:
            return None
        if name == "teleport":
            return base + CARD_TRICK if self.teleport_target(rules.parse_tribe(words[2])) else None
        if name == "expulsion":
            pos = rules.parse_hex(words[2])
            hut = self.tiles[pos].huts[int(words[3]) - 1]
            return base + CARD_TRICK if self.expulsion_target(pos, hut) else None
        return None

    # card targets, volcanoes, resources ------------------------------------------------

    def teleport_target(self, index: int) -> Hex | None:
        """Own affordable offering: into the temple. Own tribe the project misses and
        that cannot walk there this turn: the project's site. A rival's offering near the
        temple: as far away as possible."""
        state = self.state
        tribe = state.tribes[index]
        assert tribe.pos is not None  # only a tribe on the board is teleported
        if tribe_owner(index) == self.seat:
            return self._own_teleport(tribe)
        if tribe.load != "offering" or self.dist(tribe.pos, TEMPLE_POS) > 2:
            return None
        return self._farthest(lambda t: t.kind != VOLCANO)

    def _own_teleport(self, tribe: Tribe) -> Hex | None:
        state = self.state
        assert tribe.pos is not None  # only a tribe on the board is teleported
        if tribe.load == "offering":
            if state.players[self.seat].mana < tribe.offering or self.dist(tribe.pos, TEMPLE_POS) <= state.turn.mp:
                return None
            return TEMPLE_POS  # delivered on arrival
        project = self.project
        if project is None or tribe.pos == project.pos or tribe.load not in ("", project.load):
            return None
        there = [t for t in (state.tribes[i] for i in seat_tribes(self.seat)) if t.pos == project.pos]
        missing_load = bool(project.load) and not any(t.load == project.load for t in there)
        useful = len(there) < 2 or (missing_load and tribe.load == project.load)
        far = self.dist(tribe.pos, project.pos, not tribe.load) > state.turn.mp
        return project.pos if useful and far else None

    def expulsion_target(self, pos: Hex, hut: Hut) -> Hex | None:
        """A rival's marker next to the temple goes as far away as possible."""
        if hut.owner in (self.seat, -1) or not hut.offering or self.dist(pos, TEMPLE_POS) > 2:
            return None
        return self._farthest(lambda t: t.kind == PLAINS and t.pos != pos and len(t.huts) < 2 and t.holy is None)

    def _farthest(self, fits: Callable[[Tile], bool]) -> Hex | None:
        spots = [t.pos for t in self.state.tiles if fits(t)]
        return max(spots, key=lambda p: (distance(p, TEMPLE_POS), p)) if spots else None

    def card_target(self, moves: list[str]) -> str:
        pending = self.state.turn.pending
        assert pending is not None  # a target is chosen only while a card waits for it
        target = None
        if pending.kind == "teleport":
            target = self.teleport_target(pending.tribe)
        elif pending.kind == "expulsion":
            assert pending.pos is not None  # an expulsion always names the hut's tile
            target = self.expulsion_target(pending.pos, self.tiles[pending.pos].huts[pending.hut])
        move = f"to {target[0]},{target[1]}" if target else ""
        return move if move in moves else moves[0]

    def volcano_site(self, moves: list[str]) -> str:
        """Far from the temple and from the seat's own tribes."""
        own = [t.pos for t in (self.state.tribes[i] for i in seat_tribes(self.seat)) if t.pos is not None]

        def score(move: str) -> float:
            pos = rules.parse_hex(move.split()[1])
            return distance(pos, TEMPLE_POS) + 0.5 * min((distance(pos, p) for p in own), default=0)

        return max(moves, key=score)

    def resource_site(self, moves: list[str]) -> str:
        """Where the seat's tribes are closest."""
        own = [t.pos for t in (self.state.tribes[i] for i in seat_tribes(self.seat)) if t.pos is not None]

        def score(move: str) -> float:
            pos = rules.parse_hex(move.split()[1])
            return -min((self.dist(p, pos, True) for p in own), default=0)

        return max(moves, key=score)
