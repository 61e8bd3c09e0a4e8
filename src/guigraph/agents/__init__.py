"""The agent team of Algorithm 1: planners, observer, decider, verifier, narrator, outcome check.

Each role is a small class behind a Protocol in :mod:`guigraph.agents.roles`, so a model-backed
version can replace a rule-based one without touching the loop in :mod:`guigraph.agents.loop`.
"""
