"""What a policy file holds and how the network reads the observation, without torch.

Both forward passes of the learned agents read these: the torch network (``agents/network.py``, the training
dependency) and the numpy one (``agents/policy_numpy.py``, used where torch is not installed). A policy file
(``save_policy``) is a dict: ``format``, ``version``, ``observation_version``, ``observation_layout`` (the digest of
that version's layout, ``seasons_env.encoding.observation_layout_digest``), ``action_table_version``, ``config`` (a
``NetworkConfig``), ``state_dict`` (the weights) and ``info``; ``check_payload`` checks every field but the weights,
whose kind depends on who read the file. A model made for another layout than this code's for its version is refused.

Values read from a file reach messages only through ``shown``: short, however long or deep the value.
"""

from __future__ import annotations

import reprlib
from dataclasses import dataclass, fields

import numpy as np

from seasons_env.encoding import (
    LAYOUT,
    OBSERVATION_SIZE,
    OBSERVATION_SIZES,
    OPP_FEATURES,
    OPP_IN_PLAY,
    OPP_TAPPED,
    RELEASED_OBSERVATION_LAYOUTS,
    observation_layout_digest,
)
from seasons_env.engine import actions as A
from seasons_env.engine.actions import ACTION_TABLE_VERSION
from seasons_env.engine.data import NUM_CARDS, card_of

CHECKPOINT_FORMAT = "seasons-policy"
#: Version 2 records ``observation_layout``; version 1 files (written before it) are still read: see ``LEGACY_LAYOUTS``.
CHECKPOINT_VERSION = 2
#: The layout a version 1 file (written before files recorded it) was made for: its observation version's as released.
LEGACY_LAYOUTS = RELEASED_OBSERVATION_LAYOUTS
#: Margins are divided by this before ``tanh`` to make the value target.
VALUE_SCALE = 40.0
#: LayerNorm's epsilon in the trunk (torch's default).
LAYER_NORM_EPS = 1e-5

#: Observation slices that count cards (one value per card id 1..50).
CARD_ZONES = (
    "context_cards",
    "context_card",
    "self_hand",
    "self_library_year2",
    "self_library_year3",
    "self_in_play",
    "self_tapped",
    "self_draft_pack",
    "self_draft_seen",
    "self_orb_seen",
)


def _zone_starts() -> list[int]:
    starts = [LAYOUT[name].start for name in CARD_ZONES]
    opponents = LAYOUT["opponents"].start
    for slot in range(3):
        at = opponents + slot * OPP_FEATURES
        starts += [at + OPP_IN_PLAY, at + OPP_TAPPED]
    for start in starts:
        assert start + NUM_CARDS <= OBSERVATION_SIZE
    return starts


#: Where each card-counting zone starts in the observation (its 50 counts follow).
ZONE_STARTS = tuple(_zone_starts())


def action_cards() -> tuple[np.ndarray, np.ndarray]:
    """For each action id: the pointer group (0 = none, 1 summon, 2 activate, 3 choose card, 4 choose in play)
    and the card id it names (0 = none)."""
    group = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    card = np.zeros(A.NUM_ACTIONS, dtype=np.int64)
    for c in range(1, NUM_CARDS + 1):
        group[A.summon_action(c)], card[A.summon_action(c)] = 1, c
        group[A.choose_card_action(c)], card[A.choose_card_action(c)] = 3, c
    for instance in A.ACTIVATABLE_INSTANCES:
        action = A.activate_action(instance)
        group[action], card[action] = 2, card_of(instance)
    for instance in range(2 * NUM_CARDS):
        action = A.choose_in_play_action(instance)
        group[action], card[action] = 4, card_of(instance)
    return group, card


def pointer_places() -> tuple[np.ndarray, np.ndarray]:
    """The actions that name a card, and for each where its term sits in the flattened ``[group, card]`` table of
    pointer terms (group 0 = summon, ..., card 0 = no card)."""
    group, card = action_cards()
    named = np.flatnonzero(group)
    return named, (group[named] - 1) * (NUM_CARDS + 1) + card[named]


#: The largest value of each ``NetworkConfig`` field: far above anything trained here (the shipped model is 2 x 256
#: with 32-value cards), and low enough that a configuration read from a file cannot ask for gigabytes.
NETWORK_LIMITS = {"card_dim": 1024, "hidden": 16384, "layers": 64}


@dataclass(frozen=True)
class NetworkConfig:
    """The shape of a ``PolicyValueNet``."""

    card_dim: int = 32
    hidden: int = 512
    layers: int = 2

    def __post_init__(self) -> None:
        for f in fields(self):
            value, limit = getattr(self, f.name), NETWORK_LIMITS[f.name]
            if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= limit:
                raise ValueError(f"network config: {f.name} must be an integer in 1..{limit}; got {shown(value)}")


