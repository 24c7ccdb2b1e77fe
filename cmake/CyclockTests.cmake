# One rule for the tests: a folder of tests/ registers every file in it by
# the prefix of its name, with cyclock_add_tests().  The prefixes:
#   test_<name>.c       behaviour (cmocka where the folder links it), run as is
#   sim_<name>.c        behaviour over the simulated counter and kernel clocks
#                       (libcyclock_sim.a, see cyclock/arch/sim.h)
#   validate_<name>.c   a writer keeps an invariant changing while readers
#                       check it, run as "<program> SECONDS"
#   validate_sim_<name>.c  the same over the simulated counter
#   cost_<name>.c       a measuring program, run by hand: built, not a test
#   test_<name>.sh      (with SCRIPTS) a test script, run as "bash <script>"
# A file with any other name is an error, unless the folder lists it in
# NOT_TESTS (a helper its CMakeLists.txt builds itself); so is a prefix the
# folder gives no libraries for.  The glob re-runs CMake when a file comes
# or goes, so a renamed test is registered under its new name, never lost.
# Each program is the target <folder>_<file name> and the CTest test of the
# same name, labelled by its kind (test, sim, validate) and its folder.
include_guard(GLOBAL)

# cyclock_add_tests(<folder>
#   [TEST libs...] [SIM libs...] [VALIDATE libs...] [VALIDATE_SIM libs...]
#   [COST libs...]          what each kind of program links; a kind not given
#                           is not allowed in the folder
#   [SPLIT]                 each test_ program again, as <name>_split, linked
#                           to cyclock_split instead of cyclock_static
#   [SCRIPTS]               test_*.sh are tests too
#   [INCLUDE dirs...]       include directories beyond tests/common
#   [NOT_TESTS files...]    the folder's helpers (must exist)
#   [PER_READ files...]     tests run again under each ordered read the
#                           build offers, forced: <name>_<read>, e.g.
#                           cli_test_info_lfence (see below)
#   [SECONDS n]             a validate program's argument (default 3)
#   [TIMEOUT s] [VALIDATE_TIMEOUT s] [SKIP_RETURN_CODE rc] [RUN_SERIAL]
#   [ENVIRONMENT vars...] [LABELS labels...])
# A kind linking cyclock_cmocka is left out where cmocka was not found.
# Sets cyclock_tests in the caller to the tests it registered, the per-read
# variants included.
#
# Per read: which ordered counter read the library uses is chosen by
# timing on the CPU at hand (docs/hosted.md, "Which ordered read"), so a
# test that passes where one read wins may hide a failure under the other.
# Each PER_READ test is registered once more for each read in
# CYCLOCK_TEST_READS (tests/CMakeLists.txt: x86-64's rdtscp and lfence),
# run by tests/common/per_read.sh with CYCLOCK_ORDERED_READ set to it, or
# skipped with a line saying why where the CPU does not order that read.
# The plain test keeps the automatic choice.  Variants are labelled per_read.
function(cyclock_add_tests folder)
  # ${ARGN}, not PARSE_ARGV: an ENVIRONMENT of "A=1;B=2" is two variables.
  cmake_parse_arguments(arg "SPLIT;SCRIPTS;RUN_SERIAL"
    "SECONDS;TIMEOUT;VALIDATE_TIMEOUT;SKIP_RETURN_CODE"
    "TEST;SIM;VALIDATE;VALIDATE_SIM;COST;INCLUDE;NOT_TESTS;PER_READ;ENVIRONMENT;LABELS" ${ARGN})
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cyclock_add_tests(${folder}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT DEFINED arg_SECONDS)
    set(arg_SECONDS 3)
  endif()
  if(NOT DEFINED arg_TIMEOUT)
    set(arg_TIMEOUT 120)
  endif()
  if(NOT DEFINED arg_VALIDATE_TIMEOUT)
    set(arg_VALIDATE_TIMEOUT ${arg_TIMEOUT})
  endif()
  set(here ${CMAKE_CURRENT_SOURCE_DIR})
  file(RELATIVE_PATH where ${PROJECT_SOURCE_DIR} ${here})
  foreach(file IN LISTS arg_NOT_TESTS arg_PER_READ)
    if(NOT EXISTS ${here}/${file})
      message(FATAL_ERROR "${where}: ${file} is not there (NOT_TESTS or PER_READ)")
    endif()
  endforeach()

  set(globs ${here}/*.c)
  if(arg_SCRIPTS)
    list(APPEND globs ${here}/*.sh)
  endif()
  file(GLOB files CONFIGURE_DEPENDS ${globs})
  set(registered "")
  foreach(src IN LISTS files)
    get_filename_component(file ${src} NAME)
    get_filename_component(stem ${src} NAME_WE)
    if(file IN_LIST arg_NOT_TESTS)
      continue()
    endif()
    set(name ${folder}_${stem})
    if(file MATCHES "^test_.*\\.sh$")
      cyclock__add_test(${name} test bash ${src})
      continue()
    elseif(file MATCHES "^validate_sim_")
      set(kind VALIDATE_SIM)
    elseif(file MATCHES "^(test|sim|validate|cost)_.*\\.c$")
      string(TOUPPER ${CMAKE_MATCH_1} kind)
    else()
      message(FATAL_ERROR "${where}/${file}: not a test_, sim_, validate_ or cost_ "
        "file, nor a helper the folder lists in NOT_TESTS (see cmake/CyclockTests.cmake)")
    endif()
    if(NOT arg_${kind})
      message(FATAL_ERROR "${where}/${file}: the folder has no ${kind} programs "
        "(no libraries given for them in its cyclock_add_tests())")
    endif()
    if("cyclock_cmocka" IN_LIST arg_${kind} AND NOT TARGET cyclock_cmocka)
      continue()
    endif()
    cyclock__test_program(${name} ${src} ${arg_${kind}})
    if(kind STREQUAL "COST")
      continue()
    endif()
    if(kind MATCHES "^VALIDATE")
      cyclock__add_test(${name} validate ${name} ${arg_SECONDS})
    else()
      string(TOLOWER ${kind} label)
      cyclock__add_test(${name} ${label} ${name})
    endif()
    if(kind STREQUAL "TEST" AND arg_SPLIT)
      set(libs ${arg_TEST})
      list(TRANSFORM libs REPLACE "^cyclock_static$" cyclock_split)
      cyclock__test_program(${name}_split ${src} ${libs})
      add_test(NAME ${name}_split COMMAND ${name}_split)
      cyclock__test_properties(${name}_split test)
      list(APPEND registered ${name}_split)
    endif()
  endforeach()
  set(cyclock_tests ${registered} PARENT_SCOPE)
endfunction()

# cyclock_test_variants(<var> <test>): <test> and its per-read variants
# (those registered), for properties set after cyclock_add_tests().
function(cyclock_test_variants var test)
  set(tests ${test})
  foreach(read IN LISTS CYCLOCK_TEST_READS)
    if(TEST ${test}_${read})
      list(APPEND tests ${test}_${read})
    endif()
  endforeach()
  set(${var} ${tests} PARENT_SCOPE)
endfunction()

# Macros, so that they see cyclock_add_tests()'s arguments and variables.
# cyclock__add_test(<name> <kind> <program> <args...>): the test, and its
# per-read variants if its file is in PER_READ.  A program that is a target
# is named as one (a cross build runs it under its emulator).
macro(cyclock__add_test test kind program)
  add_test(NAME ${test} COMMAND ${program} ${ARGN})
  cyclock__test_properties(${test} ${kind})
  list(APPEND registered ${test})
  if(file IN_LIST arg_PER_READ)
    set(run ${program})
    if(TARGET ${program})
      set(run $<TARGET_FILE:${program}>)
    endif()
    foreach(read IN LISTS CYCLOCK_TEST_READS)
      add_test(NAME ${test}_${read} COMMAND bash ${PROJECT_SOURCE_DIR}/tests/common/per_read.sh
        $<TARGET_FILE:cyclock_read_forced> ${read} ${run} ${ARGN})
      cyclock__test_properties(${test}_${read} ${kind})
      set_property(TEST ${test}_${read} APPEND PROPERTY LABELS per_read)
      set_tests_properties(${test}_${read} PROPERTIES SKIP_RETURN_CODE 77) # per_read.sh's
      list(APPEND registered ${test}_${read})
    endforeach()
  endif()
endmacro()

macro(cyclock__test_program target src)
  add_executable(${target} ${src})
  target_link_libraries(${target} PRIVATE ${ARGN})
  target_include_directories(${target} PRIVATE ${PROJECT_SOURCE_DIR}/tests/common ${arg_INCLUDE})
  cyclock_hosted_program(${target})
endmacro()

macro(cyclock__test_properties test kind)
  set(labels ${kind} ${folder} ${arg_LABELS})
  set_tests_properties(${test} PROPERTIES LABELS "${labels}"
    TIMEOUT ${arg_TIMEOUT} ENVIRONMENT "${arg_ENVIRONMENT}")
  if(DEFINED arg_SKIP_RETURN_CODE)
    set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE ${arg_SKIP_RETURN_CODE})
  endif()
  if(arg_RUN_SERIAL)
    set_tests_properties(${test} PROPERTIES RUN_SERIAL TRUE)
  endif()
  if("${kind}" STREQUAL "validate")
    set_tests_properties(${test} PROPERTIES TIMEOUT ${arg_VALIDATE_TIMEOUT})
  endif()
endmacro()
