# One command does all its own set-up: every target depends on `setup`,
# which creates .venv and installs the project with its dev and embedded
# extras once (the stamp file makes it idempotent).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup test lint bench replay live record clean

setup: $(STAMP)

$(STAMP): pyproject.toml setup.py kernel/log/_chain.c
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

# Re-run every committed scenario with the replay oracle (no model) and
# compare each log's head hash with the digest committed in fixtures/.
replay: setup
	$(BIN)/village replay

# A live run against a local Ollama server ($$OLLAMA_HOST or configs/models.json).
# The server's digest for the model must be pinned in configs/models.json, or
# accepted for this run: make live LIVE_FLAGS=--accept-digest
LIVE ?= day-of-three
LIVE_FLAGS ?=
live: setup
	$(BIN)/village run $(LIVE) --oracle ollama $(LIVE_FLAGS)

# Re-record every committed scenario with the embedded model (llama.cpp).
RECORDED := day-of-three five-days-of-halla day-of-twenty-four
record: setup
	for s in $(RECORDED); do $(BIN)/village run $$s --oracle llamacpp --record || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info
