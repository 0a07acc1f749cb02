# PerfAtlas: `make up` runs the whole system on embedded defaults; `make test` runs every test.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
# `make up PORT=9000`, or PERFATLAS_PORT=9000 make up (the server's own setting) when PORT is not given.
HOST ?= $(or $(PERFATLAS_HOST),127.0.0.1)
PORT ?= $(or $(PERFATLAS_PORT),8000)
AGENT := $(wildcard agent/pyproject.toml)
# make up FIRST_RUN=0 (or PERFATLAS_FIRST_RUN=0): no quick studies on the first start.
FIRST_RUN ?= 1
export PIP_DISABLE_PIP_VERSION_CHECK := 1
# Python keeps its compiled modules (__pycache__, ignored by git) even where the shell asks it not
# to (PYTHONDONTWRITEBYTECODE=1): without them every process compiles the server and the tests
# anew, about 11 s of CPU for each pytest worker's collection on 2 cores, and more for each
# server and CLI a test starts.
export PYTHONDONTWRITEBYTECODE :=
# pytest's processes (pytest-xdist): the suite mostly waits (beats, leases, servers starting),
# so three share two cores well; TEST_WORKERS=0 runs it in one process.
TEST_WORKERS ?= 3

.PHONY: up test test-fast lint typecheck pytest bench bench-deps bench-load bench-scale bench-growth bench-jobs bench-confirm install services system-packages lock clean help \
	ui ui-install ui-check typegen typegen-check ui-maybe

help:
	@echo "make up      run PerfAtlas on embedded defaults (SQLite under .data/) and print the URL"
	@echo "make test    install what is needed, start PostgreSQL/Redis if needed, run every test"
	@echo "make test-fast  the unit and API tests only (no browser, mounts or slow waits): the edit-test loop"
	@echo "make bench   run the benchmarks; results go to tests/bench/results/"
	@echo "make bench-load  only the load benchmark (concurrent uploads, notifications, Explore readers)"
	@echo "make bench-scale the server benchmark at 10,000,000 results, then the load benchmark on it"
	@echo "make bench-growth the server benchmark at 30,000,000 results (the growth point), then group compare"
	@echo "make bench-jobs  only the jobs benchmark (50 agents long-polling while schedules queue jobs)"
	@echo "make bench-confirm  only the confirmation benchmark (candidate regression to confirmed alert)"
	@echo "make lint    ruff + mypy + the import contracts (.importlinter) only"
	@echo "make ui      build the web UI into frontend/dist (make up and make test do it when needed)"
	@echo "make typegen regenerate frontend/src/api/schema.gen.ts from the server's OpenAPI document"

$(VENV)/.installed: requirements/constraints.txt requirements/dev.txt backend/pyproject.toml $(AGENT)
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "PerfAtlas needs Python 3.11 or newer; this is " + sys.version)'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP) install -q -c requirements/constraints.txt -r requirements/dev.txt -e backend $(if $(AGENT),-e agent)
	touch $@

install: $(VENV)/.installed

up: install ui-maybe
	@mkdir -p .data
	$(VENV)/bin/perfatlas migrate
	@echo
	@echo "An admin token for this machine (uploads and reads; shown once, older make-up tokens revoked):"
	@$(VENV)/bin/perfatlas token create --scope admin --name make-up --replace --quiet
	@# The studies' default reports (and seed 000's reference tables), each only if its slug is free.
	@$(VENV)/bin/perfatlas report defaults
	@echo
	@echo "PerfAtlas is starting at http://$(HOST):$(PORT)/  (API docs: http://$(HOST):$(PORT)/docs; Ctrl-C stops it)"
	@echo "The Overview there shows the first run's progress and, when done, links to the study reports."
	@echo
	PERFATLAS_HOST=$(HOST) PERFATLAS_PORT=$(PORT) $(VENV)/bin/perfatlas serve --no-migrate --with-worker $(if $(filter 0 no false off,$(FIRST_RUN)),--no-first-run,--first-run)

services:
	@scripts/ensure-services.sh

