# The two commands: `make run` (install, load examples/, serve them, answer a question over HTTP)
# and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STORE ?= var/store
PORT ?= 8080
PAPER := 68fa791f1e209131cea7c381

# Test processes side by side (pytest-xdist; 0 runs the tests in this process).
WORKERS ?= 2

.PHONY: run test lint install bench browser virtuoso

install: $(VENV)/.installed node_modules/.installed

# The SPARQL editor (YASGUI, pinned in package.json and package-lock.json), from the npm
# registry into node_modules/, where the app serves it from; without npm the query page is its
# plain form, and this says so.
node_modules/.installed: package.json package-lock.json
	@if command -v npm >/dev/null; then \
	  npm ci --omit=dev --no-audit --no-fund --ignore-scripts --loglevel=error && touch $@; \
	else echo "no npm: the SPARQL editor is not installed (the query page is its plain form)" >&2; fi

$(VENV)/.installed: pyproject.toml .ci/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c .ci/constraints.txt -e '.[dev]'
	touch $@

# Serves until Ctrl-C; the server stops gracefully and releases the store.
run: install
	$(BIN)/benchgraph ingest --store $(STORE) examples/
	@$(BIN)/benchgraph serve --store $(STORE) --port $(PORT) & server=$$!; \
	trap 'kill $$server 2>/dev/null' INT TERM; \
	if $(BIN)/python -m server.ask http://127.0.0.1:$(PORT)/ methods-introduced-by-paper paper=$(PAPER) \
	   && $(BIN)/python -m server.ask http://127.0.0.1:$(PORT)/ methods-reported-by-paper paper=$(PAPER); \
	then echo "benchgraph is serving http://127.0.0.1:$(PORT)/ (SPARQL: http://127.0.0.1:$(PORT)/sparql); Ctrl-C stops it"; \
	else kill $$server 2>/dev/null; fi; \
	wait $$server

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The browser tests drive Debian's Chromium through its ChromeDriver: installed here when they
# are missing and this is a Debian machine run as root; otherwise those tests are skipped, and
# this says so.
browser:
	@if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium and chromium-driver for the browser tests"; \
	  apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null; \
	else echo "no /usr/bin/chromium and /usr/bin/chromedriver (apt-get install chromium" \
	  "chromium-driver): the browser tests will be skipped" >&2; fi

# The remote-store tests run against Virtuoso too (Debian's virtuoso-opensource): installed here,
# its packaged service kept off, when it is missing and this is a Debian machine run as root;
# otherwise those tests are skipped, and this says so. The tests start their own server.
virtuoso: install
	@if command -v virtuoso-t >/dev/null && command -v isql-vt >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing virtuoso-opensource for the remote-store tests"; \
	  $(BIN)/python -m bench.virtuoso install >/dev/null; \
	else echo "no virtuoso-t (apt-get install virtuoso-opensource): the Virtuoso tests will" \
	  "be skipped" >&2; fi

# pytest exits 5 when it collected no test: that is a failure here, not a pass. Each test file
# runs whole in one process (--dist loadfile), so a file's fixtures are built once.
test: lint browser virtuoso
	$(BIN)/python -m pytest $(if $(filter 0,$(WORKERS)),,-n $(WORKERS) --dist loadfile); rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests were collected" >&2; exit 1; fi; exit $$rc

# Measures at 100 pages, 3 runs each, against peers run alongside: ingest (vs a bulk load), every
# named query over HTTP (vs oxigraph serve and an rdflib endpoint) and validation (vs pyshacl
# page by page and whole-graph); about 5 minutes. Writes BENCHMARKS.md and BENCHMARKS.json.
bench: install
	$(BIN)/python -m bench.run --sizes 100 --repeat 3 --requests 20 --each 5 --out BENCHMARKS.md
