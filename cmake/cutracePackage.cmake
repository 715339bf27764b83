# The installable CMake package: `find_package(cutrace CONFIG)` gives cutrace::cutrace (host
# runtime), cutrace::decode (decoder), cutrace::annotations (the no-op <cutrace/trace.h> only),
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
set_target_properties(cutrace_decode PROPERTIES EXPORT_NAME decode)
add_library(cutrace::annotations ALIAS cutrace_annotations)
add_library(cutrace::decode ALIAS cutrace_decode)

set(cutrace_exported cutrace_decode cutrace_annotations)
set(CUTRACE_HAS_RUNTIME OFF)
if(TARGET cutrace)
  list(APPEND cutrace_exported cutrace)
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
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(EXPORT cutraceTargets NAMESPACE cutrace:: DESTINATION ${CUTRACE_INSTALL_CMAKEDIR})

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/cutraceConfig.cmake.in
  ${PROJECT_BINARY_DIR}/cutraceConfig.cmake
  INSTALL_DESTINATION ${CUTRACE_INSTALL_CMAKEDIR}
  PATH_VARS CMAKE_INSTALL_BINDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/cutraceConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/cutraceConfig.cmake
  ${PROJECT_BINARY_DIR}/cutraceConfigVersion.cmake
  ${CMAKE_CURRENT_LIST_DIR}/cutraceInstrument.cmake
  DESTINATION ${CUTRACE_INSTALL_CMAKEDIR})
