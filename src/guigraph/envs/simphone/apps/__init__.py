"""The apps. Importing this package registers every screen and pop-up."""

from guigraph.envs.simphone.apps import (  # noqa: F401
    browser,
    camera,
    clock,
    info,
    media,
    messages,
    settings,
    shop,
    system,
)

system.register_rate_popups()
