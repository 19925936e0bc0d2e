"""Seeded randomness. Every random outcome is derived from the game's seed and the
number of moves played, so a stored game replays exactly from seed + move list."""

from __future__ import annotations

import hashlib
import random
import secrets

SEED_BITS = 63


def new_seed() -> int:
    """A fresh unpredictable seed (never derived from the clock or an id)."""
    return secrets.randbits(SEED_BITS)


def rng_for(seed: int, ply: int, *salt: object) -> random.Random:
    """An independent generator for the random event at ``ply`` (``salt`` tells events apart)."""
    material = ":".join(str(part) for part in (seed, ply, *salt)).encode()
    return random.Random(int.from_bytes(hashlib.sha256(material).digest()[:8], "big"))
