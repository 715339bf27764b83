// The decode map: what the runtime needs to turn a kernel's buffer back into named events
// (docs/design.md, "Traced contract"). Rendered as a C++ header the traced file includes and as
// JSON.
#ifndef CUTRACE_REWRITER_DECODEMAP_H
#define CUTRACE_REWRITER_DECODEMAP_H

#include "lex/Annotation.h"
#include <string>
#include <vector>

namespace cutrace {

inline constexpr unsigned MapFormatVersion = 1;

struct MapGroup {
  std::string Name;
  std::string Lead;          // the lead expression as spelled; "slice" for a sliced group
  unsigned SliceThreads = 0; // TRACE_GROUPS: one row per slice of this many threads
  unsigned FirstThread = 0;  // ... from this linear thread on
};

struct MapSite {
  unsigned Id = 0;
  AnnotationKind Kind = AnnotationKind::Record;
  std::string Name;
  unsigned Lane = 0;
  unsigned Group = 0;
  std::string Loc;     // file:line:col
  unsigned Offset = 0; // of the annotation, in the file Loc names
  std::string Helper;  // the __device__ function it is written in; outside the groups that
                       // function declares it records into its caller's group (Group is then 0)
  int LocalGroup = -1; // in a helper's own sites: the group it declares that the site records
                       // into, by the helper's numbering of its group names (-1: the caller's)
  /// Where several groups are in effect at the site (declared together, or handed by callers
  /// in several): every group it records into, Group first; empty when only Group.
  std::vector<unsigned> Groups;
  std::vector<int> LocalGroups; // a helper's own sites: the same, by the helper's numbering
};

struct MapAnnotation {
  std::string Macro;
  std::string Loc;
};

struct KernelMapModel {
  std::string Kernel; // qualified name
  std::string Symbol; // the C++ identifier of its KernelMap in namespace cutrace_map
  unsigned MaxEvents = 1024;
  std::string Clock = "clock64";
  std::vector<MapGroup> Groups;
  std::vector<std::string> Lanes;
  std::vector<MapSite> Sites;
  std::vector<std::pair<std::string, std::string>> Flows;
  std::vector<MapAnnotation> Annotations; // every annotation of the kernel, in file order
  /// The first site id of each __device__ function the kernel reaches: the helper's twin names
  /// its sites through the group type (`G::sites::<key>`), so one twin serves every kernel.
  std::vector<std::pair<std::string, unsigned>> HelperSiteBases;
  /// Groups declared on the call path: for each group name a reached function declares
  /// (`<helper>_group_<k>`), the kernel's group of that name, and, where the function declares it
  /// with a constant lead, whether the kernel's group picks its writer at declarations
  /// (`<helper>_lead_<k>`: another declaration of the name computes its lead).
  std::vector<std::pair<std::string, unsigned>> HelperGroupIndices;
  std::vector<std::pair<std::string, bool>> HelperLeads;
};

struct DecodeMap {
  std::string Source;
  std::vector<KernelMapModel> Kernels;
  /// KernelMaps of kernels this file declares and another file of the unit defines (their maps
  /// are in that file's map): declared here, so a launch written between the two can name them.
  std::vector<std::string> DeclaredElsewhere;
};

/// A record carries its site id in 16 bits (docs/FORMAT.md, "Decode map"): a kernel's sites, its
/// helpers' included, number at most this many.
inline constexpr unsigned MaxSitesPerKernel = 65536;

/// A limit of the format a kernel's map exceeds, at the first site past it.
struct MapLimitExceeded {
  const KernelMapModel *Kernel;
  const MapSite *Site;
  std::string Message;
};
std::vector<MapLimitExceeded> exceededLimits(const DecodeMap &Map);

std::string renderMapJson(const DecodeMap &Map);
std::string renderMapHeader(const DecodeMap &Map);

} // namespace cutrace

#endif
