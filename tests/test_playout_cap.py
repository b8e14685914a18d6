"""Playout-cap randomisation in expert iteration's searched games (``search_full_share``, ``search_fast_iterations``):
a share of the decisions searched in full and kept as rows, the others searched briefly and only played; the
default keeps every decision; bad settings named."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
import torch

import seasons_training.expert_compiled as expert_compiled
from seasons_agents.learned import shipped_model_path
from seasons_agents.search_kernel import CompiledSearch
from seasons_training.config import make_config
from seasons_training.expert import SearchJob, search_game

torch.set_num_threads(1)

JOB = SearchJob(str(shipped_model_path()), 2, "apprentice", 5, 0, 12, 1.5, sample_moves=4)


def _searches(monkeypatch: pytest.MonkeyPatch) -> list[tuple[bool, int]]:
    """Each search of the games played from now on, as (fast, the root's visits): a full one is ``_puct_search``'s,
    a fast one a plain ``CompiledSearch.run_row``."""
    seen: list[tuple[bool, int]] = []
    full, fast = expert_compiled._puct_search, CompiledSearch.run_row

    def recorded(searcher, kind: bool):
        def search(*args, **kwargs):
            found = searcher(*args, **kwargs)
            seen.append((kind, int(found[0].sum())))
            return found

        return search

    monkeypatch.setattr(expert_compiled, "_puct_search", recorded(full, False))
    monkeypatch.setattr(CompiledSearch, "run_row", recorded(fast, True))
    return seen


def test_a_share_of_the_decisions_is_searched_in_full_and_only_those_are_rows(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _searches(monkeypatch)
    rows = search_game(replace(JOB, full_share=0.3, fast_iterations=3))
    full = [visits for fast, visits in seen if not fast]
    brief = [visits for fast, visits in seen if fast]
    assert set(full) == {12} and set(brief) == {3}  # the full budget, and the fast one
    assert len(rows["seat"]) == len(full)  # a row for each full search, none for the fast ones
    assert 0.15 < len(full) / len(seen) < 0.45, (len(full), len(seen))
    assert np.allclose(rows["target"].sum(axis=1), 1.0)
    again = search_game(replace(JOB, full_share=0.3, fast_iterations=3))  # seeded: the same game and rows
    assert all(np.array_equal(rows[k], again[k]) for k in rows)


def test_by_default_every_searched_decision_is_searched_in_full_and_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    seen = _searches(monkeypatch)
    rows = search_game(JOB)
    assert seen and all(not fast and visits == 12 for fast, visits in seen)
    assert len(rows["seat"]) == len(seen)
    config = make_config("expert-smoke", ["search_full_share=0.25", "search_iterations=16", "search_fast_iterations=4"])
    job = _job_of(config)
    assert (job.full_share, job.fast_iterations) == (0.25, 4)
    assert (_job_of(make_config("expert-smoke", [])).full_share) == 1.0


def _job_of(config) -> SearchJob:
    from seasons_training.expert import ExpertIteration

    run = ExpertIteration.__new__(ExpertIteration)
    run.config = config
    return run._job("model.pt", 1, 0)


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (["search_full_share=0"], "search_full_share: must be above 0 and at most 1; got 0.0"),
        (["search_full_share=1.5"], "search_full_share: must be above 0 and at most 1; got 1.5"),
        (["search_full_share=0.5", "expert_root=gumbel"], "search_full_share: below 1 needs expert_search='kernels'"),
        (["search_full_share=0.5", "expert_search=reference"], "search_full_share: below 1 needs expert_search="),
        (["search_full_share=0.5", "search_fast_iterations=0"], "search_fast_iterations: must be at least 1 and below"),
        (
            ["search_full_share=0.5", "search_iterations=8", "search_fast_iterations=8"],
            r"search_fast_iterations: must be at least 1 and below search_iterations \(8\); got 8",
        ),
    ],
)
def test_bad_playout_cap_settings_are_named(settings: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make_config("expert-smoke", settings)
