"""The environments' ids carry their version (``seasons_env.ENV_VERSION``): raised with the rules, the observation,
the actions or the position format, and an older id refused by Gymnasium's and PettingZoo's registries with an error
naming the current one."""

from __future__ import annotations

import gymnasium
import pettingzoo
import pytest

import seasons_env
from seasons_env.encoding import OBSERVATION_VERSION
from seasons_env.engine.actions import ACTION_TABLE_VERSION
from seasons_env.engine.serialization import STATE_VERSION

#: What each environment version stands for: (state format, observation, action table). A new format version must
#: come with a new environment version: add its line (and bump ``ENV_VERSION``), never edit an old one.
ENV_VERSIONS = {1: (3, 2, 1)}


def test_the_id_carries_the_current_version() -> None:
    assert seasons_env.ENV_ID == f"seasons_env/Seasons-v{seasons_env.ENV_VERSION}" == "seasons_env/Seasons-v1"
    assert seasons_env.GYM_ENV_ID == seasons_env.PETTINGZOO_ENV_ID == seasons_env.ENV_ID
    assert seasons_env.ENV_ID in gymnasium.registry and seasons_env.ENV_ID in pettingzoo.aec_registry


def test_a_format_change_comes_with_a_new_environment_version() -> None:
    assert max(ENV_VERSIONS) == seasons_env.ENV_VERSION, "add this version's line to ENV_VERSIONS"
    assert ENV_VERSIONS[seasons_env.ENV_VERSION] == (STATE_VERSION, OBSERVATION_VERSION, ACTION_TABLE_VERSION), (
        "the state format, the observation or the action table changed: bump seasons_env.ENV_VERSION"
    )


@pytest.mark.parametrize("old", range(seasons_env.ENV_VERSION))
def test_an_older_id_is_refused_naming_the_current_one(old: int) -> None:
    retired = f"seasons_env/Seasons-v{old}"
    assert retired not in gymnasium.registry and retired not in pettingzoo.aec_registry
    with pytest.warns(DeprecationWarning), pytest.raises(gymnasium.error.DeprecatedEnv, match=seasons_env.ENV_ID):
        gymnasium.make(retired)
    with pytest.raises(pettingzoo.env_registry.exceptions.VersionNotFound, match=f"v{seasons_env.ENV_VERSION}"):
        pettingzoo.make("aec", retired)
