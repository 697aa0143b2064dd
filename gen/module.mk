# gen/: the graph sources. rmat-gen (Graph500 Kronecker) and snap-import
# (SNAP edge lists, Matrix Market), and edge-export (an edge file out to
# Matrix Market and gapbs edge lists).
PROGRAMS += rmat-gen snap-import edge-export
rmat-gen_SRCS    := gen/rmat_gen.c gen/kronecker.c
snap-import_SRCS := $(wildcard gen/snap_*.c)
edge-export_SRCS := gen/edge_export.c
# the generator's inner loops want the vectorizer (-O3) on every build
$(BUILD)/gen/kronecker.o: CFLAGS += -O3
