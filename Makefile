# One command does all its own set-up: every target depends on `setup`,
# which creates .venv and installs the project with its dev and embedded
# extras once (the stamp file makes it idempotent).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup test lint bench replay live record clean

setup: $(STAMP)

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install --quiet -e '.[dev,embedded]'
	touch $(STAMP)

test: setup
	$(BIN)/python -m pytest

lint: setup
	$(BIN)/ruff check kernel tests bench

bench: setup
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
