"""The version of srcdiff (one place: the package and generated files read it here)."""

__version__ = "0.1.0"
