# The two commands: `make run` (install, load examples/, answer a question) and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV ?= .venv
BIN := $(VENV)/bin
STORE ?= var/store

.PHONY: run test lint install

install: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml .ci/constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -c .ci/constraints.txt -e '.[dev]'
	touch $@

run: install
	$(BIN)/benchgraph ingest --store $(STORE) examples/
	$(BIN)/benchgraph query --store $(STORE) methods-introduced-by-paper --param paper=68fa791f1e209131cea7c381
	$(BIN)/benchgraph query --store $(STORE) methods-reported-by-paper --param paper=68fa791f1e209131cea7c381

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

# pytest exits 5 when it collected no test: that is a failure here, not a pass.
test: lint
	$(BIN)/python -m pytest; rc=$$?; \
	if [ $$rc -eq 5 ]; then echo "no tests were collected" >&2; exit 1; fi; exit $$rc
