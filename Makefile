# SPDX-License-Identifier: GPL-2.0
#
# make                 build mrc.ko (against the installed Debian kernel) and
#                      the user-space tools and tests
# make modules         mrc.ko only        make tools     mrcctl, mrc-perf,
#                                                        mrc-sim and
#                      libmrc-fi.so (the libfabric provider, tools/libmrc-fi)
# make testmods        the test modules (selftests/mrc/modules: mrc_echo,
#                      mrc_udfloor), after mrc.ko
# make W=1             extra warnings     make sparse    sparse (C=2) check
# make checkpatch      kernel style check of the sources
# make coccicheck      the kernel's Coccinelle semantic patches in report mode
#                      over mrc/ and uapi/ (scripts/cocci-check; fails on
#                      any report)
# make kernel-doc      scripts/kernel-doc -none -v over mrc/ and mrc/core/,
#                      and every non-static function documented at its
#                      definition (scripts/kernel-doc-check)
# make ynl-gen         regenerate uapi/linux/mrc_netlink.h (the family's
#                      numbers) from Documentation/netlink/specs/mrc.yaml
#                      with the kernel's ynl-gen-c.py (scripts/ynl-gen)
# make install         mrc.ko into /lib/modules/$(KVER)/updates + depmod,
#                      libmrc-fi.so into libfabric's provider directory
# make check-fast      build + user-space unit tests (seconds)
# make check           everything: fast tier + the VM suite (minutes)
#
# KDIR defaults to the newest installed /lib/modules/*-amd64/build (never
# `uname -r`: the build host's own kernel is not the target).

# One job per CPU unless the caller chose (-j): the whole build is about a
# minute on one job of this project's 2-CPU machines.
ifeq ($(filter -j%,$(MAKEFLAGS)),)
MAKEFLAGS += -j$(shell nproc)
endif

