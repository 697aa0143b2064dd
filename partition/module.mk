# partition/: partition2d, edge file -> 2D partition file (per-rank CSC blocks).
PROGRAMS += partition2d
partition2d_SRCS := partition/main.c partition/route.c partition/csc.c
