"""The package version, read by the build backend and by ``__version__``."""

__version__ = "0.3.0.dev0"
