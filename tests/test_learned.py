"""The learned agent: the network, its checkpoints, the shipped model, and where it plays (arena, play, Gymnasium)."""

from __future__ import annotations

import pickle
import subprocess
import sys

import numpy as np
import pytest
import torch
from installed import installed_environment
from limits import bounded

from seasons_agents import PolicyAgent, RandomAgent, play_game
from seasons_agents.learned import shipped_model_path
from seasons_agents.network import (
    MASKED,
    CheckpointError,
    FrozenPolicy,
    NetworkConfig,
    PolicyValueNet,
    load_policy,
    masked_logits,
    policy_payload,
    save_policy,
)
from seasons_env import Game
from seasons_env.encoding import OBSERVATION_SIZE, action_mask, encode_observation
from seasons_env.registry import make_agent, parse_agent_spec

torch.set_num_threads(1)


def tiny_net() -> PolicyValueNet:
    torch.manual_seed(0)
    return PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1))


def test_masked_policy_gives_illegal_actions_no_probability() -> None:
    net = tiny_net()
    game = Game.new(2, "archmage", seed=1)
    obs = torch.from_numpy(encode_observation(game, game.current_player)).unsqueeze(0)
    mask = torch.from_numpy(action_mask(game, game.current_player).astype(bool)).unsqueeze(0)
    logits, value = net(obs)
    probabilities = torch.softmax(masked_logits(logits, mask), dim=1)
    assert probabilities[~mask].sum() == 0 and abs(float(probabilities.sum()) - 1) < 1e-5
    assert -1 < float(value) < 1


def test_card_pointer_moves_summon_logits_with_the_card_embedding() -> None:
    """A summon's logit depends on its card's embedding (the pointer term), a die's does not."""
    from seasons_env.engine import actions as A

    net = tiny_net()
    obs = torch.zeros(1, OBSERVATION_SIZE)
    before, _ = net(obs)
    with torch.no_grad():
        net.cards[4] += 1.0  # card 5
    after, _ = net(obs)
    assert after[0, A.summon_action(5)] != before[0, A.summon_action(5)]
    assert after[0, A.take_die_action(0)] == before[0, A.take_die_action(0)]


