"""Offline discovery: recorded episodes → workflow-graph knowledge base (paper section IV-A).

Stage 1 (``judge``) decides for every action whether the screen jumped to another state or
changed in place; stage 2 (``matcher``) maps each new state to an existing node or a new one;
stage 3 (``build``) writes nodes, condensed edges and traces into the ``kb.KnowledgeBase``.
"""
