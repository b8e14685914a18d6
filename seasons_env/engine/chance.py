"""Chance: the only source of randomness of a game, as one counter-based stream.

A game's chance is a 64-bit ``key`` (made from its seed) and a ``counter`` (the draws made so far). Draw ``k``
is ``word(key, k)``: SplitMix64's ``k``-th output for the state ``key``, a fixed integer hash of ``key + (k + 1)
* γ``. A draw therefore depends on nothing but ``(key, k)``: a position continues from its two numbers, a
clone copies them, and a batch of games computes its draws together in numpy (``words``, ``below_batch``)
exactly as each game computes them alone (``tests/test_chance.py`` checks both against each other).

Every use of chance goes through four operations, each defined here once:

- ``below(n)``: an integer in ``0..n-1`` (the high 64 bits of ``word * n``, Lemire's multiply-shift; its bias,
  at most ``n / 2**64``, is far below anything a game can show);
- ``faces(count, sides)``: ``count`` independent ``below(sides)`` (the dice of a round);
- ``permutation(size)``: a Fisher-Yates shuffle, from the last place down, one ``below`` per place;
- ``sample(size, count)``: ``count`` distinct values of ``0..size-1`` (the first ``count`` places of a partial
  Fisher-Yates shuffle from the front), sorted.

``LegacyChance`` replays the numpy ``Generator`` calls of positions written before the stream existed
(state format versions 1 and 2), so that they continue exactly as they would have.
"""

from __future__ import annotations

import secrets

import numpy as np

MASK64 = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15  # SplitMix64's increment: the golden ratio's 64-bit fraction
MIX_M1 = 0xBF58476D1CE4E5B9
MIX_M2 = 0x94D049BB133111EB
#: Mixed into the seed so that ``key`` is not the seed itself (seed 0 and 1 give unrelated streams).
SEED_DOMAIN = 0x5EA5_0E57_C4A2_CE00


def mix(z: int) -> int:
    """SplitMix64's finalizer (Stafford's variant 13): a bijection of 64-bit integers."""
    z = ((z ^ (z >> 30)) * MIX_M1) & MASK64
    z = ((z ^ (z >> 27)) * MIX_M2) & MASK64
    return z ^ (z >> 31)


def word(key: int, counter: int) -> int:
    """Draw ``counter`` of the stream ``key``: a uniform 64-bit integer."""
    return mix((key + (counter + 1) * GAMMA) & MASK64)


def key_of_seed(seed: int | None) -> int:
    """The stream key of a game seed (any non-negative int); ``None`` draws one from the OS."""
    if seed is None:
        return secrets.randbits(64)
    return mix((seed ^ SEED_DOMAIN) & MASK64) if seed <= MASK64 else mix(hash_big(seed))


def hash_big(seed: int) -> int:
    """A seed wider than 64 bits folded into 64, every bit counted."""
    folded = SEED_DOMAIN
    while seed:
        folded = mix((folded ^ (seed & MASK64)) & MASK64)
        seed >>= 64
    return folded


class Chance:
    """A game's counter-based stream: ``key`` and ``counter`` are all its state."""

    __slots__ = ("counter", "key")

    def __init__(self, key: int, counter: int = 0) -> None:
        self.key = key
        self.counter = counter

    @classmethod
    def from_seed(cls, seed: int | None) -> Chance:
        return cls(key_of_seed(seed))

    def copy(self) -> Chance:
        return Chance(self.key, self.counter)

    def below(self, n: int) -> int:
        """A uniform integer in ``0..n-1`` (``n`` below 2**32)."""
        value = (word(self.key, self.counter) * n) >> 64
        self.counter += 1
        return value

    def faces(self, count: int, sides: int) -> list[int]:
        return [self.below(sides) for _ in range(count)]

    def permutation(self, size: int) -> list[int]:
        order = list(range(size))
        for place in range(size - 1, 0, -1):
            other = self.below(place + 1)
            order[place], order[other] = order[other], order[place]
        return order

    def sample(self, size: int, count: int) -> list[int]:
        order = list(range(size))
        for place in range(count):
            other = place + self.below(size - place)
            order[place], order[other] = order[other], order[place]
        return sorted(order[:count])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Chance) and (self.key, self.counter) == (other.key, other.counter)

    def __repr__(self) -> str:
        return f"Chance(key={self.key:#018x}, counter={self.counter})"


class LegacyChance:
    """The numpy ``Generator`` of a position written before the counter-based stream (state versions 1-2): the
    same four operations, drawn with the same ``Generator`` calls as then. Clones share the generator until one
    of them draws (copy on write)."""

    __slots__ = ("_box",)

    def __init__(self, generator: np.random.Generator) -> None:
        self._box = [generator, False]

    def copy(self) -> LegacyChance:
        self._box[1] = True
        other = LegacyChance.__new__(LegacyChance)
        other._box = [self._box[0], True]
        return other

    def generator(self) -> np.random.Generator:
        box = self._box
        if box[1]:  # shared with a clone: take a private copy before drawing
            shared = box[0].bit_generator
            private = type(shared)(0)  # a fixed seed avoids asking the OS for entropy; the state is replaced
            private.state = shared.state
            box[0] = np.random.Generator(private)
            box[1] = False
        return box[0]

    def below(self, n: int) -> int:
        return int(self.generator().integers(n))

    def faces(self, count: int, sides: int) -> list[int]:
        return [int(f) for f in self.generator().integers(sides, size=count)]

    def permutation(self, size: int) -> list[int]:
        return [int(i) for i in self.generator().permutation(size)]

    def sample(self, size: int, count: int) -> list[int]:
        return sorted(int(d) for d in self.generator().choice(size, count, replace=False))


# ---------------------------------------------------------------------------- batches (numpy)


def words(keys: np.ndarray, counters: np.ndarray) -> np.ndarray:
    """``word(key, counter)`` for arrays of keys and counters (uint64, any shape), in numpy's wrapping arithmetic."""
    keys = np.asarray(keys, dtype=np.uint64)
    counters = np.asarray(counters, dtype=np.uint64)
    with np.errstate(over="ignore"):
        z = keys + (counters + np.uint64(1)) * np.uint64(GAMMA)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(MIX_M1)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(MIX_M2)
    return z ^ (z >> np.uint64(31))


def below_batch(keys: np.ndarray, counters: np.ndarray, n: np.ndarray | int) -> np.ndarray:
    """``below(n)`` at draw ``counters`` of streams ``keys`` (``n`` below 2**32, scalar or per element): the high
    64 bits of ``word * n``, computed exactly from 32-bit halves."""
    w = words(keys, counters)
    n = np.asarray(n, dtype=np.uint64)
    high, low = w >> np.uint64(32), w & np.uint64(0xFFFFFFFF)
    # word * n = high * n * 2**32 + low * n; both products fit in 64 bits because n < 2**32.
    return (high * n + ((low * n) >> np.uint64(32))) >> np.uint64(32)
