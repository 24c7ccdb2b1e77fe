# Compiler settings shared by every cyclock target.
include_guard(GLOBAL)
include(CheckCCompilerFlag)

# Warnings for our own targets.  They stay warnings in a user's build, so
# that another compiler, build type or distribution's flags cannot fail an
# install; the project's test builds (scripts/test.sh) make them errors
# with CYCLOCK_WERROR, and tests/build/build_types.sh builds every type
# with gcc and clang and fails on any warning.
option(CYCLOCK_WERROR "Make warnings errors (scripts/test.sh's builds)" OFF)
set(CYCLOCK_WARNINGS
    -Wall -Wextra
    -Wshadow -Wstrict-prototypes -Wmissing-prototypes
    -Wpointer-arith -Wundef -Wcast-qual -Wwrite-strings)
if(CYCLOCK_WERROR)
  list(APPEND CYCLOCK_WARNINGS -Werror)
endif()

function(cyclock_target_warnings target)
  target_compile_options(${target} PRIVATE ${CYCLOCK_WARNINGS})
endfunction()

# A hosted Linux program (test, example): gnu11, so that <time.h>,
# <signal.h> and <pthread.h> declare POSIX functions without each file
# defining _POSIX_C_SOURCE first.
function(cyclock_hosted_program target)
  set_target_properties(${target} PROPERTIES C_EXTENSIONS ON)
  cyclock_target_warnings(${target})
endfunction()

# Adds -fsanitize=@list to the compile and link of everything configured
# after this call.  Runtime options for the tests are in tests/.
function(cyclock_apply_sanitizers list)
  if(list STREQUAL "")
    return()
  endif()
  if(NOT list MATCHES "^(address|undefined|thread)(,(address|undefined|thread))*$")
    message(FATAL_ERROR "CYCLOCK_SANITIZE: unknown sanitizer list '${list}'")
  endif()
  set(flags -fsanitize=${list} -fno-omit-frame-pointer)
  if(list MATCHES "undefined")
    list(APPEND flags -fno-sanitize-recover=all)   # a UB report fails the test
  endif()
  add_compile_options(${flags})
  add_link_options(${flags})
  # GCC 12 warns (-Wtsan) that TSan ignores atomic_thread_fence; the latch
  # uses fences, so keep the warning visible but not fatal.  Prefer clang.
  if(list MATCHES "thread" AND CMAKE_C_COMPILER_ID STREQUAL "GNU")
    check_c_compiler_flag(-Wtsan CYCLOCK_HAVE_WTSAN)
    if(CYCLOCK_HAVE_WTSAN)
      add_compile_options(-Wno-error=tsan)
    endif()
  endif()
endfunction()
