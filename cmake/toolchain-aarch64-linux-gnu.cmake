# Cross build for aarch64 Linux with Debian's cross compiler
# (gcc-aarch64-linux-gnu), tests run under qemu-user:
#   cmake -S . -B build/cross-aarch64 \
#     -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-aarch64-linux-gnu.cmake
# scripts/cross.sh aarch64 does this and runs ctest.
set(CMAKE_SYSTEM_PROCESSOR aarch64)
set(cyclock_triple aarch64-linux-gnu)
include(${CMAKE_CURRENT_LIST_DIR}/CyclockCrossLinux.cmake)
