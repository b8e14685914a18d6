"""What the compiled kernels need from the batched core, below them: positions as arrays (``arrays``:
``ArrayState``, ``pack`` / ``unpack``) and pending steps as rows of small ints (``step_codes``). The kernels import
these modules and these modules import no kernel, so ``vector.kernels`` and the rest of ``vector`` never import each
other. Their public paths are ``seasons_env.vector.arrays`` and ``seasons_env.vector.step_codes``."""
