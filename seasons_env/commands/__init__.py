"""The top of the library: the ``seasons`` command line (``cli``), what ``seasons info`` reports (``info``),
compiling the kernels ahead of time (``compiling``) and the generated reference tables of ``docs/`` (``docgen``)."""
