# Cross build for riscv64 Linux with Debian's cross compiler
# (gcc-riscv64-linux-gnu), tests run under qemu-user:
#   cmake -S . -B build/cross-riscv64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-riscv64-linux-gnu.cmake
# scripts/cross.sh riscv64 does this and runs ctest.
set(CMAKE_SYSTEM_PROCESSOR riscv64)
set(cyclock_triple riscv64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/CyclockCrossLinux.cmake)
