# cutrace_instrument(<target> [TRACED <bool>] [MAX_EVENTS <n>] [CLOCK clock64|globaltimer]
#                    [AUTO [AUTO_ROWS ctas|warps] [AUTO_KERNELS <glob>|-<glob>...]]
#                    [SOURCES <file.cu>...])
#
# AUTO: every kernel without annotations is traced too (trace-rewrite --auto, docs/auto.md).
#
# TRACED ON (the default): every .cu source of <target> (or only the listed SOURCES) is rewritten
# at build time by `trace-rewrite --traced` into
#   ${CMAKE_CURRENT_BINARY_DIR}/cutrace/<target>/<stem>.traced.cu   (+ <stem>.trace_map.h/.json)
# and the target compiles the rewritten file instead, linked with cutrace::cutrace. The step
# re-runs when the source, any header it includes (through a depfile written by the CUDA
# compiler's dependency scan) or the tool changes.
# TRACED OFF: the sources are compiled untouched; only the no-op <cutrace/trace.h> is put on the
# include path (cutrace::annotations). Nothing extra is linked.
#
# Needs CMake >= 3.25 and the CUDA language enabled by the caller. The rewriting tool is
# CUTRACE_REWRITE_EXECUTABLE (set by cutraceConfig.cmake when the package has it), or the
# `trace-rewrite` target when used inside the cutrace build.
cmake_policy(PUSH)
cmake_policy(VERSION 3.25) # CMP0116: Ninja rewrites DEPFILE paths; functions keep this policy.

