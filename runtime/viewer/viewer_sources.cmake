# The viewer page's sources (docs/design.md, "The viewer page"), in the order the page holds them.
# The script's modules share one function scope: a module's top level runs after the ones before
# it, and its functions are seen by all. Read by runtime/CMakeLists.txt and embed.cmake.
set(CUTRACE_VIEWER_DIR ${CMAKE_CURRENT_LIST_DIR})
# A launch's page: the launch views.
set(CUTRACE_VIEWER_LAUNCH_JS
  page_stats columns search format launch_model launch header cta_picker filter_query filter
  views draw paint navigation hover range_stats selection input)
# A run's page adds the run overview after them.
set(CUTRACE_VIEWER_RUN_JS run_overview)
# Both end with the start.
set(CUTRACE_VIEWER_START_JS start)

set(CUTRACE_VIEWER_FILES ${CUTRACE_VIEWER_DIR}/page.html ${CUTRACE_VIEWER_DIR}/viewer.css)
foreach(module IN LISTS CUTRACE_VIEWER_LAUNCH_JS CUTRACE_VIEWER_RUN_JS CUTRACE_VIEWER_START_JS)
  list(APPEND CUTRACE_VIEWER_FILES ${CUTRACE_VIEWER_DIR}/js/${module}.js)
endforeach()
