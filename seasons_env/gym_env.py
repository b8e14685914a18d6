"""``seasons_env.gym_env``: the public path of ``seasons_env.adapters.gym_env``, the same module object (a name set on
one is set on the other: a test's ``monkeypatch`` reaches the code)."""

import sys

from .adapters import gym_env

sys.modules[__name__] = gym_env
