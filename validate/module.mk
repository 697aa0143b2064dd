# validate/: bfs-validate, Graph500 validation of every kept BFS tree.
PROGRAMS += bfs-validate
bfs-validate_SRCS := validate/main.c validate/vgraph.c
