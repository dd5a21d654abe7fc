# Two commands a newcomer needs: `make run` and `make test`. Everything else is for developers.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# Every install takes its exact versions from the lock (`make lock` remakes it).
LOCK := requirements.lock
UV_VERSION := 0.13.9
comma := ,
# Extras to install: dev (tests and checkers) always; postgres (asyncpg) when a
# PostgreSQL is at hand for the tests, or when asked: `make run EXTRAS=dev,postgres`.
EXTRAS ?= dev$(if $(WARHOST_TEST_POSTGRES),$(comma)postgres)
STAMP := $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

.PHONY: run test lint typecheck unit bench demo lock clean

# An editable install: the code runs from this folder, and the console commands
# (warhost, warhost-db, warhost-web, warhost-verify) work from any folder.
$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	PYTHONWARNINGS=ignore::UserWarning $(PY) -m pip install --quiet -c $(LOCK) -e '.[$(EXTRAS)]'
	rm -f $(VENV)/.installed*
	touch $(STAMP)

run: $(STAMP)
	$(PY) bot.py

lint: $(STAMP)
	$(PY) -m ruff check .

typecheck: $(STAMP)
	$(PY) -m mypy

# One line per test file as it runs; skipped halves (no PostgreSQL, no Chromium) are
# named at the end.
unit: $(STAMP)
	$(PY) -m pytest

test: lint typecheck unit

bench: $(STAMP)
	$(PY) -m tests.bench

demo: $(STAMP)
	$(PY) -m tests.demo

# Remake requirements.lock from pyproject.toml's ranges, at the newest versions they allow.
lock: $(STAMP)
	$(PY) -m pip install --quiet 'uv==$(UV_VERSION)'
	$(VENV)/bin/uv pip compile pyproject.toml --all-extras --universal --python-version 3.11 \
		--no-header --annotation-style line --upgrade -o $(LOCK)

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
