# Two commands: `make run` (set up + start the app) and `make test` (set up + lint + tests).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-fast lint format bench clean

setup: $(STAMP)

$(STAMP): requirements.txt pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --upgrade pip
	# torch alone first: the pinned CPU wheel, before anything can ask for a CUDA build
	$(PY) -m pip install torch==2.13.0
	$(PY) -m pip install -r requirements.txt
	$(PY) -m pip install --no-deps -e .
	touch $(STAMP)

run: setup
	$(PY) -m streamlit run streamlit_app.py

test: setup lint
	$(PY) -m pytest

test-fast: setup
	$(PY) -m pytest -m "not slow"

lint: setup
	$(PY) -m ruff check .

format: setup
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: setup
	$(PY) bench/ingest_throughput.py

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
