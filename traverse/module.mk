# traverse/: bfs-gpu, the distributed 2D BFS (CUDA backend when nvcc is found,
# OpenMP CPU backend always; the CUDA IPC transport with CUDA, the NCCL
# transport when nccl.h is found as well).
PROGRAMS += bfs-gpu
bfs-gpu_SRCS   := traverse/main.c traverse/search.c traverse/transport.c traverse/mpi.c \
                  traverse/ipc.c traverse/nccl.c traverse/cpu.c traverse/plan.c traverse/partfile.c traverse/transpose.c \
                  traverse/records.c traverse/predout.c
# the CUDA backend by phase (docs/DESIGN.md, "Inside bfs-gpu", says which file holds what)
bfs-gpu_CUSRCS := $(addprefix traverse/cuda/,frontier.cu bottom_up.cu fold.cu level.cu preds.cu \
                    compact.cu backend.cu)

# The level plan's unit tests (tests/test_plan.sh): plan.c alone, no MPI.
TESTPROGS += $(BUILD)/tests/plan-test
$(BUILD)/tests/plan-test: tests/plan_test.c tests/unit.h traverse/plan.c traverse/plan.h traverse/backend.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -Itraverse $(LDFLAGS) -o $@ tests/plan_test.c traverse/plan.c

# A local block's rows (tests/test_transpose.sh): transpose.c with common/.
TESTPROGS += $(BUILD)/tests/transpose-test
$(BUILD)/tests/transpose-test: $(patsubst %.c,$(BUILD)/%.o,tests/transpose_test.c traverse/transpose.c $(COMMON_SRCS) $(EXTRA_SRCS))
	@mkdir -p $(@D)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
