# wiremap: every target sets itself up (a fresh venv from PyPI) on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo generate check test typecheck translation docs bench fuzz clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

setup: $(STAMP)

## The main job: regenerate generated/ from mappings/ and show it working.
demo: $(STAMP)
	$(PY) -m wiremap generate
	@echo "--- formats"
	$(PY) -m wiremap formats
	@echo "--- examples/weather_request.json as openai_chat"
	$(PY) -m wiremap render --format openai_chat examples/weather_request.json
	@echo "--- examples/weather_request.json as anthropic_messages"
	$(PY) -m wiremap render --format anthropic_messages examples/weather_request.json
	@echo "--- that OpenAI body translated to Gemini generateContent (losses on stderr)"
	$(PY) -m wiremap render --format openai_chat examples/weather_request.json | $(PY) -m wiremap translate --from openai_chat --to gemini_generate_content
	@echo "--- the compatibility matrix: generated/COMPATIBILITY.md; the translation matrix: generated/TRANSLATION.md"
	@echo "--- the generated fixture tests"
	$(PY) -m pytest -q -p no:cacheprovider generated

generate: $(STAMP)
	$(PY) -m wiremap generate

## Regenerates in memory and fails on any difference from the committed generated/.
check: $(STAMP)
	$(PY) -m wiremap check

## generated/TRANSLATION.md: the shared corpus through every source -> target pair.
translation: $(STAMP)
	$(PY) tests/translate/matrix.py --write generated/TRANSLATION.md

## docs/api.md from the public names' signatures and docstrings (tests/test_api_docs.py checks it).
docs: $(STAMP)
	$(PY) -m wiremap._apidoc

## mypy --strict on the whole package (runtime, generator, generated code, wiremap's modules), as an
## installed wheel lays it out.
typecheck: $(STAMP)
	rm -rf build/typecheck
	$(PY) -m pip install --quiet --no-deps --target build/typecheck .
	cd build/typecheck && ../../$(PY) -m mypy --strict --no-incremental -p wiremap

## The whole suite: generated code in sync, tests (generated fixture tests included), types.
test: $(STAMP)
	$(PY) -m wiremap check
	$(PY) -m pytest -q -n auto
	$(MAKE) --no-print-directory typecheck

## Benchmarks against the hand-written floor and LiteLLM (issue #6): writes bench/RESULTS.md.
## Never run by the test suite. LiteLLM gets a venv of its own (.venv-bench): it pins openai<3,
## which must not replace the openai SDK the test suite's oracles check against.
BENCH_VENV := .venv-bench
BENCH_STAMP := $(BENCH_VENV)/.installed
$(BENCH_STAMP): pyproject.toml
	$(PYTHON) -m venv $(BENCH_VENV)
	$(BENCH_VENV)/bin/python -m pip install --quiet --upgrade pip
	$(BENCH_VENV)/bin/python -m pip install --quiet -e '.[codegen,bench,dask]'
	touch $(BENCH_STAMP)

## The gateway against LiteLLM's proxy (bench/gateway_vs_litellm.py, ~10 min + the RSS run):
## GATEWAY_RSS_REQUESTS between the two RSS readings of each server (0 skips the run).
GATEWAY_RSS_REQUESTS ?= 100000
bench: $(BENCH_STAMP)
	LITELLM_LOCAL_MODEL_COST_MAP=True $(BENCH_VENV)/bin/python bench/gateway_vs_litellm.py --rss-requests $(GATEWAY_RSS_REQUESTS) --no-section
	LITELLM_LOCAL_MODEL_COST_MAP=True $(BENCH_VENV)/bin/python bench/run.py

## The long fuzz run: FUZZ_CASES per format (default 1 000 000) through every entry point of
## every format, then bench/RESULTS.md is rewritten with the counts and findings.
FUZZ_CASES ?= 1000000
FUZZ_JOBS ?= 2
## then mutated mapping files through the generator (~0.5-3 s each): per golden / real file.
## Each writes its JSON (bench/fuzz*-results.json) and its section of bench/RESULTS.md.
FUZZ_MAPPING_CASES ?= 2000
FUZZ_MAPPING_REAL_CASES ?= 20
## then `wiremap convert` over files of random lines for FUZZ_CONVERT_SECONDS (bench/fuzz_convert.py).
FUZZ_CONVERT_SECONDS ?= 600
fuzz: $(STAMP)
	$(PY) bench/fuzz.py --cases $(FUZZ_CASES) --jobs $(FUZZ_JOBS)
	$(PY) bench/fuzz_mappings.py --cases $(FUZZ_MAPPING_CASES) --real-cases $(FUZZ_MAPPING_REAL_CASES)
	$(PY) bench/fuzz_convert.py --seconds $(FUZZ_CONVERT_SECONDS) --jobs $(FUZZ_JOBS)

clean:
	rm -rf $(VENV) $(BENCH_VENV) build *.egg-info .pytest_cache .mypy_cache .hypothesis
