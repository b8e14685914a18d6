"""Above the batched core: the environments and their routes, which import the core and the packages below it and
are imported by nothing in the library but its public entry points. The PettingZoo AEC environment
(``pettingzoo_env``), the Gymnasium environment (``gym_env``), the RLlib route (``rllib``, with its network in
``masked_mlp``) and the replays (``replay``). Their public paths are the top level's (``seasons_env.gym_env``, ...)."""
