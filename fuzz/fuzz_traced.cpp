// libFuzzer target: the whole --traced pipeline (rewriter/pipeline/Rewrite.h) on one file per
// input: scan, Clang parse, traced planner, emit, write. Each input costs a Clang parse, so this
// target runs for a fixed time rather than an execution count (docs/reliability.md). Beyond "no
// crash" it checks what every run promises: a documented exit status, nothing written unless the
// run succeeds, and on success a banner-led output and a decode map that is valid JSON.
#include "lex/AnnotationScanner.h"
#include "pipeline/Rewrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>

using namespace cutrace;

namespace {

[[noreturn]] void violated(const char *Property) {
  std::fprintf(stderr, "fuzz_traced: property violated: %s\n", Property);
  std::abort();
}

// One scratch folder per process; the input and outputs keep fixed names inside it.
const std::string &scratch() {
  static const std::string Dir = [] {
    llvm::SmallString<128> Path;
    if (llvm::sys::fs::createUniqueDirectory("cutrace-fuzz-traced", Path))
      violated("a scratch folder can be created");
    return std::string(Path);
  }();
  return Dir;
}

std::string slurp(const std::string &Path) {
  std::ifstream In(Path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(In), {});
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *Data, size_t Size) {
  const std::string Input = scratch() + "/k.cu", Output = scratch() + "/k.traced.cu",
                    Map = scratch() + "/k.trace_map.h", Json = scratch() + "/k.trace_map.json";
  for (const std::string &P : {Output, Map, Json})
    llvm::sys::fs::remove(P);
  {
    std::ofstream Out(Input, std::ios::binary | std::ios::trunc);
    Out.write(reinterpret_cast<const char *>(Data), std::streamsize(Size));
  }
  llvm::Expected<SourceFile> Source = readSource(Input);
  if (!Source)
    violated("the input just written can be read");

  RewriteRequest Request;
  Request.Mode = RewriteMode::Traced;
  Request.Output = Output;
  const RewriteResult R = rewriteFile(*Source, Request, llvm::nulls());

  if (R.Status != Ok && R.Status != AnnotationErrors && R.Status != ParseFailure)
    violated("a traced run ends with 0, 1 or 3 (2 is for I/O, which cannot fail here)");
  const bool Written[] = {llvm::sys::fs::exists(Output), llvm::sys::fs::exists(Map),
                          llvm::sys::fs::exists(Json)};
  if (R.Status != Ok) {
    if (Written[0] || Written[1] || Written[2])
      violated("nothing is written when the run fails");
    return 0;
  }
  if (!Written[0] || !Written[1] || !Written[2])
    violated("a successful run writes the output, the map header and the map JSON");
  if (!llvm::StringRef(slurp(Output)).starts_with(TracedBanner))
    violated("the traced output starts with the banner");
  if (nlohmann::json::parse(slurp(Json), nullptr, /*allow_exceptions=*/false).is_discarded())
    violated("the decode map is valid JSON");
  return 0;
}
