"""Below the batched core: the board as text (``rendering``) and as a picture (``picture``), for the environments'
``render``, the replays and the terminal game."""
