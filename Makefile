# Everything a fresh clone needs: `make demo` and `make test` create .venv and install the project.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PIP := $(BIN)/python -m pip
LINT_DIRS := $(wildcard src tests bench)

.PHONY: demo test lint typecheck unit bench clean chromium

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

typecheck: $(VENV)/.installed-dev
	$(BIN)/mypy

# The browser tests (report, trajectory viewer, KB explorer) drive Debian's chromium through
# Playwright; it is installed here, never downloaded by Playwright.
chromium:
	command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium)

unit: $(VENV)/.installed-dev chromium
	$(BIN)/pytest -q

test: chromium lint typecheck unit

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/score.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
