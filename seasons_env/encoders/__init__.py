"""Below the batched core: what a seat may know as arrays (``encoding``: the observation and the action mask), the
end-of-game rewards (``rewards``) and the checks of what callers pass to the environments (``env_inputs``). The
kernels write the same observation (``vector/kernels/observe_rows.py``), so they import ``encoding``'s layout."""
