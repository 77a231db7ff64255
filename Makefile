# Two commands: `make run` (set up + start the app) and `make test` (set up + lint + tests).
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: setup run test test-fast lint format bench bench-eval clean

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
	$(PY) -m pytest -n 2 --dist loadfile

test-fast: setup
	$(PY) -m pytest -m "not slow"

lint: setup
	$(PY) -m ruff check .

format: setup
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .

bench: setup
	$(PY) bench/ingest_throughput.py

EVALDATA ?= ../shared/evaldata
# the two `eval run` comparisons of BENCHMARKS.md (issue #6); results in bench/results/
bench-eval: setup
	$(PY) -m ragkit eval run --dataset $(EVALDATA)/scifact --config configs/bm25.json \
		--config configs/hybrid.json --save --json bench/results/evalrun_scifact.json \
		--report bench/results/evalrun_scifact.md
	$(PY) -m ragkit eval run --dataset $(EVALDATA)/xquad_en/xquad.en.json --holdout 0.1 \
		--config configs/sliding-500.json --config configs/sentence-3.json --save \
		--json bench/results/evalrun_xquad.json --report bench/results/evalrun_xquad.md

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
