# trawl: the two commands of the README, on a fresh Debian 12 machine.
#   make run    install what is missing, build, read the bundled sample trace
#   make test   install, build, run every test (also under ASan+UBSan)
# Underneath it is Meson + Ninja (build/ and build-asan/).

DEBS := meson ninja-build pkg-config gcc clang libclang-rt-14-dev libelf-dev \
	libcriterion-dev zlib1g-dev libzstd-dev zstd gzip python3 \
	libtracefs-dev libtraceevent-dev libtracecmd-dev trace-cmd \
	man-db bash-completion build-essential dpkg-dev debhelper lintian \
	libcivetweb-dev python3-dev python3-numpy python3-pandas python3-dask \
	python3-distributed python3-matplotlib python3-nbconvert python3-ipykernel chromium libcairo2-dev spin bpftrace bpftool linux-perf libbpf-dev
SAMPLE := tests/fixtures/ftrace-irqinfo.txt
SAMPLE_DAT := tests/fixtures/tc.dat
PAIR := tests/fixtures/pair-broad
BUILD := build
ASAN := build-asan
TSAN := build-tsan
FUZZ := build-fuzz
FUZZ_SECONDS ?= 10
# make install: where (Meson's prefix) and under what staging root
PREFIX ?= /usr/local
DESTDIR ?=
DEB := build-deb

.PHONY: all deps build run test test-unit test-asan test-tsan soak-ring test-cli test-fuzz bench clean format \
	install uninstall deb test-deb test-make-install

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
	@# node and npm for the viewer's browser test (playwright-core, npm ci in
	@# the build dir); nodesource's nodejs brings its own npm, and Debian's npm
	@# conflicts with it, so ask for npm itself, not for the package
	@if ! command -v npm >/dev/null 2>&1; then \
		if [ "$$(id -u)" = 0 ]; then \
			echo "installing: nodejs npm"; \
			DEBIAN_FRONTEND=noninteractive apt-get update -qq && \
			DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nodejs npm >/dev/null; \
		else \
			echo "npm is missing: the browser test of trawl view is skipped (sudo apt-get install nodejs npm)"; \
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

# the ring buffer's stress test under ThreadSanitizer (criterion's tests do
# not start under TSan, so only that plain C program)
$(TSAN)/build.ninja:
	CC=clang meson setup $(TSAN) --buildtype=debug -Db_sanitize=thread -Db_lundef=false

# a long soak of the ring buffer, outside make test: SOAK_EVENTS per writer
# thread in each of stress-ring's five settings
SOAK_EVENTS ?= 20000000
soak-ring: build
	$(BUILD)/tests/stress-ring $(SOAK_EVENTS)

test-tsan: deps $(TSAN)/build.ninja
	ninja -C $(TSAN) tests/stress-ring
	TSAN_OPTIONS=halt_on_error=1 $(TSAN)/tests/stress-ring 20000

test-fuzz: deps $(FUZZ)/build.ninja
	ninja -C $(FUZZ)
	LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp \
	FUZZ_SECONDS=$(FUZZ_SECONDS) fuzz/run-fuzzers.sh $(FUZZ)

test: build
	$(MAKE) test-unit
	$(MAKE) test-asan
	$(MAKE) test-tsan
	$(MAKE) test-fuzz
	$(MAKE) test-make-install
	$(MAKE) test-deb
	@echo "all tests passed"

# Installing is Meson's install (prefix set to PREFIX); uninstall removes
# what this build installs (Meson's list of install targets), under DESTDIR.
install: deps $(BUILD)/build.ninja
	meson configure $(BUILD) -Dprefix=$(PREFIX) >/dev/null
	meson install -C $(BUILD) $(if $(DESTDIR),--destdir "$(DESTDIR)")
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

uninstall: $(BUILD)/build.ninja
	meson configure $(BUILD) -Dprefix=$(PREFIX) >/dev/null
	@meson introspect $(BUILD) --installed | \
		python3 -c 'import json, sys; print("\n".join(json.load(sys.stdin).values()))' | \
		while read -r f; do rm -fv "$(DESTDIR)$$f"; done; \
		rmdir -v "$(DESTDIR)$(PREFIX)/include/trawl" 2>/dev/null || true
	@if [ -z "$(DESTDIR)" ] && [ "$$(id -u)" = 0 ]; then ldconfig; fi

# The Debian packages (trawl, libtrawl0, libtrawl-dev) into $(DEB)/
deb: deps
	tools/deb/build-deb.sh $(DEB)

test-deb: deb
	tests/install/test-deb.sh $(DEB) $(CURDIR) $$(meson introspect --projectinfo meson.build | \
		python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')

# make install / uninstall themselves, in a build dir of their own, into a
# staging root with PREFIX=/usr, as a package build would
test-make-install: deps
	@rm -rf $(BUILD)-install/root
	$(MAKE) --no-print-directory install BUILD=$(BUILD)-install PREFIX=/usr DESTDIR=$(CURDIR)/$(BUILD)-install/root >/dev/null
	$(BUILD)-install/root/usr/bin/trawl --version
	test -f $(BUILD)-install/root/usr/include/trawl/trawl.h
	$(MAKE) --no-print-directory uninstall BUILD=$(BUILD)-install PREFIX=/usr DESTDIR=$(CURDIR)/$(BUILD)-install/root >/dev/null
	@left=$$(find $(BUILD)-install/root ! -type d); \
		if [ -n "$$left" ]; then echo "make uninstall left: $$left"; exit 1; fi
	@echo "make install / make uninstall (PREFIX, DESTDIR): ok"

bench: build
	python3 bench/run.py

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf $(BUILD) $(ASAN) $(FUZZ) $(BUILD)-install $(DEB)
