# Everything runs from a local virtualenv; each target creates it when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
STACK  ?= dev

.PHONY: setup plan test lint schema bench bench-install clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

plan: $(STAMP)
	$(BIN)/gpu-platform plan --stack $(STACK)

test: $(STAMP)
	$(BIN)/python -m pytest

# Style, the import layering (config -> spec -> plans -> resources) and both type checkers.
lint: $(STAMP)
	$(BIN)/ruff check components stacks tests examples benchmarks policy scripts __main__.py
	$(BIN)/ruff format --check components stacks tests examples benchmarks policy scripts __main__.py
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy
	for main in examples/*/__main__.py; do $(BIN)/mypy --config-file pyproject.toml "$$main" || exit 1; done
	$(BIN)/python scripts/extract_snippets.py build/doc-snippets
	$(BIN)/mypy --config-file pyproject.toml build/doc-snippets
	$(BIN)/pyright
	$(BIN)/pyright build/doc-snippets

schema: $(STAMP)
	$(BIN)/gpu-platform schema

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py

# Real pip installs of gpu-platform[gke] and [all] into temporary virtualenvs (needs the network, ~2 min).
bench-install: $(STAMP)
	$(BIN)/python benchmarks/install.py

clean:
	rm -rf build
