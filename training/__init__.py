"""Training learned agents, installed as ``seasons_training``: ``python -m seasons_training`` (or ``seasons train``);
see ``docs/training.md`` and ``training/README.md``.

- ``cli``: the commands; ``config``: ``TrainConfig``, its presets and ``field=value`` overrides; ``errors``: what
  training reports about bad input; ``device``: where torch's work runs (``cpu``, ``cuda``, ``auto``).
- ``pipeline``: the whole recipe from nothing, through the warm-start ``stages`` (``data``: a teacher's decisions,
  ``clone``: behaviour cloning) to self-play PPO (``ppo``, with the ``league`` of opponents and snapshots,
  ``selfplay``: its games stepped as ``VectorGame`` batches, ``snapshot_policy``: the snapshots' compiled policies,
  ``resume_checks``: a checkpoint's fields checked on resume) or to expert iteration (``expert``: policy-ISMCTS
  games, training on their visit counts, evaluation; ``expert_compiled``: those games on the compiled kernels).
- ``train_maskable_ppo`` and ``train_rllib``: the Stable-Baselines3 and RLlib routes, with the evaluation lines they
  share in ``report``.
"""
