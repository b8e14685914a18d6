"""seasons_training.selfplay.SelfPlayGames on batches (``VectorGame``): a saved state continues identically, and every
game it plays is a legal reference game (checked against reference games stepped alongside)."""

from __future__ import annotations

import io

import numpy as np
import pytest
import torch

from seasons_agents.network import NetworkConfig, PolicyValueNet
from seasons_env import Game, IllegalActionError
from seasons_env.encoding import action_mask, encode_observation
from seasons_env.vector import VectorGame
from seasons_training.config import make_config
from seasons_training.data import final_margins
from seasons_training.ppo import Trainer
from seasons_training.selfplay import Deal, SelfPlayGames
from seasons_training.snapshot_policy import SnapshotPolicy

OPPONENTS = ("random", "heuristic", "snapshot:0")


def tiny_snapshot() -> SnapshotPolicy:
    torch.manual_seed(0)
    return SnapshotPolicy(PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)))


def schedule_of(players: tuple[int, ...], games: int | None = None):
    """Deals of ``players`` counts, any seat, the three opponent kinds; ``games`` in all (None: no end)."""
    dealt = [0]

    def schedule(rng: np.random.Generator) -> Deal | None:
        if games is not None and dealt[0] >= games:
            return None
        dealt[0] += 1
        n = players[int(rng.integers(len(players)))]
        return Deal(n, int(rng.integers(n)), OPPONENTS[int(rng.integers(3))], int(rng.integers(2**40)))

    return schedule


