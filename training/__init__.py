"""Training learned agents: data sets of a teacher's decisions, behaviour cloning and self-play PPO.

``python -m seasons_training`` (or ``seasons train``); see ``training/README.md``.
"""
