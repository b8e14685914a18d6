"""The counter-based chance stream: one game's draws and a batch's numpy draws agree exactly."""

from __future__ import annotations

import numpy as np
import pytest

from seasons_env.engine.chance import MASK64, Chance, LegacyChance, below_batch, key_of_seed, word, words


def test_word_is_splitmix64():
    # SplitMix64 seeded with 1234567: its first outputs (from the reference C code's algorithm)
    state = 1234567
    expected = []
    for _ in range(3):
        state = (state + 0x9E3779B97F4A7C15) & MASK64
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        expected.append(z ^ (z >> 31))
    assert (
        [word(1234567, k) for k in range(3)]
        == expected
        == [6457827717110365317, 3203168211198807973, 9817491932198370423]
    )


def test_batch_words_and_bounded_draws_equal_the_scalar_ones():
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, size=500, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    counters = rng.integers(0, 10**6, size=500, dtype=np.uint64)
    bounds = rng.integers(1, 2**32, size=500, dtype=np.uint64)
    assert words(keys, counters).tolist() == [word(int(k), int(c)) for k, c in zip(keys, counters, strict=True)]
    expected = [(word(int(k), int(c)) * int(n)) >> 64 for k, c, n in zip(keys, counters, bounds, strict=True)]
    assert below_batch(keys, counters, bounds).tolist() == expected
    assert below_batch(keys, counters, 6).tolist() == [
        (word(int(k), int(c)) * 6) >> 64 for k, c in zip(keys, counters, strict=True)
    ]


def test_a_stream_is_its_key_and_counter():
    a = Chance.from_seed(7)
    first = a.faces(10, 6)
    b = Chance(a.key, 0)
    assert b.faces(10, 6) == first and b == a and b.counter == 10
    c = a.copy()
    assert c.permutation(20) == a.permutation(20) and c == a


def test_operations():
    chance = Chance.from_seed(3)
    order = chance.permutation(100)
    assert sorted(order) == list(range(100)) and order != list(range(100))
    picked = chance.sample(5, 3)
    assert picked == sorted(set(picked)) and len(picked) == 3 and all(0 <= d < 5 for d in picked)
    assert chance.sample(5, 5) == [0, 1, 2, 3, 4]
    counts = np.bincount(chance.faces(60_000, 6), minlength=6)
    chi_square = float(((counts - 10_000) ** 2 / 10_000).sum())
    assert chi_square < 20.5  # 5 degrees of freedom: p = 0.001


def test_seeds_give_unrelated_streams():
    keys = {key_of_seed(s) for s in range(1000)} | {key_of_seed(2**64 + 5), key_of_seed(2**200)}
    assert len(keys) == 1002
    assert Chance.from_seed(0).faces(8, 6) != Chance.from_seed(1).faces(8, 6)


@pytest.mark.parametrize("seed", [0, 11])
def test_legacy_chance_draws_as_the_generator_did(seed):
    legacy = LegacyChance(np.random.default_rng(seed))
    reference = np.random.default_rng(seed)
    assert legacy.sample(5, 3) == sorted(int(d) for d in reference.choice(5, 3, replace=False))
    assert legacy.permutation(60) == [int(i) for i in reference.permutation(60)]
    assert legacy.faces(4, 6) == [int(f) for f in reference.integers(6, size=4)]
    assert legacy.below(6) == int(reference.integers(6))
    copy = legacy.copy()
    assert copy.faces(5, 6) == legacy.faces(5, 6)  # a copy continues the same stream, independently
