"""The model layer: settings, the OpenAI-compatible client, cache, usage, parsing, coordinates.

Import the submodules (``guigraph.llm.client`` needs the ``llm`` extra); this package itself
imports nothing heavy.
"""
