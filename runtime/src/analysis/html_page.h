// What the two HTML exports share (docs/viewer.md): the viewer page in parts, one launch's data
// laid out for it, and the escaping that keeps every name from a trace inert. A launch's page is
// kHead, its data element, kViewer, kEnd, kClose; a run's page puts kRunOverview before kEnd and
// one data element per launch whose detail it carries before kClose. The parts are the files of
// runtime/viewer/, embedded at build time (viewer_page.cpp, written by runtime/viewer/embed.cmake;
// docs/design.md, "The viewer page"). Internal to cutrace_analysis.
#ifndef CUTRACE_ANALYSIS_HTML_PAGE_H
#define CUTRACE_ANALYSIS_HTML_PAGE_H

#include <cutrace/decode.h>

#include <nlohmann/json.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace cutrace::html_page {

extern const char *const kHead;        // up to the data; "@TITLE@" is the page title
extern const char *const kViewer;      // the launch viewer's script, opened
extern const char *const kRunOverview; // the run overview, inside the same script
extern const char *const kEnd;         // starts the page and closes the script
extern const char *const kClose;       // closes the page

// Text for HTML outside the script (the <title>).
std::string escape_text(const std::string &s);
// JSON text that is inert inside a <script> element: '<', '>' and '&' only occur escaped.
std::string script_safe(const nlohmann::json &doc);
std::string base64(const void *data, size_t size);
// A numeric column as base64 little-endian bytes, which the page maps onto a typed array.
template <class T> std::string column(const std::vector<T> &v) {
  return base64(v.data(), v.size() * sizeof(T));
}
// Appends <script type="application/json" id="ID">TEXT</script>; TEXT comes from script_safe.
void append_data_element(std::string &page, const std::string &id, const std::string &text);
// kHead with its title.
std::string head(const std::string &title);

// What a kernel's launches share: source, lanes, groups and sites (tooltip locations).
nlohmann::json map_data(const DecodeMap &map);
// One launch: its rows, CTAs with their tracks of non-overlapping slices, the slice, instant
// and flow columns, counts and problems. With map_data merged in, what the viewer draws.
nlohmann::json launch_data(const DecodeMap &map, const Trace &trace);
// Roughly the size of script_safe(launch_data(...)) without building it (the run page's budget).
size_t launch_data_estimate(const DecodeMap &map, const Trace &trace);

} // namespace cutrace::html_page

#endif // CUTRACE_ANALYSIS_HTML_PAGE_H
