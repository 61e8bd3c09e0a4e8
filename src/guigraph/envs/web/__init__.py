"""The web world (extra ``web``): pages in the system Chromium, and the MiniWoB++ suite.

``guigraph.envs.make("web")`` builds a :class:`~guigraph.envs.web.env.WebEnv`; importing this
package imports no browser library (Playwright loads when a browser starts).
"""
