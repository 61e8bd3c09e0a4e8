import io
from collections.abc import Iterator
from dataclasses import replace

import pytest
from PIL import Image

from guigraph.llm.config import ModelConfig
from guigraph.llm.limits import ConcurrencyLimit
from guigraph.testing import FakeModelServer

SECRET = "sk-test-5ecr3t-DO-NOT-LEAK-4242"


def fast_config(server: FakeModelServer, **overrides: object) -> ModelConfig:
    """Short backoff so that retry tests take milliseconds; a timeout a loaded machine keeps
    (each request's deadline covers its whole reply; timeout tests set theirs)."""
    config = ModelConfig(
        model="test-model",
        base_url=server.base_url,
        api_key=SECRET,
        timeout_s=5.0,
        max_attempts=4,
        backoff_initial_s=0.001,
        backoff_max_s=0.01,
    )
    return replace(config, **overrides)  # type: ignore[arg-type]


def own_limit(n: int = 8) -> ConcurrencyLimit:
    """A fresh limit, so tests do not share the process-wide one of a base URL."""
    return ConcurrencyLimit(n)


def png(width: int, height: int, color: tuple[int, int, int] = (200, 30, 30)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (width, height), color).save(out, format="PNG")
    return out.getvalue()


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as running:
        yield running


@pytest.fixture(autouse=True)
def fresh_structured_detection() -> Iterator[None]:
    """What a server accepts is learned per base URL; ports are reused between tests."""
    from guigraph.llm import structured

    structured.forget()
    yield
    structured.forget()
