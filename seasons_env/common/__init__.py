"""The library's bottom layer, which every other package may use and which imports nothing of the library but the
reference engine: the package's version, renamed settings (``deprecation``), signals around compiled calls
(``interrupts``), intervals and ratings (``statistics``), agents and commands by name (``registry``, with
``agent_specs`` for agents given by their code), random play (``simulate``) and jobs run in this process and in
worker processes at once (``parallel``)."""