def learner_actions(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per active slot (0 for idle ones)."""
    actions = np.zeros(len(mask), dtype=np.int64)
    for slot in np.flatnonzero(mask.any(axis=1)).tolist():
        actions[slot] = rng.choice(np.flatnonzero(mask[slot]))
    return actions


def continue_side_by_side(vec: SelfPlayGames, twin: SelfPlayGames, rng: np.random.Generator, steps: int) -> list:
    """Load ``vec``'s state (through a weights_only torch file) into ``twin``, then step both ``steps`` times with
    the same learner actions, checking they stay equal; ``vec``'s finished records."""
    buffer = io.BytesIO()
    torch.save(vec.state_dict(), buffer)
    buffer.seek(0)
    twin.load_state_dict(torch.load(buffer, weights_only=True))
    twin_rng = np.random.default_rng()
    twin_rng.bit_generator.state = rng.bit_generator.state
    finished = []
    for _ in range(steps):
        obs, mask = vec.observe()
        twin_obs, twin_mask = twin.observe()
        assert np.array_equal(obs, twin_obs) and np.array_equal(mask, twin_mask)
        records = vec.step(learner_actions(mask, rng))
        assert twin.step(learner_actions(twin_mask, twin_rng)) == records
        assert twin.decisions == vec.decisions
        finished += records
    return finished


def test_a_saved_state_continues_identically() -> None:
    """Saved mid-run (through a weights_only torch file), loaded into a differently seeded instance: the same
    observations, masks, finished records and decision counts from then on."""
    snapshot = tiny_snapshot()
    vec = SelfPlayGames(6, "apprentice", schedule_of((2, 3)), {"snapshot:0": snapshot}, seed=5)
    vec.start()
    rng = np.random.default_rng(1)
    for _ in range(30):
        vec.step(learner_actions(vec.observe()[1], rng))
    assert {d.opponent for d in vec.deals} == set(OPPONENTS)  # a heuristic agent's state is saved mid-game
    twin = SelfPlayGames(6, "apprentice", schedule_of((2, 3)), {"snapshot:0": snapshot}, seed=123)
    finished = continue_side_by_side(vec, twin, rng, 120)
    assert {r.players for r in finished} == {2, 3} and {r.opponent for r in finished} == set(OPPONENTS)


def test_the_same_seed_gives_the_same_run_on_either_engine() -> None:
    snapshot = tiny_snapshot()
    runs = []
    for engine in ("reference", "reference", "kernels"):
        vec = SelfPlayGames(4, "apprentice", schedule_of((2, 3)), {"snapshot:0": snapshot}, seed=2, engine=engine)
        records = vec.start()
        rng = np.random.default_rng(0)
        observed = []
        for _ in range(70):
            obs, mask = vec.observe()
            observed.append((obs.copy(), mask.copy()))
            records += vec.step(learner_actions(mask, rng))
        runs.append((observed, records, vec.decisions))
    first = runs[0]
    assert first[1]  # some games finished
    for observed, records, decisions in runs[1:]:
        assert records == first[1] and decisions == first[2]
        for (obs, mask), (obs_0, mask_0) in zip(observed, first[0], strict=True):
            assert np.array_equal(obs, obs_0) and np.array_equal(mask, mask_0)


@pytest.mark.parametrize("engine", ["reference", "kernels"])
def test_the_games_played_are_legal_reference_games(monkeypatch, engine: str) -> None:
    """Every action any batch applies is legal in a reference game stepped alongside; the learner's observation
    and mask are the reference's for its seat; each Finished record is the reference game's result; at the end
    every running game equals its reference (generator included). 2 and 3 players, random, heuristic and
    snapshot opponents, until a fixed schedule of games has been played out."""
    references: dict[tuple[int, int], Game] = {}  # (id of the batch, row) -> reference game
    ended: dict[int, list[tuple[list[int], list[int]]]] = {}  # slot -> the reference results, in order
    applied = [0]
    put, new_games, apply = VectorGame.put, VectorGame.new_games, VectorGame.apply

    def checked_put(batch, indices, games):
        for row, game in zip(np.asarray(indices).tolist(), games, strict=True):
            references[id(batch), row] = game.clone()
        return put(batch, indices, games)

    def checked_new_games(batch, indices, seeds):  # the deal's game: Game.new of its seed
        for row, seed in zip(np.asarray(indices).tolist(), seeds, strict=True):
            references[id(batch), row] = Game.new(batch.num_players, batch.level, seed=seed)
        return new_games(batch, indices, seeds)

    def checked_apply(batch, actions, where=None):
        for row in np.flatnonzero(where & ~batch.is_over).tolist():
            reference = references[id(batch), row]
            action = int(actions[row])
            assert action in reference.legal_action_list(), (row, action)
            reference.apply(action)
            applied[0] += 1
            if reference.is_over:
                ended.setdefault(row, []).append((reference.scores(), reference.winners()))
        return apply(batch, actions, where)

    monkeypatch.setattr(VectorGame, "put", checked_put)
    monkeypatch.setattr(VectorGame, "new_games", checked_new_games)
    monkeypatch.setattr(VectorGame, "apply", checked_apply)
    vec = SelfPlayGames(5, "apprentice", schedule_of((2, 3), games=12), {"snapshot:0": tiny_snapshot()}, 7, engine)
    finished = vec.start()
    rng = np.random.default_rng(3)
    while vec.active().any():
        obs, mask = vec.observe()
        for slot in np.flatnonzero(vec.active()).tolist():
            deal = vec.deals[slot]
            reference = references[id(vec.batches[deal.players]), slot]
            assert reference.current_player == deal.seat
            assert np.array_equal(obs[slot], encode_observation(reference, deal.seat))
            assert np.array_equal(mask[slot], action_mask(reference, deal.seat).astype(bool))
            assert vec.game(slot).to_dict() == reference.to_dict()
        assert not obs[~vec.active()].any() and not mask[~vec.active()].any()
        finished += vec.step(learner_actions(mask, rng))
    assert applied[0] == vec.decisions > 300
    assert len(finished) == 12 and {r.players for r in finished} == {2, 3}
    assert {r.opponent for r in finished} == set(OPPONENTS)
    for slot in range(5):
        records = [r for r in finished if r.slot == slot]
        results = ended.get(slot, [])
        assert len(records) == len(results)
        for record, (scores, winners) in zip(records, results, strict=True):
            assert record.score == scores[record.seat]
            assert record.margin == final_margins(scores)[record.seat]
            assert record.win == (1 / len(winners) if record.seat in winners else 0.0)


def test_bad_deals_and_saved_states_are_named() -> None:
    def deal_of(opponent: str, players: int = 2, seat: int = 0):
        return lambda rng: Deal(players, seat, opponent, 1)

    for schedule, message in [
        (deal_of("snapshot:9"), r"opponent must be one of random, heuristic, ismcts, snapshot:0; got 'snapshot:9'"),
        (deal_of("random", players=5), "players must be 2, 3 or 4; got 5"),
        (deal_of("random", seat=2), r"seat must be 0..1; got 2"),
    ]:
        with pytest.raises(ValueError, match=message):
            SelfPlayGames(2, "apprentice", schedule, {"snapshot:0": tiny_snapshot()}, 0).start()
    with pytest.raises(ValueError, match="engine"):
        SelfPlayGames(2, "apprentice", deal_of("random"), {}, 0, engine="gpu")
    vec = SelfPlayGames(2, "apprentice", deal_of("random"), {}, 0)
    vec.start()
    with pytest.raises(ValueError, match="actions must be 2 integer action ids"):
        vec.step(np.zeros(2, dtype=np.float32))
    state = vec.state_dict()
    with pytest.raises(ValueError, match="the saved games are 2; this run has 3 slots"):
        SelfPlayGames(3, "apprentice", deal_of("random"), {}, 0).load_state_dict(state)
    state["deals"][1] = [3, 0, "random", 1]
    with pytest.raises(ValueError, match=r"saved slot 1: its game \(2 players, apprentice, over: False\) is not a"):
        SelfPlayGames(2, "apprentice", deal_of("random"), {}, 0).load_state_dict(state)
    # a heuristic agent's saved state (generator and library-split plan) is checked before it is used
    vec = SelfPlayGames(2, "apprentice", deal_of("heuristic"), {}, 0)
    vec.start()
    good = vec.state_dict()
    for bad, message in [
        ({"rng": good["heuristics"][0]["rng"]}, "a heuristic agent's state is a dict of rng and plan"),
        ({**good["heuristics"][0], "plan": [0, [1, 2], "x"]}, "a heuristic agent's plan is None or"),
        (
            {**good["heuristics"][0], "rng": {"bit_generator": "MT19937"}},
            "a heuristic agent.s rng state is not a PCG64 state",
        ),
    ]:
        state = {**good, "heuristics": [good["heuristics"][0], bad]}
        with pytest.raises(ValueError, match=f"saved slot 1: {message}"):
            SelfPlayGames(2, "apprentice", deal_of("heuristic"), {}, 0).load_state_dict(state)
    twin = SelfPlayGames(2, "apprentice", deal_of("heuristic"), {}, 0)
    twin.load_state_dict(good)
    assert twin.state_dict() == good


def test_an_illegal_learner_action_changes_no_game() -> None:
    """Checked in every batch before any game moves: slot 1's 3-player game has an illegal action, and slot 0's
    2-player game (in the batch stepped first) does not move either."""
    deals = iter([Deal(2, 0, "random", 1), Deal(3, 0, "random", 2)])
    vec = SelfPlayGames(2, "apprentice", lambda rng: next(deals, None), {}, 0)
    vec.start()
    _, mask = vec.observe()
    before, decisions = [vec.game(slot).to_dict() for slot in range(2)], vec.decisions
    actions = np.array([np.flatnonzero(mask[0])[0], np.flatnonzero(~mask[1])[0]])
    for bad in (actions, np.array([actions[0], -1])):
        with pytest.raises(IllegalActionError, match=r"slot 1: the learner's action -?\d+ is not legal in game 1: "):
            vec.step(bad)
        assert [vec.game(slot).to_dict() for slot in range(2)] == before and vec.decisions == decisions
    vec.step(np.array([np.flatnonzero(mask[0])[0], np.flatnonzero(mask[1])[0]]))
    assert vec.decisions >= decisions + 2


@pytest.mark.parametrize("engine", ["reference", "kernels"])
def test_the_trainer_plays_on_the_configured_engine(tmp_path, engine: str) -> None:
    config = make_config("smoke", ["init=", f"engine={engine}", "envs=2"])
    trainer = Trainer(tmp_path, config, log=lambda _: None)
    assert trainer.vec.engine == engine and [b.engine for b in trainer.vec.batches.values()] == [engine]


def test_ismcts_opponents_search_at_their_budget_and_resume_exactly(monkeypatch) -> None:
    """ISMCTS seats are answered by each game's own ``ISMCTSAgent`` at the configured budget, from a view
    determinized for their seat; a state saved mid-game (its agents' generators included) continues identically."""
    from seasons_agents.ismcts import ISMCTSAgent

    searched: list[tuple[int, int]] = []  # (iterations run, budget) of every ISMCTS search
    act = ISMCTSAgent.act

    def counted_act(agent, view, seat, legal):
        action = act(agent, view, seat, legal)
        if agent.last_iterations:
            searched.append((agent.last_iterations, agent.iterations))
        return action

    monkeypatch.setattr(ISMCTSAgent, "act", counted_act)
    opponents = ("ismcts", "heuristic")

    def schedule(rng: np.random.Generator) -> Deal:
        n = int(rng.integers(2, 4))
        return Deal(n, int(rng.integers(n)), opponents[int(rng.integers(2))], int(rng.integers(2**40)))

    vec = SelfPlayGames(4, "apprentice", schedule, {}, seed=11, ismcts_iterations=6)
    vec.start()
    rng = np.random.default_rng(2)
    for _ in range(25):
        vec.step(learner_actions(vec.observe()[1], rng))
    assert searched and all(0 < ran <= budget == 6 for ran, budget in searched)
    ismcts_slots = [slot for slot, deal in enumerate(vec.deals) if deal.opponent == "ismcts"]
    assert ismcts_slots and all(isinstance(vec.agents[slot], ISMCTSAgent) for slot in ismcts_slots)
    state = vec.state_dict()
    assert [s is not None for s in state["ismcts"]] == [slot in ismcts_slots for slot in range(4)]
    twin = SelfPlayGames(4, "apprentice", schedule, {}, seed=0, ismcts_iterations=6)
    finished = continue_side_by_side(vec, twin, rng, 60)
    assert "ismcts" in {r.opponent for r in finished}
    assert twin.state_dict() == vec.state_dict()


def test_saved_ismcts_agents_are_checked() -> None:
    vec = SelfPlayGames(2, "apprentice", lambda rng: Deal(2, 0, "ismcts", 1), {}, 0, ismcts_iterations=3)
    vec.start()
    good = vec.state_dict()
    saved = good["ismcts"][0]
    for bad, message in [
        ({"rng": saved["rng"]}, "an ISMCTS agent's state is a dict of rng and policy"),
        ({**saved, "policy": {**saved["policy"], "plan": "x"}}, "an ISMCTS agent's policy: a heuristic agent's plan"),
        ({**saved, "rng": {"bit_generator": "MT19937"}}, "an ISMCTS agent.s rng state is not a PCG64 state"),
        (None, "its opponent is ismcts, but no ismcts agent was saved"),
    ]:
        state = {**good, "ismcts": [saved, bad]}
        with pytest.raises(ValueError, match=f"saved slot 1: {message}"):
            SelfPlayGames(2, "apprentice", lambda rng: None, {}, 0).load_state_dict(state)
    with pytest.raises(ValueError, match="saved slot 0: a heuristic agent was saved, but its opponent is not"):
        SelfPlayGames(2, "apprentice", lambda rng: None, {}, 0).load_state_dict({**good, "heuristics": [{}, None]})
    with pytest.raises(ValueError, match="ismcts_iterations must be a whole number of at least 1; got 0"):
        SelfPlayGames(2, "apprentice", lambda rng: None, {}, 0, ismcts_iterations=0)
    # a state of the format before ISMCTS joined (no "ismcts" field) still loads
    old = SelfPlayGames(2, "apprentice", lambda rng: Deal(2, 1, "heuristic", 3), {}, 0)
    old.start()
    old_state = old.state_dict()
    del old_state["ismcts"]
    twin = SelfPlayGames(2, "apprentice", lambda rng: None, {}, 0)
    twin.load_state_dict(old_state)
    assert twin.state_dict() == {**old_state, "ismcts": [None, None]}
