"""The environments' default engine, ``engine="auto"``: the compiled kernels where they load without compiling, the
reference engine otherwise, with one warning, and never a compile on the way.

Each case runs in a new process (the choice is made once a process) with its own kernel cache settings."""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from installed import installed_environment

from seasons_env.vector.environment import check_engine

#: Makes both environments with the default engine, steps each, and prints what was chosen and what was logged.
_CHOOSE = """
import json, logging
records = []
class Keep(logging.Handler):
    def emit(self, record):
        records.append(record.getMessage())
logging.getLogger("seasons_env").addHandler(Keep())
import gymnasium, seasons_env
aec = seasons_env.env(num_players=3)
aec.reset(seed=1)
single = gymnasium.make("seasons_env/Seasons-v1", num_players=2)
single.reset(seed=1)
single.step(int(single.unwrapped.action_masks().nonzero()[0][0]))
print(json.dumps({"aec": aec.engine, "gym": single.unwrapped.engine, "log": records}))
"""


def _python(script: str, **environment: str) -> subprocess.CompletedProcess[str]:
    """``python -c script`` as a user's program runs: in a temporary folder outside the checkout, without
    ``PYTHONPATH``, so that it imports the installed package."""
    return subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=installed_environment({"NUMBA_NUM_THREADS": "1", **environment}),
        cwd=tempfile.mkdtemp(prefix="seasons-engine-"),
        timeout=900,
    )


def _choose(**environment: str) -> dict:
    done = _python(_CHOOSE, **environment)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.splitlines()[-1])


def test_an_empty_cache_steps_the_reference_engine_with_one_warning_and_compiles_nothing(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    chosen = _choose(SEASONS_KERNEL_CACHE=str(cache), SEASONS_PREBUILT_KERNELS="none")
    assert chosen["aec"] == chosen["gym"] == "reference"
    assert len(chosen["log"]) == 1, chosen["log"]  # once a process, not once an environment
    assert "engine='auto' steps the reference engine" in chosen["log"][0]
    assert "seasons compile --only one-game" in chosen["log"][0]
    assert not cache.exists() or not any(cache.rglob("*.nbc"))  # nothing compiled


def test_compiled_kernels_are_the_default_once_they_load() -> None:
    from seasons_env.vector.single import play_sample_games

    play_sample_games()  # compiles the one-game kernels into this suite's cache where they are not yet there
    chosen = _choose()
    assert chosen["aec"] == chosen["gym"] == "kernels"
    assert chosen["log"] == []


def test_kernels_run_as_python_are_not_chosen() -> None:
    chosen = _choose(SEASONS_KERNELS="python")
    assert chosen["aec"] == chosen["gym"] == "reference"
    assert "plain Python" in chosen["log"][0]


@pytest.mark.parametrize("engine", ["reference", "kernels"])
def test_a_named_engine_is_taken_as_it_is(engine: str) -> None:
    assert check_engine(engine) == engine


@pytest.mark.parametrize("engine", ["Kernels", "", None, 1])
def test_an_unknown_engine_is_refused_naming_the_choices(engine: object) -> None:
    with pytest.raises(ValueError, match="'auto', 'reference', 'kernels'"):
        check_engine(engine)


def test_the_first_call_benchmark_prints_each_way() -> None:
    script = Path(__file__).resolve().parents[1] / "benchmarks" / "env_first_call.py"
    done = subprocess.run(
        [sys.executable, str(script), "--rounds", "1"],
        capture_output=True,
        text=True,
        env=installed_environment(),
        cwd=tempfile.mkdtemp(prefix="seasons-engine-"),
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    assert "| auto, empty cache | reference |" in done.stdout
    for way in ("| reference | reference |", "| kernels | kernels |", "| auto |"):
        assert way in done.stdout


#: Plays ``play_sample_games`` (what ``seasons compile --only one-game`` and the ``"auto"`` check run), then whole
#: games through both environments on the kernels and the reads of a ``CompiledGame``, and prints every kernel
#: signature they added.
_NEW_SIGNATURES = """
import copy, json, sys
import numpy as np
from numba.core.dispatcher import Dispatcher
from seasons_env.vector.single import play_sample_games

def signatures():
    found = set()
    for name, module in list(sys.modules.items()):
        if name.startswith("seasons_env.vector.kernels"):
            for attr, value in vars(module).items():
                if isinstance(value, Dispatcher):
                    found |= {f"{name}.{attr}{signature}" for signature in value.signatures}
    return found

play_sample_games()
before = signatures()
import gymnasium, seasons_env
from seasons_env.engine import Game
rng = np.random.default_rng(3)
for num_players in (2, 3, 4):
    env = seasons_env.env(num_players=num_players, engine="kernels", reward="rank")
    env.reset(seed=num_players)
    copy.deepcopy(env)
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        env.step(None if termination or truncation else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
start = Game.new(3, "magician", seed=8)
for _ in range(25):
    start.apply(start.legal_action_list()[0])
single = gymnasium.make("seasons_env/Seasons-v1", num_players=3, level="magician", engine="kernels")
single.reset(options={"state": start.to_dict()})
done = False
while not done:
    mask = single.unwrapped.action_masks()
    _, _, terminated, truncated, _ = single.step(int(rng.choice(np.flatnonzero(mask))))
    done = terminated or truncated
from seasons_env.vector.single import CompiledGame
game = CompiledGame.from_game(start)  # the public reads of a one-game position, mid-game
game.scores(), game.winners(), game.cards_in_play(), game.clone(), game.to_game(), game.legal_mask(0)
print(json.dumps(sorted(signatures() - before)))
"""


def test_the_sample_games_load_every_kernel_the_environments_use() -> None:
    """``engine="auto"`` takes the kernels once ``play_sample_games`` loads without compiling: whole games through
    the environments, and a ``CompiledGame``'s reads, must then compile nothing more (a kernel missing here would
    stall a user's game for the seconds or minutes numba takes)."""
    done = _python(_NEW_SIGNATURES)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1]) == []