@pytest.mark.parametrize("observation_version", [1, 2])
def test_a_frozen_policy_gives_the_network_s_logits_and_values(observation_version: int) -> None:
    """The folded forward (league snapshots, the learner while it collects) equals the full one to float rounding
    on real positions, with every weight random so that each folded term shows: card embeddings in every zone,
    the pointer of each action group."""
    torch.manual_seed(3)
    net = PolicyValueNet(NetworkConfig(card_dim=5, hidden=24, layers=2), observation_version)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0.0, 0.5)
    generator_state = torch.get_rng_state()
    frozen = FrozenPolicy(net)
    # folding draws nothing from torch's generator: the learner's sampled actions do not depend on it
    assert torch.equal(torch.get_rng_state(), generator_state)
    rng = np.random.default_rng(0)
    observations, masks = [], []
    for seed in range(4):
        game = Game.new(2 + seed % 3, "archmage", seed=seed)
        while not game.is_over and len(observations) < 150 * (seed + 1):
            player = game.current_player
            observations.append(encode_observation(game, player))
            masks.append(action_mask(game, player).astype(bool))
            game.apply(int(rng.choice(np.flatnonzero(masks[-1]))))
    obs, mask = torch.from_numpy(np.stack(observations)), torch.from_numpy(np.stack(masks))
    with torch.no_grad():
        logits, values = net(obs)
        folded_logits, folded_values = frozen(obs)
        card_terms = net.trunk[0].weight[:, net.observation_size :].abs().sum()
    assert card_terms > 0 and logits.abs().max() > 1.0  # the folded terms are not negligible here
    torch.testing.assert_close(folded_logits, logits, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(folded_values, values, rtol=1e-5, atol=1e-5)
    legal = masked_logits(logits, mask)
    assert (masked_logits(folded_logits, mask).argmax(1) == legal.argmax(1)).float().mean() > 0.99
    assert not any(p.requires_grad for p in frozen.parameters())
    with torch.no_grad():  # a frozen policy is a copy: changing the network afterwards does not reach it
        net.cards += 1.0
    torch.testing.assert_close(frozen(obs)[0], folded_logits)


def _random_positions(count: int) -> tuple[torch.Tensor, torch.Tensor]:
    rng = np.random.default_rng(1)
    observations, masks = [], []
    for seed in range(3):
        game = Game.new(2 + seed, "archmage", seed=10 + seed)
        while not game.is_over and len(observations) < count * (seed + 1) // 3:
            player = game.current_player
            observations.append(encode_observation(game, player))
            masks.append(action_mask(game, player).astype(bool))
            game.apply(int(rng.choice(np.flatnonzero(masks[-1]))))
    return torch.from_numpy(np.stack(observations)), torch.from_numpy(np.stack(masks))


@pytest.mark.parametrize("observation_version", [1, 2])
def test_the_folded_forward_trains_like_the_full_one(observation_version: int) -> None:
    """Training's updates run ``forward_folded``: its logits, values and the gradients it gives every parameter
    (card embeddings, pooled-zone and pointer weights included) are the full forward's to float rounding, and a
    frozen copy gives its outputs exactly (the same folded weights)."""
    torch.manual_seed(5)
    net = PolicyValueNet(NetworkConfig(card_dim=5, hidden=24, layers=2), observation_version)
    with torch.no_grad():
        for parameter in net.parameters():
            parameter.normal_(0.0, 0.5)
    obs, mask = _random_positions(240)
    target = torch.from_numpy(np.random.default_rng(2).uniform(-1, 1, len(obs)).astype(np.float32))

    def gradients(forward) -> tuple[torch.Tensor, torch.Tensor, dict[str, torch.Tensor]]:
        net.zero_grad(set_to_none=True)
        logits, values = forward(obs)
        masked = masked_logits(logits, mask)
        loss = torch.logsumexp(masked, dim=1).mean() - masked.max(dim=1).values.mean() + ((values - target) ** 2).mean()
        loss.backward()
        return logits.detach(), values.detach(), {n: p.grad.clone() for n, p in net.named_parameters()}

    logits, values, full = gradients(net)
    folded_logits, folded_values, folded = gradients(net.forward_folded)
    torch.testing.assert_close(folded_logits, logits, rtol=1e-5, atol=1e-4)
    torch.testing.assert_close(folded_values, values, rtol=1e-5, atol=1e-5)
    assert full.keys() == folded.keys()
    for name, gradient in full.items():
        assert gradient.abs().max() > 0, name  # every parameter is reached, the card terms' too
        torch.testing.assert_close(folded[name], gradient, rtol=1e-4, atol=1e-5, msg=name)
    with torch.no_grad():
        frozen_logits, frozen_values = FrozenPolicy(net)(obs)
    assert torch.equal(frozen_logits, folded_logits) and torch.equal(frozen_values, folded_values)


def test_the_masked_policy_is_the_softmax_over_the_legal_actions() -> None:
    """``masked_policy`` (PPO's and cloning's log-probabilities, entropies and samples) against torch's own masked
    Categorical: the same log-probabilities, entropies and gradients; illegal actions exactly 0, whatever their raw
    logits (here some far above the legal ones); finite gradients; a legal action far below the best keeps a
    probability of at most e**-80."""
    from torch.distributions import Categorical

    from seasons_agents.network import EXP_FLOOR, masked_policy

    generator = torch.Generator().manual_seed(7)
    logits = (torch.randn(64, 314, generator=generator) * 4).requires_grad_(True)
    mask = torch.rand(64, 314, generator=generator) < 0.2
    mask[:, 5] = True
    with torch.no_grad():
        logits[:8][~mask[:8]] += 1e4  # illegal actions whose raw logits dwarf the legal ones
        logits[8:16, 5] -= 500.0  # a legal action hopelessly behind
    log_probs, probs = masked_policy(logits, mask)
    entropy = -(probs * log_probs).sum(dim=1)
    reference = Categorical(logits=masked_logits(logits, mask))
    actions = torch.multinomial(probs.detach(), 1, generator=generator).squeeze(1)
    assert mask.gather(1, actions.unsqueeze(1)).all()  # only legal actions are drawn
    assert torch.equal(probs[~mask], torch.zeros_like(probs[~mask])) and (log_probs[~mask] == MASKED).all()
    torch.testing.assert_close(probs.sum(dim=1), torch.ones(64))
    legal = torch.tensor([r for r in range(64) if not 8 <= r < 16])  # no legal logit below the floor: to rounding
    expected_log_probs = reference.logits[legal][mask[legal]]
    torch.testing.assert_close(log_probs[legal][mask[legal]], expected_log_probs, rtol=1e-5, atol=1e-5)
    torch.testing.assert_close(entropy[legal], reference.entropy()[legal], rtol=1e-5, atol=1e-5)
    chosen = log_probs.gather(1, actions.unsqueeze(1)).squeeze(1)
    torch.testing.assert_close(chosen, reference.log_prob(actions), rtol=1e-5, atol=1e-5)
    assert (probs[8:16, 5] <= np.exp(EXP_FLOOR) * 1.0001).all()
    (gradient,) = torch.autograd.grad((chosen + 0.01 * entropy).sum(), logits)
    (expected,) = torch.autograd.grad((reference.log_prob(actions) + 0.01 * reference.entropy()).sum(), logits)
    assert torch.isfinite(gradient).all() and (gradient[~mask] == 0).all()
    torch.testing.assert_close(gradient[legal], expected[legal], rtol=1e-4, atol=1e-6)


def test_policy_checkpoint_round_trip(tmp_path) -> None:
    net = tiny_net()
    save_policy(net, tmp_path / "m.pt", {"note": "test"})
    loaded, info = load_policy(tmp_path / "m.pt")
    obs = torch.rand(3, OBSERVATION_SIZE)
    assert torch.equal(net(obs)[0], loaded(obs)[0]) and info == {"note": "test"}


def _printed_in_a_fresh_process(code: str, folder) -> list[str]:
    """The words ``code`` prints, run by the installed package in a new Python process in ``folder``."""
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=folder, env=installed_environment(), capture_output=True, text=True
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout.split()


def test_a_missing_model_file_is_named_before_torch_is_imported(tmp_path) -> None:
    """``seasons arena --agents learned:typo.pt`` says so at once: torch (seconds to import) is not imported first."""
    check = (
        "import sys\n"
        "from seasons_agents.learned import load_cached\n"
        "from seasons_agents.policy_format import CheckpointError\n"
        "try:\n"
        "    load_cached('missing.pt')\n"
        "except CheckpointError as error:\n"
        "    print('no such model file' in str(error), 'torch' in sys.modules)\n"
    )
    assert _printed_in_a_fresh_process(check, tmp_path) == ["True", "False"]


def test_loading_a_model_does_not_import_torch_s_compiler(tmp_path) -> None:
    """Checking a file's weights against its config builds the network on torch's meta device: an operation there
    that imports ``torch._dynamo`` (a number times a tensor did) adds about 1.5 s to every process that loads a
    model (each arena worker, each bench run). Loading every shipped model and playing a move imports none of it."""
    check = (
        "import sys\n"
        "from seasons_agents import play_game\n"
        "from seasons_agents.learned import load_cached, shipped_model_path\n"
        "from seasons_env.registry import make_agent\n"
        "for version in ('v1', 'v2', 'v3'):\n"
        "    load_cached(shipped_model_path(version), backend='torch')\n"
        "play_game([make_agent('learned', seed=0), make_agent('random', seed=1)], level='apprentice', seed=0)\n"
        "print('torch' in sys.modules, 'torch._dynamo' in sys.modules)\n"
    )
    assert _printed_in_a_fresh_process(check, tmp_path) == ["True", "False"]


def test_bad_model_files_are_named_with_their_fault(tmp_path) -> None:
    with pytest.raises(CheckpointError, match="no such model file"):
        load_policy(tmp_path / "missing.pt")
    (tmp_path / "text.pt").write_text("hello")
    with pytest.raises(CheckpointError, match=r"text\.pt: cannot be read as a policy checkpoint"):
        load_policy(tmp_path / "text.pt")
    torch.save({"format": "something else"}, tmp_path / "other.pt")
    with pytest.raises(CheckpointError, match="not a policy checkpoint"):
        load_policy(tmp_path / "other.pt")
    payload = policy_payload(tiny_net())
    torch.save({**payload, "observation_version": 0}, tmp_path / "old.pt")
    with pytest.raises(CheckpointError, match="observation_version 0"):
        load_policy(tmp_path / "old.pt")
    torch.save({**payload, "config": {"card_dim": 4, "hidden": 0, "layers": 1}}, tmp_path / "shape.pt")
    with pytest.raises(CheckpointError, match=r"hidden must be an integer in 1\.\.16384"):
        load_policy(tmp_path / "shape.pt")


def test_a_model_file_s_config_is_checked_against_its_weights_before_anything_is_built(tmp_path) -> None:
    """A small file whose config asks for a huge network is refused before any of it is allocated (the load runs
    with under 1 GiB of address space to spare: card_dim=1024, hidden=16384 would need 1.2 GB), as are weights that are
    NaN, infinite, not floating point or of another shape."""
    payload = policy_payload(tiny_net())

    def refused(name: str, match: str, **changes) -> None:
        torch.save({**payload, **changes}, tmp_path / name)
        with bounded(), pytest.raises(CheckpointError, match=match) as caught:
            load_policy(tmp_path / name)
        assert str(tmp_path / name) in str(caught.value)

    refused(
        "wide.pt",
        r"cards has shape \(50, 4\); the config .* needs \(50, 1024\)",
        config={"card_dim": 1024, "hidden": 16384, "layers": 1},
    )
    refused(
        "wider.pt", r"hidden must be an integer in 1\.\.16384", config={"card_dim": 4, "hidden": 10**6, "layers": 1}
    )
    refused("deep.pt", r"missing trunk\.3\.weight", config={"card_dim": 4, "hidden": 16, "layers": 64})
    refused(
        "deeper.pt", r"layers must be an integer in 1\.\.64", config={"card_dim": 4, "hidden": 16, "layers": 100000}
    )
    state = payload["state_dict"]
    for bad in (float("nan"), float("inf")):
        value = state["value.weight"].clone()
        value[0, 3] = bad
        refused(
            "poisoned.pt", r"value\.weight holds NaN or infinite values", state_dict={**state, "value.weight": value}
        )
    refused(
        "ints.pt", r"cards must be a dense floating-point tensor", state_dict={**state, "cards": state["cards"].long()}
    )
    load_policy(save_policy(tiny_net(), tmp_path / "fine.pt") or tmp_path / "fine.pt")  # the untouched one loads


class _Boom:
    def __reduce__(self):
        return (exec, ("raise SystemExit('code ran')",))


def test_a_file_with_code_in_it_is_refused_not_run(tmp_path) -> None:
    (tmp_path / "evil.pt").write_bytes(pickle.dumps({"format": "seasons-policy", "x": _Boom()}))
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_policy(tmp_path / "evil.pt")


def test_shipped_model_is_small_and_loads() -> None:
    path = shipped_model_path()
    assert path.is_file() and path.stat().st_size <= 20 * 1024 * 1024
    net, info = load_policy(path)
    assert isinstance(net, PolicyValueNet) and "trained_by" in info


class _Checked:
    """Wraps an agent and asserts that every answer is one of the legal actions."""

    def __init__(self, agent) -> None:
        self.agent, self.name, self.decisions = agent, agent.name, 0

    def reset(self, seed=None) -> None:
        self.agent.reset(seed)

    def act(self, view, seat, legal):
        action = self.agent.act(view, seat, legal)
        assert action in legal
        self.decisions += 1
        return action


@pytest.mark.parametrize("level", ["apprentice", "magician", "archmage"])
@pytest.mark.parametrize("players", [2, 3, 4])
def test_shipped_model_plays_only_legal_actions(level: str, players: int) -> None:
    agents = [_Checked(PolicyAgent(seed=k, greedy=k % 2 == 0)) for k in range(players)]
    record = play_game(agents, level=level, seed=11 * players, agent_seed=11 * players)
    assert sum(a.decisions for a in agents) == record.decisions


def test_shipped_model_beats_random_in_a_seeded_match() -> None:
    wins = 0
    for game in range(6):
        learned, random_agent = PolicyAgent(seed=game), RandomAgent(seed=game)
        seats = [learned, random_agent] if game % 2 == 0 else [random_agent, learned]
        record = play_game(seats, level="archmage", seed=100 + game // 2, agent_seed=game)
        wins += seats.index(learned) in record.winners
    assert wins >= 5


def test_sampling_agent_is_reproducible_from_its_seed() -> None:
    game = Game.new(2, "archmage", seed=4)
    legal = game.legal_action_list()
    first = [PolicyAgent(seed=9, greedy=False).act(game, game.current_player, legal) for _ in range(2)]
    assert first[0] == first[1] and first[0] in legal
    with pytest.raises(ValueError, match="temperature must be positive"):
        PolicyAgent(temperature=0)


def test_learned_names(tmp_path) -> None:
    assert make_agent("learned", 3).model_path == shipped_model_path()
    save_policy(tiny_net(), tmp_path / "mine.pt")
    agent = make_agent(f"learned:{tmp_path / 'mine.pt'}", 0)
    assert agent.model_path == tmp_path / "mine.pt"
    with pytest.raises(ValueError, match=r"agents\[1\]: agent 'learned:.*nothing.pt': .*no such model file"):
        parse_agent_spec(f"learned:{tmp_path / 'nothing.pt'}", "agents[1]")


def test_arena_command_with_learned_agents(tmp_path) -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    args = ["arena", "--agents", "learned,random", "--games", "4", "--workers", "1", "--no-progress"]
    result = CliRunner().invoke(main, [*args, "--out", str(tmp_path / "a")])
    assert result.exit_code == 0, result.output
    assert "4 games, 2 players" in result.output
    save_policy(tiny_net(), tmp_path / "mine.pt")
    other = f"learned:{tmp_path / 'mine.pt'}"
    args = ["arena", "--agents", f"{other},random", "--games", "2", "--workers", "1", "--level", "apprentice"]
    result = CliRunner().invoke(main, [*args, "--no-progress", "--out", str(tmp_path / "b")])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(main, ["arena", "--agents", f"learned:{tmp_path / 'x.pt'},random", "--no-progress"])
    assert result.exit_code != 0 and "x.pt: no such model file" in result.output


def test_play_command_against_the_learned_agent() -> None:
    from click.testing import CliRunner

    from seasons_env.cli import main

    result = CliRunner().invoke(
        main, ["play", "--vs", "learned", "--seed", "5", "--level", "apprentice"], input="1\n" * 400
    )
    assert result.exit_code == 0, result.output
    assert "Final scores: player 0 (you)" in result.output


def test_gymnasium_opponent_by_name(tmp_path) -> None:
    from seasons_env.gym_env import SeasonsGymEnv

    save_policy(tiny_net(), tmp_path / "mine.pt")
    for name in ("learned", f"learned:{tmp_path / 'mine.pt'}"):
        env = SeasonsGymEnv(num_players=2, level="apprentice", opponents=name)
        _, info = env.reset(seed=1)
        rng = np.random.default_rng(0)
        done = False
        while not done:
            legal = np.flatnonzero(info["action_mask"])
            _obs, _, done, _, info = env.step(int(rng.choice(legal)))
    with pytest.raises(ValueError, match=r"opponents: .*nothing\.pt: no such model file"):
        SeasonsGymEnv(num_players=2, opponents=f"learned:{tmp_path / 'nothing.pt'}")


def test_policy_ismcts_plays_legal_actions_within_its_budget(tmp_path) -> None:
    from seasons_agents.policy_ismcts import PolicyISMCTSAgent

    save_policy(tiny_net(), tmp_path / "mine.pt")
    searcher = PolicyISMCTSAgent(seed=1, model=tmp_path / "mine.pt", iterations=8)
    agents = [_Checked(searcher), _Checked(RandomAgent(seed=2))]
    play_game(agents, level="apprentice", seed=5, agent_seed=5)
    assert agents[0].decisions > 10
    game = Game.new(2, "archmage", seed=2)
    assert searcher.act(game, game.current_player, game.legal_action_list()) in game.legal_action_list()
    assert searcher.last_iterations == 8
    timed = PolicyISMCTSAgent(seed=1, model=tmp_path / "mine.pt", seconds=0.05)
    assert timed.act(game, game.current_player, game.legal_action_list()) in game.legal_action_list()
    assert timed.last_iterations >= 1
    with pytest.raises(ValueError, match="iterations must be at least 1"):
        PolicyISMCTSAgent(model=tmp_path / "mine.pt", iterations=0)


def test_policy_search_is_an_arena_agent_with_an_iteration_budget(tmp_path) -> None:
    from seasons_agents.arena import Arena, ArenaConfig
    from seasons_agents.learned import model_digests

    agent = make_agent("policy-ismcts:3", 0)
    assert agent.iterations == 3 and agent.name == "policy-ismcts"
    assert make_agent("policy-ismcts", 0).iterations == 200
    for bad in ("0", "x", "1.5", "100001"):
        with pytest.raises(ValueError, match=r"agents\[0\]: agent 'policy-ismcts:.*': .*whole number of iterations"):
            parse_agent_spec(f"policy-ismcts:{bad}", "agents[0]")
    # The search plays its shipped model (v2), so its records carry that model's digest like ``learned:v2``'s do.
    assert model_digests(["policy-ismcts:3"]) == {"policy-ismcts:3": model_digests(["learned:v2"])["learned:v2"]}
    config = ArenaConfig(agents=("policy-ismcts:2", "random"), games=2, level="apprentice")
    summary = Arena(config, tmp_path / "arena").run(workers=1, progress=False)
    assert summary["games_played"] == 2


def test_arena_records_of_another_model_under_the_same_name_are_refused(tmp_path) -> None:
    from seasons_agents.arena import Arena, ArenaConfig, ArenaFolderError

    model = tmp_path / "mine.pt"
    save_policy(tiny_net(), model)
    config = ArenaConfig(agents=(f"learned:{model}", "random"), games=2, level="apprentice")
    Arena(config, tmp_path / "arena").run(workers=1, progress=False)
    torch.manual_seed(1)
    save_policy(PolicyValueNet(NetworkConfig(card_dim=4, hidden=16, layers=1)), model)  # retrained: new weights
    with pytest.raises(ArenaFolderError, match="models"):
        Arena(ArenaConfig(agents=config.agents, games=3, level="apprentice"), tmp_path / "arena").run(
            workers=1, progress=False
        )


def test_without_torch_the_torch_backend_says_what_to_install(monkeypatch) -> None:
    monkeypatch.setitem(__import__("sys").modules, "torch", None)  # as if torch were not installed
    with pytest.raises(ImportError, match=r"pip install 'seasons-env\[train\]'"):
        PolicyAgent(backend="torch")
