"""Focus memory, as the agents' code names it: it lives in ``guigraph.focus``, below the
compiler, which reads it too."""

from guigraph.focus import FocusMemory, FocusValue

__all__ = ["FocusMemory", "FocusValue"]
