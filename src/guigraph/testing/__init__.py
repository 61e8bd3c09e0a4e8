"""Test helpers shipped with the package, so tests of every part can use the real protocols."""

from guigraph.testing.server import FakeModelServer, Reply

__all__ = ["FakeModelServer", "Reply"]
