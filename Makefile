# The two commands the README starts with: `make selftest` (main job) and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin

.PHONY: selftest test bench clean

$(BIN)/codebench: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $@

selftest: $(BIN)/codebench
	$(BIN)/codebench puzzles selftest

test: $(BIN)/codebench
	$(BIN)/python -m pytest -q

bench: $(BIN)/codebench
	$(BIN)/python benchmarks/puzzles.py

clean:
	rm -rf $(VENV) .pytest_cache .hypothesis
