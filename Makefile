# The two commands the README starts with: `make demo` (main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
DEMO_OUT ?= runs/demo

.PHONY: demo selftest test bench clean

$(BIN)/codebench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,ray,export,inspect,lmeval,gym]'
	touch $@

# The main job on defaults: a mock model server, both modes on all nine puzzles × six levels; the report, its plots, the HTML page.
demo: $(BIN)/codebench
	scripts/ensure-docker
	$(BIN)/codebench sandbox build
	$(BIN)/codebench demo --out $(DEMO_OUT)

selftest: $(BIN)/codebench
	$(BIN)/codebench puzzles selftest

# Tests need the Docker engine and the sandbox image (start one, installing docker.io if needed; build the other),
# bubblewrap for the local backend, Debian's Chromium for the HTML report's browser tests, and Debian's
# docker-registry for the Ray tests' image distribution.
test: $(BIN)/codebench
	scripts/ensure-docker
	scripts/ensure-bubblewrap
	scripts/ensure-chromium
	scripts/ensure-registry
	$(BIN)/codebench sandbox build
	$(BIN)/python -m pytest -q

bench: $(BIN)/codebench
	$(BIN)/python benchmarks/puzzles.py
	$(BIN)/python benchmarks/sandbox.py
	$(BIN)/python benchmarks/run.py
	$(BIN)/python benchmarks/startup.py
	$(BIN)/python benchmarks/scale.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
