# common/: the library every program links (COMMON_SRCS, set in the Makefile).
