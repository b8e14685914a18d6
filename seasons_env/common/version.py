"""The package's version, ``seasons_env.__version__``: its one source (pyproject.toml reads it from this file;
CHANGELOG.md lists the releases). A module of its own at the bottom of the library, so that the command line
(``seasons --version``, ``seasons info``) reads it without importing the package's top level."""

__version__ = "0.2.0"
