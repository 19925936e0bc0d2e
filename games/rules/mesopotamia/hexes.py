"""Flat-topped hex geometry in axial coordinates (q, r)."""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable

Hex = tuple[int, int]

DIRECTIONS: dict[str, Hex] = {"n": (0, -1), "ne": (1, -1), "se": (1, 0), "s": (0, 1), "sw": (-1, 1), "nw": (-1, 0)}
OFFSETS = tuple(DIRECTIONS.values())


def step(pos: Hex, direction: str) -> Hex:
    dq, dr = DIRECTIONS[direction]
    return (pos[0] + dq, pos[1] + dr)


def neighbours(pos: Hex) -> list[Hex]:
    return [(pos[0] + dq, pos[1] + dr) for dq, dr in OFFSETS]


def distance(a: Hex, b: Hex) -> int:
    dq, dr = a[0] - b[0], a[1] - b[1]
    return (abs(dq) + abs(dr) + abs(dq + dr)) // 2


def rim(occupied: Iterable[Hex]) -> set[Hex]:
    """The empty hexes touching at least one occupied hex."""
    taken = set(occupied)
    return {n for pos in taken for n in neighbours(pos) if n not in taken}


def bfs(starts: Iterable[Hex], passable: Callable[[Hex], bool]) -> dict[Hex, int]:
    """Steps from the nearest start to every hex reachable through ``passable`` hexes."""
    dist = {pos: 0 for pos in starts}
    queue = deque(dist)
    while queue:
        pos = queue.popleft()
        for n in neighbours(pos):
            if n not in dist and passable(n):
                dist[n] = dist[pos] + 1
                queue.append(n)
    return dist
