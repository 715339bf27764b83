# The installable CMake package: `find_package(cutrace CONFIG)` gives cutrace::cutrace (capture
# whose automatic mode writes every format), cutrace::capture (capture, `.ctrace` only),
# cutrace::analysis (decode and exporters; cutrace::decode is its old name), cutrace::format
# (what both share), cutrace::annotations (the no-op <cutrace/trace.h> only),
# CUTRACE_REWRITE_EXECUTABLE and cutrace_instrument(). Included by the top-level CMakeLists.txt
# after runtime/ and tool/ have defined their targets.
include(CMakePackageConfigHelpers)

set(CUTRACE_INSTALL_CMAKEDIR ${CMAKE_INSTALL_LIBDIR}/cmake/cutrace)

# What an untraced build of annotated code needs: the annotation header, nothing linked.
add_library(cutrace_annotations INTERFACE)
target_include_directories(cutrace_annotations INTERFACE
  $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/runtime/include>
  $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>)
set_target_properties(cutrace_annotations PROPERTIES EXPORT_NAME annotations)
set_target_properties(cutrace_format PROPERTIES EXPORT_NAME format)
set_target_properties(cutrace_analysis PROPERTIES EXPORT_NAME analysis)
add_library(cutrace::annotations ALIAS cutrace_annotations)
add_library(cutrace::format ALIAS cutrace_format)
add_library(cutrace::analysis ALIAS cutrace_analysis)
add_library(cutrace::decode ALIAS cutrace_analysis) # the installed config defines it likewise

set(cutrace_exported cutrace_format cutrace_analysis cutrace_annotations)
set(CUTRACE_HAS_RUNTIME OFF)
if(TARGET cutrace)
  set_target_properties(cutrace_capture PROPERTIES EXPORT_NAME capture)
  list(APPEND cutrace_exported cutrace_capture cutrace)
  add_library(cutrace::capture ALIAS cutrace_capture)
  add_library(cutrace::cutrace ALIAS cutrace)
  set(CUTRACE_HAS_RUNTIME ON)
endif()
set(CUTRACE_HAS_REWRITE OFF)
if(TARGET trace-rewrite) # installed to bin/ by tool/CMakeLists.txt
  set(CUTRACE_HAS_REWRITE ON)
endif()

install(TARGETS ${cutrace_exported} EXPORT cutraceTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/runtime/include/cutrace
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h"
  PATTERN "sqlite.h" EXCLUDE) # its library, cutrace_sqlite, is not installed
install(EXPORT cutraceTargets NAMESPACE cutrace:: DESTINATION ${CUTRACE_INSTALL_CMAKEDIR})

# One template, two packages: the installed one (lib/cmake/cutrace under the prefix), and the
# build tree's, so that find_package(cutrace) with CMAKE_PREFIX_PATH=<build dir> works before any
# install (its targets point at the build's libraries and the source's headers).
set(CUTRACE_PACKAGE_BINDIR ${CMAKE_INSTALL_BINDIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cutraceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cutrace-install/cutraceConfig.cmake
  INSTALL_DESTINATION ${CUTRACE_INSTALL_CMAKEDIR}
  PATH_VARS CUTRACE_PACKAGE_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cutraceConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cutrace-install/cutraceConfig.cmake
  ${PROJECT_BINARY_DIR}/cutraceConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/cutraceInstrument.cmake
  DESTINATION ${CUTRACE_INSTALL_CMAKEDIR})

file(RELATIVE_PATH CUTRACE_PACKAGE_BINDIR ${PROJECT_BINARY_DIR} ${CMAKE_RUNTIME_OUTPUT_DIRECTORY})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cutraceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cutraceConfig.cmake
  INSTALL_DESTINATION ${PROJECT_BINARY_DIR}
  INSTALL_PREFIX ${PROJECT_BINARY_DIR}
  PATH_VARS CUTRACE_PACKAGE_BINDIR)
export(EXPORT cutraceTargets NAMESPACE cutrace:: FILE ${PROJECT_BINARY_DIR}/cutraceTargets.cmake)
configure_file(${CMAKE_CURRENT_LIST_DIR}/cutraceInstrument.cmake
  ${PROJECT_BINARY_DIR}/cutraceInstrument.cmake COPYONLY)