system-packages:
	@scripts/ensure-system-packages.sh $(wildcard tests/*/SYSTEM_PACKAGES)

lint: install ui-format-check
	$(VENV)/bin/ruff check backend migrations tests $(if $(AGENT),agent)
	$(VENV)/bin/ruff format --check backend migrations tests $(if $(AGENT),agent)
	cd backend && ../$(VENV)/bin/mypy perfatlas
	PYTHONPATH=backend $(VENV)/bin/lint-imports --no-cache --no-logo .importlinter
	$(if $(AGENT),cd agent && ../$(VENV)/bin/mypy src)

# The 25 slowest steps (a test's setup, call or teardown) are listed at the end: where the time goes.
pytest: install ui services system-packages
	$(PY) -m pytest tests -q -p no:cacheprovider --ignore=tests/bench -n $(TEST_WORKERS) --durations=25

test: lint ui-check pytest

# The edit-test loop: the unit and API tests on SQLite and PostgreSQL, without a browser, root
# (mounts, a private PostgreSQL) or the slow waits on workers and workloads (the markers:
# pyproject.toml, given by tests/conftest.py). `make test` still runs every test.
FAST_TESTS := not browser and not root and not slow
# Not even collected there: tests/e2e (all browser) and the Schemathesis test (slow: a live
# server), so that no worker imports Playwright, Hypothesis or Schemathesis (their plugins off).
FAST_SKIP := --ignore=tests/e2e --ignore=tests/backend/api/test_schemathesis.py -p no:hypothesispytest -p no:schemathesis

test-fast: install services
	$(PY) -m pytest tests -q -p no:cacheprovider --ignore=tests/bench -n $(TEST_WORKERS) -m "$(FAST_TESTS)" $(FAST_SKIP)

bench: bench-deps system-packages ui
	$(PY) tests/bench/run.py

bench-deps: install services
	$(PIP) install -q -c requirements/constraints.txt -r requirements/bench.txt

bench-load: bench-deps
	$(PY) tests/bench/run.py load

# The server benchmark at 10,000,000 results (tests/bench/results/server-10m.json; about an hour
# on 2 cores: the uploads and the fold take most of it), then the load benchmark on that database.
bench-scale: bench-deps
	BENCH_RESULTS=10000000 $(PY) tests/bench/bench_server.py
	$(PY) tests/bench/bench_server_groups.py
	BENCH_LOAD_DB=perfatlas_bench BENCH_LOAD_RESULTS=10000000 $(PY) tests/bench/bench_load.py

# The growth point at 30,000,000 results (tests/bench/results/server-30m.json, with the 1 M and
# 10 M runs' figures under "growth"; about two hours on 2 cores and 30 GB of disk), then group
# compare on that database (groups-30m.json).
bench-growth: bench-deps
	BENCH_RESULTS=30000000 $(PY) tests/bench/bench_server.py
	$(PY) tests/bench/bench_server_groups.py

bench-jobs: bench-deps
	$(PY) tests/bench/run.py jobs

bench-confirm: bench-deps
	$(PY) tests/bench/run.py confirm

lock:
	rm -rf /tmp/perfatlas-lock && $(PYTHON) -m venv /tmp/perfatlas-lock
	/tmp/perfatlas-lock/bin/pip install -q -r requirements/dev.txt -r requirements/bench.txt -e backend $(if $(AGENT),-e agent)
	( echo '# Every Python package the project installs, pinned. Regenerate with `make lock`.'; \
	  /tmp/perfatlas-lock/bin/pip freeze --exclude-editable | grep -v '^perfatlas' ) > requirements/constraints.txt

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache frontend/node_modules frontend/dist

# ---- web UI (frontend/: React + Vite; needs Node 20+ and npm) ----------------------------------
UI_SOURCES := $(shell find frontend/src -type f 2>/dev/null) frontend/index.html frontend/vite.config.ts \
	frontend/tsconfig.json frontend/package-lock.json
NPM_CI := npm ci --no-audit --no-fund --loglevel=error

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	@command -v npm >/dev/null || { echo "the web UI needs Node 20+ and npm (apt-get install nodejs npm)" >&2; exit 1; }
	cd frontend && $(NPM_CI)
	touch $@

ui-install: frontend/node_modules/.installed

frontend/dist/index.html: frontend/node_modules/.installed $(UI_SOURCES)
	cd frontend && npx vite build --logLevel warn
	@touch $@

ui: frontend/dist/index.html

# `make up` builds the UI when npm is there and the build is missing or older than its sources;
# without Node it serves the API alone and says so.
ui-maybe:
	@if command -v npm >/dev/null; then $(MAKE) --no-print-directory ui; \
	else echo "warning: npm not found: serving the API without the web UI (install Node 20+ for it)" >&2; fi

# The OpenAPI document needs no database: create_app() does not connect until a request.
typegen: install ui-install
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PY) frontend/scripts/dump-openapi.py > "$$tmp/openapi.json" && \
	cd frontend && npx openapi-typescript "$$tmp/openapi.json" -o src/api/schema.gen.ts

# Fails when frontend/src/api/schema.gen.ts does not match what the server's document generates.
typegen-check: install ui-install
	@tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	$(PY) frontend/scripts/dump-openapi.py > "$$tmp/openapi.json" && \
	( cd frontend && npx openapi-typescript "$$tmp/openapi.json" -o "$$tmp/schema.gen.ts" >/dev/null ) && \
	if ! cmp -s frontend/src/api/schema.gen.ts "$$tmp/schema.gen.ts"; then \
	  diff -u frontend/src/api/schema.gen.ts "$$tmp/schema.gen.ts" | head -40; \
	  echo "frontend/src/api/schema.gen.ts is stale: run make typegen and commit it" >&2; exit 1; fi

# The UI's formatting (prettier, frontend/.prettierrc.json); `cd frontend && npm run format` fixes it.
.PHONY: ui-format-check
ui-format-check: ui-install
	cd frontend && npx prettier --check . --log-level warn

# tsc --strict, eslint, prettier, the Vitest unit tests and the generated types' freshness.
ui-check: ui-install typegen-check ui-format-check
	cd frontend && npx tsc -p . --noEmit
	cd frontend && npx eslint . --max-warnings=0
	cd frontend && npx vitest run --reporter=dot
