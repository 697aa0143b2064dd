# bfs2d — top-level Makefile.
#   make               build every program into bin/ (CUDA parts when nvcc is found)
#   make test          dependencies, release + sanitizer builds, the quick tier of the
#                      test suite (tests/run.sh --quick: minutes)
#   make test-all      the same builds and every test script against both (CI)
#   make demo          the whole chain on a small embedded default
#   make install PREFIX=/usr/local
#   make clean
#   make print-nvcc    the CUDA compiler and flags the build uses (empty without nvcc)
# Each stage directory adds its programs in its own module.mk.

PREFIX   ?= /usr/local
CC       := mpicc
NVCC     ?= $(shell command -v nvcc 2>/dev/null || ls /usr/local/cuda/bin/nvcc 2>/dev/null)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))
HDF5_CFLAGS := $(shell pkg-config --cflags hdf5-mpich 2>/dev/null)
HDF5_LIBS   := $(shell pkg-config --libs hdf5-mpich 2>/dev/null)

OPT      ?= -O2
CFLAGS   ?= $(OPT) -g
CFLAGS   += -std=c11 -D_GNU_SOURCE -Wall -Wextra -fopenmp -Icommon $(HDF5_CFLAGS)
LDLIBS   += $(HDF5_LIBS) -lz -lm -fopenmp

ifeq ($(SAN),1)
# ASan+UBSan build of the host code: no CUDA (its runtime and ASan disagree
# about the address space), separate objects and binaries.
BUILD    := build/san
BINDIR   := build/san/bin
NVCC     :=
CFLAGS   += -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined
LDFLAGS  += -fsanitize=address,undefined
EXTRA_SRCS := tests/san_keep_modules.c
else
BUILD    := build/rel
BINDIR   := bin
endif

ifneq ($(NVCC),)
HAVE_CUDA := 1
CFLAGS   += -DB2_HAVE_CUDA
NVFLAGS  ?= -O3 -std=c++17 -gencode arch=compute_90,code=[sm_90,compute_90] -lineinfo \
            -Xcompiler -Wall,-Wextra -Icommon
CUDA_LIBS := -L$(CUDA_HOME)/lib64 -lcudart_static -ldl -lrt -lpthread -lstdc++
# host code that calls the CUDA runtime (traverse/ipc.c, nccl.c)
CFLAGS   += -I$(CUDA_HOME)/include
# NCCL transport: built when nccl.h is found (the CUDA toolkit ships it;
# NCCL_HOME elsewhere); libnccl is loaded at run time, not linked
NCCL_HOME ?= $(CUDA_HOME)
ifneq ($(wildcard $(NCCL_HOME)/include/nccl.h),)
HAVE_NCCL := 1
CFLAGS   += -DB2_HAVE_NCCL -I$(NCCL_HOME)/include
endif
endif

# The commit built in (provenance.c, --version): `git describe` of this
# checkout, "unknown" outside one. A stamp file that changes only with the
# commit makes provenance.o, and nothing else, recompile when it does.
GIT_COMMIT := $(shell git -C $(CURDIR) describe --always --dirty 2>/dev/null || echo unknown)
$(shell mkdir -p $(BUILD) && (echo '$(GIT_COMMIT)' | cmp -s - $(BUILD)/git-commit || echo '$(GIT_COMMIT)' > $(BUILD)/git-commit))
$(BUILD)/common/provenance.o: CFLAGS += -DB2_GIT_COMMIT='"$(GIT_COMMIT)"'
$(BUILD)/common/provenance.o: $(BUILD)/git-commit

.DEFAULT_GOAL := all
PROGRAMS :=
COMMON_SRCS := $(wildcard common/*.c)
include $(wildcard */module.mk)

OBJ = $(patsubst %.c,$(BUILD)/%.o,$(1))
CUOBJ = $(if $(HAVE_CUDA),$(patsubst %.cu,$(BUILD)/%.cu.o,$(1)))

define PROGRAM_RULE
$(BINDIR)/$(1): $(call OBJ,$($(1)_SRCS) $(COMMON_SRCS) $(EXTRA_SRCS)) $(call CUOBJ,$($(1)_CUSRCS))
	@mkdir -p $$(@D)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS) $(if $(and $(HAVE_CUDA),$($(1)_CUSRCS)),$$(CUDA_LIBS))
endef
$(foreach p,$(PROGRAMS),$(eval $(call PROGRAM_RULE,$(p))))

.PHONY: all deps test test-all demo clean install san check-deps print-nvcc
all: $(addprefix $(BINDIR)/,$(PROGRAMS)) $(TESTPROGS)

$(BUILD)/%.o: %.c
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -MMD -MP -c -o $@ $<

$(BUILD)/%.cu.o: %.cu
	@mkdir -p $(@D)
	$(NVCC) $(NVFLAGS) -MMD -MP -c -o $@ $<

-include $(shell find build -name '*.d' 2>/dev/null)

# The Debian packages bfs2d needs; installed when root, else the command is shown.
DEB_PACKAGES := mpich libmpich-dev libhdf5-mpich-dev hdf5-tools zlib1g-dev
deps:
	@missing=""; for p in $(DEB_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q 'install ok installed' || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "deps: installing$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null || exit 4; \
	  else \
	    echo "deps: missing packages; run as root:"; \
	    echo "  sudo apt-get update && sudo apt-get install -y$$missing"; exit 4; \
	  fi; \
	fi
	@python3 -c 'import numpy, h5py' 2>/dev/null || { \
	  echo "deps: installing numpy and h5py for the tests"; \
	  python3 -m pip install -q numpy h5py || { echo "deps: run: python3 -m pip install numpy h5py"; exit 4; }; }

san:
	$(MAKE) SAN=1 all

JOBS ?= $(shell nproc 2>/dev/null || echo 2)
# Both end in one line "N passed, M failed" (exit status 1 when M > 0).
test: deps
	$(MAKE) -j$(JOBS) all
	$(MAKE) -j$(JOBS) SAN=1 all
	tests/run.sh --quick
test-all: deps
	$(MAKE) -j$(JOBS) all
	$(MAKE) -j$(JOBS) SAN=1 all
	tests/run.sh

demo: deps
	$(MAKE) -j$(JOBS) all
	$(MAKE) -f pipeline.mk demo

install: all
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(addprefix $(BINDIR)/,$(PROGRAMS)) $(DESTDIR)$(PREFIX)/bin/

clean:
	rm -rf build bin tests/tmp

# the CUDA compiler and its flags, for tests that compile kernels as the
# build does (tests/test_cuda_registers.py); empty without nvcc
print-nvcc:
	@echo $(NVCC) $(NVFLAGS)
