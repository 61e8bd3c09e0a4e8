"""Scoring: the official GUIOdyssey step matcher, AMS/SR metrics, STEPS files."""
