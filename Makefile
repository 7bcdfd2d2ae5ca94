# trawl: the two commands of the README, on a fresh Debian 12 machine.
#   make run    install what is missing, build, read the bundled sample trace
#   make test   install, build, run every test (also under ASan+UBSan)
# Underneath it is Meson + Ninja (build/ and build-asan/).

DEBS := meson ninja-build pkg-config gcc clang libclang-rt-14-dev \
	libcriterion-dev zlib1g-dev libzstd-dev zstd gzip python3 \
	libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd \
	man-db bash-completion
SAMPLE := tests/fixtures/ftrace-irqinfo.txt
SAMPLE_DAT := tests/fixtures/tc.dat
PAIR := tests/fixtures/pair-broad
BUILD := build
ASAN := build-asan
FUZZ := build-fuzz
FUZZ_SECONDS ?= 10

.PHONY: all deps build run test test-unit test-asan test-cli test-fuzz bench clean format

all: build

deps:
	@missing=""; for p in $(DEBS); do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing:$$missing"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
		else \
			echo "missing Debian packages:$$missing"; \
			echo "run as root, or: sudo apt-get install$$missing"; exit 2; \
		fi; \
	fi

$(BUILD)/build.ninja:
	meson setup $(BUILD) --buildtype=release

build: deps $(BUILD)/build.ninja
	ninja -C $(BUILD)
	@ln -sf tools/trawl/trawl $(BUILD)/trawl

run: build
	@echo "== trawl stats $(SAMPLE)"
	@$(BUILD)/trawl stats $(SAMPLE)
	@echo
	@echo "== trawl report $(SAMPLE) --events 'sched_switch,print' (first 15)"
	@$(BUILD)/trawl report $(SAMPLE) --events 'sched_switch,print' | head -n 15
	@echo
	@echo "== trawl latency wakeup $(SAMPLE)"
	@$(BUILD)/trawl latency wakeup $(SAMPLE) | head -n 12
	@echo
	@echo "== trawl stats $(SAMPLE_DAT) (trace-cmd's trace.dat, v7 zstd)"
	@$(BUILD)/trawl stats $(SAMPLE_DAT) | head -n 16
	@echo
	@echo "== one recording read as the kernel's text and as trace.dat: the same fields and values"
	@$(BUILD)/trawl report --raw --events 'sys_enter,kmalloc' $(PAIR).txt | head -n 2
	@$(BUILD)/trawl report --raw --events 'sys_enter,kmalloc' $(PAIR).dat | head -n 2

$(ASAN)/build.ninja:
	CC=clang meson setup $(ASAN) --buildtype=debug -Db_sanitize=address,undefined -Db_lundef=false

$(FUZZ)/build.ninja:
	CC=clang meson setup $(FUZZ) --buildtype=debugoptimized -Dfuzz=true -Dtests=false -Db_lundef=false

test-unit: build
	meson test -C $(BUILD) --print-errorlogs

test-asan: deps $(ASAN)/build.ninja
	ninja -C $(ASAN)
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
		meson test -C $(ASAN) --print-errorlogs

test-fuzz: deps $(FUZZ)/build.ninja
	ninja -C $(FUZZ)
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run-fuzzers.sh $(FUZZ)

test: build
	$(MAKE) test-unit
	$(MAKE) test-asan
	$(MAKE) test-fuzz
	@echo "all tests passed"

bench: build
	python3 bench/run.py

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ)
