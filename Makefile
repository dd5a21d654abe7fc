# Two commands a newcomer needs: `make run` and `make test`. Everything else is for developers.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck unit bench demo clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

run: $(STAMP)
	$(PY) bot.py

lint: $(STAMP)
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy

unit: $(STAMP)
	$(PY) -m pytest

test: lint typecheck unit

bench: $(STAMP)
	$(PY) -m tests.bench

demo: $(STAMP)
	$(PY) -m tests.demo

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
