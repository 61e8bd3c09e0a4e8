"""guigraph: GUI agents that learn a workflow graph from recorded executions.

Importing the package is cheap: heavy dependencies are imported by the modules that need them.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("guigraph")
except PackageNotFoundError:  # running from a source tree that was never installed
    __version__ = "0.0.0+unknown"

__all__ = ["__version__"]
