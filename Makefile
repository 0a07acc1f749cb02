# PerfAtlas: `make up` runs the whole system on embedded defaults; `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
HOST ?= 127.0.0.1
PORT ?= 8000
AGENT := $(wildcard agent/pyproject.toml)
export PIP_DISABLE_PIP_VERSION_CHECK := 1

.PHONY: up test lint typecheck pytest bench install services system-packages lock clean help

help:
	@echo "make up      run PerfAtlas on embedded defaults (SQLite under .data/) and print the URL"
	@echo "make test    install what is needed, start PostgreSQL/Redis if needed, run every test"
	@echo "make bench   run the benchmarks; results go to tests/bench/results/"
	@echo "make lint    ruff + mypy only"

$(VENV)/.installed: requirements/constraints.txt requirements/dev.txt backend/pyproject.toml $(AGENT)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "PerfAtlas needs Python 3.11 or newer; this is " + sys.version)'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -c requirements/constraints.txt -r requirements/dev.txt -e backend $(if $(AGENT),-e agent)
	touch $@

install: $(VENV)/.installed

up: install
	@mkdir -p .data
	$(VENV)/bin/perfatlas migrate
	@echo
	@echo "An admin token for this machine (uploads and reads; shown once, older make-up tokens revoked):"
	@$(VENV)/bin/perfatlas token create --scope admin --name make-up --replace --quiet
	@echo
	@echo "PerfAtlas is starting at http://$(HOST):$(PORT)/  (API docs: http://$(HOST):$(PORT)/docs; Ctrl-C stops it)"
	@echo
	PERFATLAS_HOST=$(HOST) PERFATLAS_PORT=$(PORT) $(VENV)/bin/perfatlas serve --no-migrate

services:
	@scripts/ensure-services.sh

system-packages:
	@scripts/ensure-system-packages.sh $(wildcard tests/*/SYSTEM_PACKAGES)

lint: install
	$(VENV)/bin/ruff check backend migrations tests $(if $(AGENT),agent)
	$(VENV)/bin/ruff format --check backend migrations tests $(if $(AGENT),agent)
	cd backend && ../$(VENV)/bin/mypy perfatlas
	$(if $(AGENT),cd agent && ../$(VENV)/bin/mypy src)

pytest: install services system-packages
	$(PY) -m pytest tests -q -p no:cacheprovider --ignore=tests/bench

test: lint pytest

bench: install services system-packages
	$(PY) tests/bench/run.py

lock:
	rm -rf /tmp/perfatlas-lock && $(PYTHON) -m venv /tmp/perfatlas-lock
	/tmp/perfatlas-lock/bin/pip install -q -r requirements/dev.txt -e backend $(if $(AGENT),-e agent)
	( echo '# Every Python package the project installs, pinned. Regenerate with `make lock`.'; \
	  /tmp/perfatlas-lock/bin/pip freeze --exclude-editable | grep -v '^perfatlas' ) > requirements/constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
