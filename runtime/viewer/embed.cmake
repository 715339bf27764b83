# Writes the viewer page's C++ source (viewer_page.cpp.in filled in) from page.html, viewer.css and
# the script's modules in js/; the build runs it whenever one of them changes:
#   cmake -DOUT=FILE.cpp -P runtime/viewer/embed.cmake
# The page stays one self-contained file: the stylesheet link becomes the stylesheet, the modules
# one script. The output needs no include path: a script that compiles the runtime's sources
# itself adds it to them.
cmake_minimum_required(VERSION 3.16)
if(NOT OUT)
  message(FATAL_ERROR "usage: cmake -DOUT=FILE.cpp -P embed.cmake")
endif()
include(${CMAKE_CURRENT_LIST_DIR}/viewer_sources.cmake)

# TEXT: the file's text, refused where it could end the C++ literal or the page's <script>.
function(read_source file out)
  file(READ ${file} text)
  string(TOLOWER "${text}" lower)
  string(FIND "${lower}" ")cutrace_embed\"" end_of_literal)
  string(FIND "${lower}" "</script" end_of_script)
  if(NOT end_of_literal EQUAL -1 OR (file MATCHES "\\.js$" AND NOT end_of_script EQUAL -1))
    message(FATAL_ERROR "${file}: holds ')cutrace_embed\"' or '</script', which would end the "
                        "embedded page early")
  endif()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# The modules in order, each under a line naming it (a script error's line then points here).
function(concat_modules out)
  set(all "")
  foreach(module IN LISTS ARGN)
    read_source(${CUTRACE_VIEWER_DIR}/js/${module}.js text)
    string(APPEND all "\n// ---- js/${module}.js ----\n${text}")
  endforeach()
  set(${out} "${all}" PARENT_SCOPE)
endfunction()

read_source(${CUTRACE_VIEWER_DIR}/page.html VIEWER_HEAD)
read_source(${CUTRACE_VIEWER_DIR}/viewer.css css)
set(link "<link rel=\"stylesheet\" href=\"viewer.css\">")
string(FIND "${VIEWER_HEAD}" "${link}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${CUTRACE_VIEWER_DIR}/page.html: no ${link} to put the stylesheet in")
endif()
string(REPLACE "${link}" "<style>\n${css}</style>" VIEWER_HEAD "${VIEWER_HEAD}")
concat_modules(VIEWER_LAUNCH_JS ${CUTRACE_VIEWER_LAUNCH_JS})
concat_modules(VIEWER_RUN_JS ${CUTRACE_VIEWER_RUN_JS})
concat_modules(VIEWER_START_JS ${CUTRACE_VIEWER_START_JS})
configure_file(${CMAKE_CURRENT_LIST_DIR}/viewer_page.cpp.in ${OUT} @ONLY)