class CheckpointError(ValueError):
    """A policy file that cannot be loaded: the message names the file and the fault."""


def _same(value: object, expected: object) -> bool:
    """``value == expected`` for a value read from a file, which may be a tensor (whose ``==`` is no bool)."""
    return type(value) is type(expected) and value == expected


def unwrap_checkpoint(payload: object) -> object:
    """A policy file's payload, or the ``policy`` of a training checkpoint."""
    if isinstance(payload, dict) and "policy" in payload and not _same(payload.get("format"), CHECKPOINT_FORMAT):
        return payload["policy"]
    return payload


def check_payload(payload: object, where: str) -> tuple[NetworkConfig, int, dict, dict]:
    """The configuration, observation version, weights (a dict, not checked here) and ``info`` of a policy
    payload; ``CheckpointError`` naming ``where`` and the first field at fault otherwise."""

    def fault(problem: str) -> CheckpointError:
        return CheckpointError(f"{where}: {problem}")

    if not isinstance(payload, dict):
        raise fault(f"not a policy checkpoint (a {type(payload).__name__}, not a dict)")
    if not _same(payload.get("format"), CHECKPOINT_FORMAT):
        found = shown(payload.get("format"))
        raise fault(f"not a policy checkpoint: format is {found}, expected {CHECKPOINT_FORMAT!r}")
    version = payload.get("version")
    if type(version) is not int or version not in (1, CHECKPOINT_VERSION):
        raise fault(f"checkpoint version {shown(version)}; this code reads versions 1 to {CHECKPOINT_VERSION}")
    if not _same(payload.get("action_table_version"), ACTION_TABLE_VERSION):
        raise fault(
            f"trained for action_table_version {shown(payload.get('action_table_version'))}; this code has "
            f"{ACTION_TABLE_VERSION} (retrain the model)"
        )
    observation_version = payload.get("observation_version")
    # earlier layouts are prefixes of today's: they still read
    if type(observation_version) is not int or observation_version not in OBSERVATION_SIZES:
        raise fault(
            f"trained for observation_version {shown(observation_version)}; this code reads versions "
            f"{sorted(OBSERVATION_SIZES)} (retrain the model)"
        )
    check_layout(
        payload.get("observation_layout") if version >= 2 else LEGACY_LAYOUTS.get(observation_version),
        observation_version,
        where,
    )
    config = payload.get("config")
    keys = sorted(f.name for f in fields(NetworkConfig))
    if not isinstance(config, dict) or set(config) != set(keys):
        raise fault(f"config must be a dict with keys {keys}; got {shown(config)}")
    try:
        network_config = NetworkConfig(**config)
    except ValueError as error:
        raise fault(str(error)) from None
    state = payload.get("state_dict")
    if not isinstance(state, dict):
        raise fault("state_dict must be a dict of tensors")
    info = payload.get("info", {})
    if not isinstance(info, dict):
        raise fault(f"info must be a dict; got {type(info).__name__}")
    return network_config, observation_version, state, info


def check_layout(layout: object, observation_version: int, where: str) -> None:
    """``CheckpointError`` unless ``layout`` (a model's ``observation_layout``) is this code's layout digest of
    ``observation_version``: a model made for another layout would read its inputs as other facts."""
    expected = observation_layout_digest(observation_version)
    if type(layout) is not str:
        raise CheckpointError(
            f"{where}: observation_layout must be the digest of the observation layout (a string); got {shown(layout)}"
        )
    if layout != expected:
        raise CheckpointError(
            f"{where}: made for another observation layout: the model's observation version {observation_version} "
            f"has layout {shown(layout[:16])}, this code's version {observation_version} has layout "
            f"{expected[:16]!r} (retrain the model, or play it with the release it was made with)"
        )


#: How much of a value read from a file a message shows.
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother, _SHOWN.maxlong = 3, 60, 60, 40
_SHOWN.maxtuple = _SHOWN.maxlist = _SHOWN.maxdict = _SHOWN.maxset = _SHOWN.maxfrozenset = 4
#: The longest text a message takes from a file.
MAX_SHOWN = 200


def shown(value: object) -> str:
    """A short ``repr`` of a value read from a file, for a message: at most ``MAX_SHOWN`` characters, however long,
    deep or shared the value (``reprlib``), and only its type where even that fails (a huge integer)."""
    try:
        text = _SHOWN.repr(value)
    except Exception:  # whatever the value does, the message names its type
        text = f"a {type(value).__name__}"
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."


def shown_text(text: str) -> str:
    """``text`` (an error's message, which may quote the file) cut to ``MAX_SHOWN`` characters."""
    return text if len(text) <= MAX_SHOWN else text[: MAX_SHOWN - 3] + "..."