function(cutrace_instrument target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "AUTO" "TRACED;MAX_EVENTS;CLOCK;AUTO_ROWS"
                        "SOURCES;AUTO_KERNELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "cutrace_instrument: unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT TARGET ${target})
    message(FATAL_ERROR "cutrace_instrument: '${target}' is not a target")
  endif()
  if(NOT DEFINED arg_TRACED)
    set(arg_TRACED ON)
  endif()

  # Checked in both builds, so a value that would break the traced build fails the stripped
  # configure too (the limits of trace-rewrite --max-events, docs/cli.md).
  if(DEFINED arg_MAX_EVENTS AND NOT arg_MAX_EVENTS MATCHES "^[0-9]+$")
    message(FATAL_ERROR "cutrace_instrument: MAX_EVENTS must be a whole number between 1 and "
                        "16777216 (events kept per row), not '${arg_MAX_EVENTS}'")
  endif()
  if(DEFINED arg_MAX_EVENTS AND (arg_MAX_EVENTS LESS 1 OR arg_MAX_EVENTS GREATER 16777216))
    message(FATAL_ERROR "cutrace_instrument: MAX_EVENTS must be between 1 and 16777216 (events "
                        "kept per row), not ${arg_MAX_EVENTS}")
  endif()
  if(arg_CLOCK AND NOT arg_CLOCK MATCHES "^(clock64|globaltimer)$")
    message(FATAL_ERROR "cutrace_instrument: CLOCK must be clock64 or globaltimer, "
                        "not '${arg_CLOCK}'")
  endif()

  if(DEFINED arg_AUTO_ROWS AND NOT arg_AUTO_ROWS MATCHES "^(ctas|warps)$")
    message(FATAL_ERROR "cutrace_instrument: AUTO_ROWS must be ctas or warps, "
                        "not '${arg_AUTO_ROWS}'")
  endif()
  if((DEFINED arg_AUTO_ROWS OR arg_AUTO_KERNELS) AND NOT arg_AUTO)
    message(FATAL_ERROR "cutrace_instrument: AUTO_ROWS and AUTO_KERNELS need AUTO")
  endif()

  if(NOT arg_TRACED)
    target_link_libraries(${target} PRIVATE cutrace::annotations)
    return()
  endif()
  # Host code that must differ between the builds tests this (docs/cmake.md); every source of
  # the target sees it, .cpp files too, and so does the tool's parse (COMPILE_DEFINITIONS).
  target_compile_definitions(${target} PRIVATE CUTRACE_TRACED)

  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(NOT "CUDA" IN_LIST languages)
    message(FATAL_ERROR "cutrace_instrument: enable the CUDA language first "
                        "(project(... LANGUAGES CXX CUDA)); its compiler writes the depfile")
  endif()
  if(NOT TARGET cutrace::cutrace)
    message(FATAL_ERROR "cutrace_instrument: TRACED ON links cutrace::cutrace, which this cutrace "
                        "package lacks (it was built without the CUDA toolkit)")
  endif()
  _cutrace_rewrite_tool(tool tool_depends)

  get_target_property(source_dir ${target} SOURCE_DIR)
  get_target_property(all_sources ${target} SOURCES)
  if(arg_SOURCES)
    set(chosen ${arg_SOURCES})
  else()
    set(chosen ${all_sources})
    list(FILTER chosen INCLUDE REGEX "\\.cu$")
  endif()
  if(NOT chosen)
    message(FATAL_ERROR "cutrace_instrument: '${target}' has no .cu source to instrument")
  endif()

  set(out_dir ${CMAKE_CURRENT_BINARY_DIR}/cutrace/${target})
  set(tool_options "")
  if(DEFINED arg_MAX_EVENTS)
    list(APPEND tool_options --max-events ${arg_MAX_EVENTS})
  endif()
  if(arg_CLOCK)
    list(APPEND tool_options --clock ${arg_CLOCK})
  endif()
  if(arg_AUTO)
    if(NOT DEFINED arg_AUTO_ROWS)
      set(arg_AUTO_ROWS ctas)
    endif()
    list(APPEND tool_options --auto=${arg_AUTO_ROWS})
    if(arg_AUTO_KERNELS)
      list(JOIN arg_AUTO_KERNELS "," patterns)
      list(APPEND tool_options --auto-kernels=${patterns})
    endif()
  endif()
  # The target's own and inherited include directories and definitions, for both the tool's
  # parse and the dependency scan.
  set(includes "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${target},INCLUDE_DIRECTORIES>>")
  set(defines "$<REMOVE_DUPLICATES:$<TARGET_PROPERTY:${target},COMPILE_DEFINITIONS>>")
  set(standard "$<TARGET_PROPERTY:${target},CUDA_STANDARD>")
  # The directories the compiler gets as -isystem (SYSTEM ones of linked targets, every one of an
  # imported target) are system directories for the tool too, so that it copies the same headers
  # as cutrace-nvcc does with the same flags (docs/cmake.md, "Library headers").
  set(system_dirs "$<TARGET_PROPERTY:${target},SYSTEM_INCLUDE_DIRECTORIES>")
  get_target_property(no_system_from_imported ${target} NO_SYSTEM_FROM_IMPORTED)
  get_target_property(linked ${target} LINK_LIBRARIES)
  foreach(lib IN LISTS linked)
    if(TARGET "${lib}" AND NOT no_system_from_imported)
      get_target_property(imported ${lib} IMPORTED)
      if(imported)
        list(APPEND system_dirs "$<TARGET_PROPERTY:${lib},INTERFACE_INCLUDE_DIRECTORIES>")
      endif()
    endif()
  endforeach()
  list(JOIN system_dirs "$<SEMICOLON>" system_dirs) # one argument until the genex splits it
  set(system_dirs "$<REMOVE_DUPLICATES:${system_dirs}>")
  set(tool_flags
      "$<$<BOOL:${includes}>:--extra-arg=-I$<JOIN:${includes},$<SEMICOLON>--extra-arg=-I>>"
      "$<$<BOOL:${system_dirs}>:--extra-arg=-isystem$<JOIN:${system_dirs},$<SEMICOLON>--extra-arg=-isystem>>"
      "$<$<BOOL:${defines}>:--extra-arg=-D$<JOIN:${defines},$<SEMICOLON>--extra-arg=-D>>"
      "$<$<BOOL:${standard}>:--extra-arg=-std=c++${standard}>")
  set(scan_flags
      "$<$<BOOL:${includes}>:-I$<JOIN:${includes},$<SEMICOLON>-I>>"
      "$<$<BOOL:${defines}>:-D$<JOIN:${defines},$<SEMICOLON>-D>>"
      "$<$<BOOL:${standard}>:-std=c++${standard}>")

  set(replaced "")
  set(traced "")
  set(stems "")
  set(original_dirs "")
  foreach(source IN LISTS chosen)
    if(source MATCHES "\\$<")
      message(FATAL_ERROR "cutrace_instrument: list generator-expression sources of "
                          "'${target}' explicitly in SOURCES with a plain path")
    endif()
    cmake_path(ABSOLUTE_PATH source BASE_DIRECTORY ${source_dir} NORMALIZE
               OUTPUT_VARIABLE source_abs)
    cmake_path(GET source_abs STEM LAST_ONLY stem)
    cmake_path(GET source_abs PARENT_PATH source_parent)
    if(stem IN_LIST stems)
      message(FATAL_ERROR "cutrace_instrument: two sources of '${target}' are named "
                          "'${stem}.cu'; their traced files would collide")
    endif()
    list(APPEND stems ${stem})
    list(APPEND original_dirs ${source_parent})

    set(out ${out_dir}/${stem}.traced.cu)
    set(depfile ${out_dir}/${stem}.traced.cu.d)
    add_custom_command(
      OUTPUT ${out} ${out_dir}/${stem}.trace_map.h ${out_dir}/${stem}.trace_map.json
      COMMAND ${CMAKE_COMMAND} -E make_directory ${out_dir} # Ninja makes it, make does not
      COMMAND ${CMAKE_CUDA_COMPILER} -M -MT ${out} -MF ${depfile} ${scan_flags} ${source_abs}
      COMMAND ${tool} --traced ${source_abs} -o ${out} ${tool_options} ${tool_flags}
      DEPENDS ${source_abs} ${tool_depends}
      DEPFILE ${depfile}
      COMMENT "trace-rewrite --traced ${stem}.cu (${target})"
      COMMAND_EXPAND_LISTS VERBATIM)

    # Match what the target lists: relative names are relative to its source directory.
    set(found OFF)
    foreach(listed IN LISTS all_sources)
      cmake_path(ABSOLUTE_PATH listed BASE_DIRECTORY ${source_dir} NORMALIZE
                 OUTPUT_VARIABLE listed_abs)
      if(listed_abs STREQUAL source_abs)
        list(APPEND replaced ${listed})
        set(found ON)
      endif()
    endforeach()
    if(NOT found)
      message(FATAL_ERROR "cutrace_instrument: '${source}' is not a source of '${target}'")
    endif()
    list(APPEND traced ${out})
  endforeach()

  set(kept ${all_sources})
  if(replaced)
    list(REMOVE_ITEM kept ${replaced})
  endif()
  set_property(TARGET ${target} PROPERTY SOURCES ${kept} ${traced})
  # The traced file sits in the build tree: its `#include "x.h"` must still find headers beside
  # the original source (ahead of other -I, as the original's own directory would be).
  list(REMOVE_DUPLICATES original_dirs)
  target_include_directories(${target} BEFORE PRIVATE ${original_dirs})
  target_include_directories(${target} PRIVATE ${out_dir})
  target_link_libraries(${target} PRIVATE cutrace::cutrace)
