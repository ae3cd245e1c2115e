# Everything runs from a local virtualenv; each target creates it when missing.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
STACK  ?= dev
# `make plan` installs only the SDK of the stack's cloud (`gpu-platform:cloud` in stacks/Pulumi.$(STACK).yaml);
# a cloud the library creates nothing in (existing, openshift, yandex) needs none.
PLAN_CLOUD := $(shell sed -n 's/^ *gpu-platform:cloud: *\([a-z]*\).*/\1/p' stacks/Pulumi.$(STACK).yaml 2>/dev/null)
PLAN_EXTRA := $(or $(filter gke eks aks,$(PLAN_CLOUD)),base)

.PHONY: setup plan test control-plane pulumi-tools lint schema bench bench-install clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@echo "make setup: installing gpu-platform[dev] into $(VENV): every cloud's Pulumi SDK, Helm's engine and the"
	@echo "  test and lint tools (about 1.6 GB, a few minutes on a fresh machine; pip shows its progress below)"
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	touch $(STAMP)

# The plan's own install: the checkout with its stack's cloud extra (gke: about 450 MB, under a minute), or
# nothing when `make setup` already installed everything.
$(VENV)/.installed-%: pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then touch $@; else \
	  spec=".[$*]"; [ "$*" = base ] && spec=.; \
	  echo "make plan: installing gpu-platform$${spec#.} into $(VENV), what the $(STACK) stack's plan needs"; \
	  $(BIN)/python -m pip install --quiet --upgrade pip && \
	  $(BIN)/python -m pip install --progress-bar on -e "$$spec" && touch $@; fi

plan: $(VENV)/.installed-$(PLAN_EXTRA)
	$(BIN)/gpu-platform plan --stack $(STACK)

test: $(STAMP)
	$(BIN)/python -m pytest

# The local control plane tests/control_plane runs against (kube-apiserver, kube-scheduler,
# kube-controller-manager, etcd, Kueue, kwok), built from tools/control-plane into ~/.cache/gpu-platform
# once; `make test` builds it too when it is missing.
control-plane: $(STAMP)
	$(BIN)/python scripts/control_plane.py build

# The Pulumi CLI and Kubernetes provider the tests/control_plane/test_pulumi_up*.py tests run (built from
# tools/pulumi into ~/.cache/gpu-platform/pulumi once; `make test` builds them too when they are missing).
pulumi-tools: $(STAMP)
	$(BIN)/python scripts/pulumi_tools.py build

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
