# traverse/: bfs-gpu, the distributed 2D BFS (CUDA backend when nvcc is found,
# OpenMP CPU backend always).
PROGRAMS += bfs-gpu
bfs-gpu_SRCS   := traverse/main.c traverse/search.c traverse/comm.c traverse/cpu.c
bfs-gpu_CUSRCS := traverse/cuda.cu
