# Cross toolchain for bare-metal Arm Cortex-M with Debian's gcc-arm-none-eabi.
#
#   cmake -S examples/firmware/mps2-an385 -B build/firmware \
#         -DCMAKE_TOOLCHAIN_FILE=cmake/toolchain-arm-none-eabi.cmake
#
# It names the compiler and the binutils only; the CPU flags (-mcpu, -mthumb)
# belong to the firmware project, since one toolchain serves every Cortex-M.
# A toolchain installed elsewhere: -DARM_NONE_EABI_PREFIX=/opt/arm/bin/arm-none-eabi-
set(CMAKE_SYSTEM_NAME Generic)
set(CMAKE_SYSTEM_PROCESSOR arm)

set(ARM_NONE_EABI_PREFIX "arm-none-eabi-" CACHE STRING
    "Path and prefix of the cross tools, up to and including the last dash")

set(CMAKE_C_COMPILER ${ARM_NONE_EABI_PREFIX}gcc)
set(CMAKE_ASM_COMPILER ${ARM_NONE_EABI_PREFIX}gcc)
set(CMAKE_OBJCOPY ${ARM_NONE_EABI_PREFIX}objcopy CACHE FILEPATH "objcopy for the target")
set(CMAKE_SIZE ${ARM_NONE_EABI_PREFIX}size CACHE FILEPATH "size for the target")

# There is no C library to link a test program against: CMake's compiler
# check builds a static library instead of an executable.
set(CMAKE_TRY_COMPILE_TARGET_TYPE STATIC_LIBRARY)

# Libraries and headers come from the cross toolchain only, never the host.
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