KDIR ?= $(shell ls -d /lib/modules/*-amd64/build 2>/dev/null | sort -V | tail -n 1)
KVER ?= $(notdir $(patsubst %/build,%,$(KDIR)))
PWD := $(shell pwd)

.PHONY: all modules testmods tools selftests sparse checkpatch coccicheck kernel-doc \
	ynl-gen install uninstall check check-fast clean

all: modules testmods tools selftests

modules:
	@test -n "$(KDIR)" -a -d "$(KDIR)" || \
		{ echo "No kernel build dir: install linux-headers-amd64 or set KDIR=" >&2; exit 1; }
	$(MAKE) -C $(KDIR) M=$(PWD) modules

# mrc_echo links to mrc.ko's symbols (Module.symvers): after modules.
testmods: modules
	$(MAKE) -C selftests/mrc/modules KDIR=$(KDIR)

tools:
	$(MAKE) -C tools
	$(MAKE) -C tools/mrc-sim

selftests:
	$(MAKE) -C selftests/mrc

sparse:
	$(MAKE) -C $(KDIR) M=$(PWD) C=2 CF="-D__CHECK_ENDIAN__" modules

CHECKPATCH ?= $(firstword $(wildcard $(KDIR)/scripts/checkpatch.pl) \
		$(wildcard build/linux-source/scripts/checkpatch.pl))
# Ignored: the X-macro knob list (config_knobs.h) and the code it generates
# trip COMPLEX_MACRO, MACRO_ARG_REUSE, TRAILING_SEMICOLON and BRACKET_SPACE;
# compat.h defines the kernel types and __packed for user space
# (PREFER_KERNEL_TYPES, PREFER_DEFINED_ATTRIBUTE_MACRO).
CHECKPATCH_IGNORE := FILE_PATH_CHANGES,COMPLEX_MACRO,MACRO_ARG_REUSE,\
	TRAILING_SEMICOLON,BRACKET_SPACE,PREFER_KERNEL_TYPES,\
	PREFER_DEFINED_ATTRIBUTE_MACRO
# compat.h's user-space half is a copy of kernel internals (minmax.h,
# list.h, READ_ONCE, atomic64_t), which trip what a driver should not do:
# CAMELCASE (_Static_assert, _Pragma), VOLATILE, NEW_TYPEDEFS and
# MACRO_ARG_PRECEDENCE (list_for_each_entry's member).
CHECKPATCH_IGNORE_COMPAT := $(CHECKPATCH_IGNORE),CAMELCASE,VOLATILE,\
	NEW_TYPEDEFS,MACRO_ARG_PRECEDENCE
# trace.h is TRACE_EVENT() blocks laid out as the kernel's own trace
# headers are (one argument per line after an open parenthesis).
CHECKPATCH_IGNORE_TRACE := $(CHECKPATCH_IGNORE),OPEN_ENDED_LINE,\
	PARENTHESIS_ALIGNMENT
# uapi/linux/mrc_netlink.h is not checked: it is generated (make ynl-gen),
# and the kernel does not checkpatch generated files either; its style is
# the generator's, its content the spec's.
checkpatch:
	@test -n "$(CHECKPATCH)" || \
		{ echo "checkpatch.pl not found: run scripts/get-checkpatch" >&2; exit 1; }
	rc=0; \
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore $(subst $(eval) ,,$(CHECKPATCH_IGNORE)) \
		-f mrc/*.c $(filter-out mrc/trace.h,$(wildcard mrc/*.h)) \
		$(filter-out mrc/core/compat.h,$(wildcard \
		mrc/core/*.c mrc/core/*.h)) uapi/linux/mrc.h || rc=1; \
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore $(subst $(eval) ,,$(CHECKPATCH_IGNORE_TRACE)) \
		-f mrc/trace.h || rc=1; \
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore $(subst $(eval) ,,$(CHECKPATCH_IGNORE_COMPAT)) \
		-f mrc/core/compat.h || rc=1; \
	$(CHECKPATCH) --no-tree --strict --terse --show-types \
		--ignore $(subst $(eval) ,,$(CHECKPATCH_IGNORE)) \
		-f $(filter-out %.mod.c,$(wildcard selftests/mrc/modules/*/*.c)) || rc=1; \
	exit $$rc

coccicheck:
	KDIR=$(KDIR) scripts/cocci-check

kernel-doc:
	KDIR=$(KDIR) scripts/kernel-doc-check

# Through build/ynl (selftests/mrc/ynl/get-ynl, from linux-source-6.12)
# and a temporary tree with an empty MAINTAINERS, where the generator's
# find_kernel_root() stops.  The fast tier checks the committed header
# against the spec the same way (scripts/ynl-gen --check).
ynl-gen:
	scripts/ynl-gen

# INSTALL_MOD_PATH=DIR installs under DIR (a staging root) instead of /.
install: modules
	$(MAKE) -C $(KDIR) M=$(PWD) INSTALL_MOD_DIR=updates \
		INSTALL_MOD_PATH=$(INSTALL_MOD_PATH) modules_install
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)
	$(MAKE) -C tools/libmrc-fi DESTDIR=$(INSTALL_MOD_PATH) install

uninstall:
	rm -f $(INSTALL_MOD_PATH)/lib/modules/$(KVER)/updates/mrc.ko
	$(MAKE) -C tools/libmrc-fi DESTDIR=$(INSTALL_MOD_PATH) uninstall
	depmod $(if $(INSTALL_MOD_PATH),-b $(INSTALL_MOD_PATH)) -a $(KVER)

check-fast:
	selftests/mrc/run_tests.sh --fast

check:
	selftests/mrc/run_tests.sh

clean:
	-$(MAKE) -C $(KDIR) M=$(PWD) clean
	-$(MAKE) -C tools clean
	-$(MAKE) -C tools/mrc-sim clean
	-$(MAKE) -C selftests/mrc clean
	-$(MAKE) -C selftests/mrc/modules KDIR=$(KDIR) clean
