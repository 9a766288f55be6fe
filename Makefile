# Set-up and checks. `make demo` and `make test` each create .venv and install what they need.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# Isolated model runtimes (e.g. whisper-tiny.en) go to .venv-runtimes/ beside .venv: audioeval's
# default for a project's .venv, so `make` and `.venv/bin/audioeval` in a shell find the same ones.
export HF_HUB_OFFLINE ?= 1
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: demo test lint bench clean system-deps browser-deps java-deps runtimes

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[speech]"
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e ".[dev]"
	touch $@ $(VENV)/.installed

# Optional, for `make test`: torch (CPU), resemblyzer, the SIM backend that papers report, and
# snac (its tiny model tests the snac runtime recipe), so that their tests run. Only where pip
# can install a torch 2.13.0 wheel without an index (a local CPU build on its find-links); never
# downloaded (PyPI's torch is a multi-GB CUDA build). Elsewhere their tests are skipped, saying why.
$(VENV)/.installed-torch: $(VENV)/.installed-dev
	@if $(BIN)/python -m pip install --quiet --dry-run --no-index --no-deps torch==2.13.0 >/dev/null 2>&1; then \
	  $(BIN)/python -m pip install --quiet torch==2.13.0 webrtcvad-wheels && \
	  $(BIN)/python -m pip install --quiet --no-deps resemblyzer snac==1.2.1; \
	else \
	  echo "no local CPU build of torch 2.13.0 for pip: the resemblyzer SIM tests will be skipped"; \
	fi
	touch $@

# Debian packages: espeak-ng (the embedded TTS model and test speech); for the tests also
# chromium and chromium-driver (they render the HTML report headless, as a person sees it, and
# drive it through Selenium).
system-deps:
	@command -v espeak-ng >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends espeak-ng >/dev/null; }

browser-deps:
	@{ command -v chromium && command -v chromedriver; } >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null; }

# Debian's Java runtime: the caption metrics' PTB tokenizer, METEOR and SPICE (the `captions`
# extra) run pycocoevalcap's jars.
java-deps:
	@command -v java >/dev/null 2>&1 || { \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends default-jre-headless >/dev/null; }

runtimes: $(VENV)/.installed
	$(BIN)/audioeval runtime setup whisper-tiny.en

demo: $(VENV)/.installed system-deps runtimes
	$(BIN)/audioeval run examples/demo.yaml
	$(BIN)/audioeval codec --codec opus:6k,opus:12k,opus:24k,codec2:3200 --benchmark demo-speech-en --output_dir demo_out/codec
	$(BIN)/python examples/mmae_demo.py
	$(BIN)/audioeval report demo_out/eval

# Compiled modules are cached (__pycache__/, git-ignored) even where the environment sets
# PYTHONDONTWRITEBYTECODE: the suite starts hundreds of Python processes (workers, the CLI
# in subprocesses), and each would otherwise compile the package again.
test: $(VENV)/.installed-dev $(VENV)/.installed-torch system-deps browser-deps java-deps runtimes
	env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -q -n 4 --dist loadfile

lint: $(VENV)/.installed-dev
	$(BIN)/ruff check src tests bench examples

bench: $(VENV)/.installed-dev
	$(BIN)/python bench/judge_throughput.py

clean:
	rm -rf $(VENV) .venv-runtimes demo_out runs .pytest_cache
