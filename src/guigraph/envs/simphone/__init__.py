"""SimPhone: the embedded, deterministic simulated phone (see docs/simphone.md).

``SimPhone`` is the environment; ``make_task``/``TEMPLATES`` the task suite; the expert and the
recorder live in ``expert`` and ``recorder``.
"""

from guigraph.envs.simphone.devices import DEVICES, DeviceProfile, get_device
from guigraph.envs.simphone.env import SimPhone
from guigraph.envs.simphone.tasks import TEMPLATES, check_success, make_task

__all__ = [
    "DEVICES",
    "TEMPLATES",
    "DeviceProfile",
    "SimPhone",
    "check_success",
    "get_device",
    "make_task",
]