endfunction()

# The trace-rewrite command line and what the step depends on for it.
function(_cutrace_rewrite_tool command_var depends_var)
  if(CUTRACE_REWRITE_EXECUTABLE)
    if(NOT EXISTS "${CUTRACE_REWRITE_EXECUTABLE}")
      message(FATAL_ERROR "cutrace_instrument: CUTRACE_REWRITE_EXECUTABLE="
                          "'${CUTRACE_REWRITE_EXECUTABLE}' does not exist")
    endif()
    set(${command_var} ${CUTRACE_REWRITE_EXECUTABLE} PARENT_SCOPE)
    set(${depends_var} ${CUTRACE_REWRITE_EXECUTABLE} PARENT_SCOPE)
  elseif(TARGET trace-rewrite)
    set(${command_var} $<TARGET_FILE:trace-rewrite> PARENT_SCOPE)
    set(${depends_var} trace-rewrite PARENT_SCOPE)
  else()
    message(FATAL_ERROR
            "cutrace_instrument: TRACED ON needs trace-rewrite, but this cutrace package was "
            "built without it (CUTRACE_BUILD_TOOLS=OFF). Set CUTRACE_REWRITE_EXECUTABLE to a "
            "trace-rewrite binary, or pass TRACED OFF.")
  endif()
endfunction()

cmake_policy(POP)
