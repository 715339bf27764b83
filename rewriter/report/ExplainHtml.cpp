#include "report/ExplainHtml.h"
#include "report/ExplainPage.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include <ctime>

namespace cutrace {

std::string escapeHtml(llvm::StringRef Text) {
  std::string Out;
  Out.reserve(Text.size());
  for (char C : Text)
    switch (C) {
    case '&':
      Out += "&amp;";
      break;
    case '<':
      Out += "&lt;";
      break;
    case '>':
      Out += "&gt;";
      break;
    case '"':
      Out += "&quot;";
      break;
    case '\'':
      Out += "&#39;";
      break;
    default:
      Out += C;
    }
  return Out;
}

namespace {

constexpr unsigned Context = 3;

using explain_page::Script;
using explain_page::Style;

const char *markFor(StageStatus S) {
  return S == StageStatus::Completed ? "&#10003;"
         : S == StageStatus::Failed  ? "&#10007;"
                                     : "&#8211;";
}

std::string countsText(const std::vector<Count> &Counts) {
  std::string Out;
  for (const Count &C : Counts)
    Out += (Out.empty() ? "" : ", ") + C.What + "=" + std::to_string(C.Value);
  return Out;
}

bool isContinuation(char C) { return (static_cast<unsigned char>(C) & 0xC0) == 0x80; }

/// Old and new line with the differing middle marked; prefix and suffix kept on UTF-8 bounds.
std::pair<std::string, std::string> intraLine(llvm::StringRef A, llvm::StringRef B) {
  size_t Pre = 0;
  while (Pre < A.size() && Pre < B.size() && A[Pre] == B[Pre])
    ++Pre;
  while (Pre > 0 && Pre < A.size() && isContinuation(A[Pre]))
    --Pre;
  size_t Suf = 0;
  while (Suf < A.size() - Pre && Suf < B.size() - Pre &&
         A[A.size() - 1 - Suf] == B[B.size() - 1 - Suf])
    ++Suf;
  while (Suf > 0 && isContinuation(A[A.size() - Suf]))
    --Suf;
  auto Mark = [&](llvm::StringRef S, const char *Class) {
    llvm::StringRef Mid = S.substr(Pre, S.size() - Pre - Suf);
    std::string Out = escapeHtml(S.substr(0, Pre));
    if (!Mid.empty())
      Out += std::string("<span class=\"") + Class + "\">" + escapeHtml(Mid) + "</span>";
    return Out + escapeHtml(S.substr(S.size() - Suf));
  };
  return {Mark(A, "dx"), Mark(B, "ax")};
}

class RegionWriter {
public:
  RegionWriter(llvm::raw_ostream &OS, unsigned Index) : OS(OS), Index(Index) {}

  void write(const ChangedRegion &R) {
    OS << "<section class=\"region\" id=\"region-" << Index << "\" data-kind=\""
       << regionKindName(R.What) << "\" data-added=\"" << R.Added << "\" data-removed=\""
       << R.Removed << "\">\n<h2><span class=\"kind\">" << regionKindName(R.What) << "</span> "
       << escapeHtml(R.Name) << " &nbsp;<span class=\"plus\">+" << R.Added
       << "</span> <span class=\"minus\">-" << R.Removed << "</span> <span class=\"kind\">"
       << "line " << R.OldFirstLine << " &rarr; " << R.NewFirstLine << "</span></h2>\n"
       << "<table class=\"diff\"><colgroup><col class=\"ln\"><col><col class=\"ln\"><col>"
       << "</colgroup>\n";
    const std::vector<DiffLine> &L = R.Lines;
    for (size_t K = 0; K < L.size();) {
      size_t End = K;
      if (L[K].What == DiffLine::Same) {
        while (End < L.size() && L[End].What == DiffLine::Same)
          ++End;
        sameRun(L, K, End);
      } else {
        while (End < L.size() && L[End].What != DiffLine::Same)
          ++End;
        changeBlock(L, K, End);
      }
      K = End;
    }
    OS << "</table>\n</section>\n";
  }

private:
  llvm::raw_ostream &OS;
  unsigned Index;
  unsigned Folds = 0;

  void row(const char *Class, const std::string &Cells) {
    OS << "<tr" << Class << ">" << Cells << "</tr>\n";
  }

  static std::string cell(unsigned Line, const char *Class, const std::string &Html) {
    std::string N = Line ? std::to_string(Line) : "";
    return "<td class=\"ln\">" + N + "</td><td class=\"" + Class + "\">" + Html + "</td>";
  }

  /// Unchanged lines: Context lines next to a change stay visible, the rest fold.
  void sameRun(const std::vector<DiffLine> &L, size_t Begin, size_t End) {
    size_t Head = Begin == 0 ? 0 : std::min(End, Begin + Context);
    size_t Tail = End == L.size() ? End : std::max(Head, End - std::min<size_t>(End, Context));
    if (Tail < Head + 2) // folding one line saves nothing
      Head = Tail = End;
    for (size_t K = Begin; K < End; ++K) {
      bool Hidden = K >= Head && K < Tail;
      if (K == Head && Hidden)
        OS << "<tr class=\"fold\" data-fold=\"" << Index << "-" << Folds << "\"><td colspan=\"4\">"
           << "&#8942; " << (Tail - Head) << " unchanged lines (click to expand, "
           << "<kbd>e</kbd> expands all)</td></tr>\n";
      std::string Text = escapeHtml(L[K].Text);
      std::string Cells = cell(L[K].OldLine, "same", Text) + cell(L[K].NewLine, "same", Text);
      if (Hidden)
        OS << "<tr class=\"folded\" data-in=\"" << Index << "-" << Folds << "\">" << Cells
           << "</tr>\n";
      else
        row("", Cells);
    }
    if (Head < Tail)
      ++Folds;
  }

  /// Removed lines on the left, added on the right, paired in order.
  void changeBlock(const std::vector<DiffLine> &L, size_t Begin, size_t End) {
    std::vector<const DiffLine *> Removed, Added;
    for (size_t K = Begin; K < End; ++K)
      (L[K].What == DiffLine::Removed ? Removed : Added).push_back(&L[K]);
    for (size_t I = 0; I < std::max(Removed.size(), Added.size()); ++I) {
      const DiffLine *A = I < Removed.size() ? Removed[I] : nullptr;
      const DiffLine *B = I < Added.size() ? Added[I] : nullptr;
      std::string Left, Right;
      if (A && B)
        std::tie(Left, Right) = intraLine(A->Text, B->Text);
      else if (A)
        Left = escapeHtml(A->Text);
      else
        Right = escapeHtml(B->Text);
      row(" class=\"change\"", cell(A ? A->OldLine : 0, A ? "del" : "none", Left) +
                                   cell(B ? B->NewLine : 0, B ? "add" : "none", Right));
    }
  }
};

void writeSidebar(const RunReport &Report, llvm::raw_ostream &OS) {
  OS << "<nav>\n<h1>" << escapeHtml(Report.file()) << "</h1><div class=\"help\">"
     << escapeHtml(Report.mode()) << " run, " << (Report.failed() ? "failed" : "succeeded")
     << "</div>\n<h2>Stages</h2><ul>\n";
  for (size_t I = 0; I < Report.stages().size(); ++I) {
    const StageRecord &S = Report.stages()[I];
    OS << "<li class=\"stage " << statusName(S.Status) << "\"><a href=\"#stage-" << I
       << "\" title=\"" << statusName(S.Status) << "\"><span class=\"mark\">" << markFor(S.Status)
       << "</span> " << escapeHtml(S.Name) << "<span class=\"counts\">"
       << escapeHtml(S.Status == StageStatus::Completed ? countsText(S.Counts) : S.Reason)
       << "</span></a></li>\n";
  }
  OS << "</ul>\n<h2>Changes</h2><ul>\n";
  if (Report.changes().empty())
    OS << "<li class=\"help\">none</li>\n";
  for (size_t I = 0; I < Report.changes().size(); ++I) {
    const ChangedRegion &R = Report.changes()[I];
    OS << "<li><a href=\"#region-" << I << "\" data-region=\"" << I << "\"><span class=\"mark\">"
       << (R.What == ChangedRegion::Kernel       ? "K"
           : R.What == ChangedRegion::LaunchSite ? "L"
           : R.What == ChangedRegion::Function   ? "F"
                                                 : "&#183;")
       << "</span> " << escapeHtml(R.Name) << "<span class=\"counts\">" << regionKindName(R.What)
       << " <span class=\"plus\">+" << R.Added << "</span> <span class=\"minus\">-" << R.Removed
       << "</span></span></a></li>\n";
  }
  OS << "</ul>\n<p class=\"help\"><kbd>j</kbd>/<kbd>k</kbd> next/previous change, "
        "<kbd>e</kbd> expand all context</p>\n</nav>\n";
}

void writeStageTable(const RunReport &Report, llvm::raw_ostream &OS) {
  OS << "<table class=\"stages\"><tr><th>stage</th><th>status</th><th>time</th><th>produced / "
        "why</th></tr>\n";
  for (size_t I = 0; I < Report.stages().size(); ++I) {
    const StageRecord &S = Report.stages()[I];
    OS << "<tr id=\"stage-" << I << "\" class=\"" << statusName(S.Status) << "\"><td>"
       << escapeHtml(S.Name) << "</td><td class=\"" << statusName(S.Status)
       << "\"><span class=\"mark\">" << markFor(S.Status) << "</span> " << statusName(S.Status)
       << "</td><td class=\"ms\">";
    if (S.Status != StageStatus::Skipped)
      OS << llvm::format("%.1f ms", S.Millis);
    OS << "</td><td>" << escapeHtml(countsText(S.Counts));
    if (!S.Reason.empty())
      OS << (S.Counts.empty() ? "" : "<br>") << escapeHtml(S.Reason);
    if (!S.Diagnostics.empty())
      OS << "<pre class=\"diag\">" << escapeHtml(S.Diagnostics) << "</pre>";
    OS << "</td></tr>\n";
  }
  OS << "</table>\n";
}

} // namespace

std::string renderHtml(const RunReport &Report) {
  std::string Html;
  llvm::raw_string_ostream OS(Html);
  OS << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
     << "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
        "style-src 'unsafe-inline'; script-src 'unsafe-inline'\">\n"
     << "<title>trace-rewrite explain: " << escapeHtml(Report.file()) << "</title>\n<style>\n"
     << Style << "</style></head>\n<body>\n";
  writeSidebar(Report, OS);
  OS << "<main>\n<div class=\"summary\"><b>" << escapeHtml(Report.file()) << "</b> &middot; "
     << escapeHtml(Report.mode()) << " &middot; " << Report.changes().size()
     << " changed region(s) &middot; <span class=\"plus\">+" << Report.fileAdded()
     << "</span> <span class=\"minus\">-" << Report.fileRemoved()
     << "</span> lines in the file</div>\n";
  writeStageTable(Report, OS);
  for (size_t I = 0; I < Report.changes().size(); ++I)
    RegionWriter(OS, I).write(Report.changes()[I]);
  OS << "</main>\n<div id=\"explain-check\" hidden></div>\n<script>\n"
     << Script << "</script>\n</body></html>\n";
  return Html;
}

llvm::Expected<std::string> createRunFolder(llvm::StringRef Dir) {
  if (std::error_code EC = llvm::sys::fs::create_directories(Dir))
    return llvm::createStringError(EC, "cannot create '%s': %s", Dir.str().c_str(),
                                   EC.message().c_str());
  std::time_t Now = std::time(nullptr);
  char Stamp[32];
  std::strftime(Stamp, sizeof Stamp, "run-%Y%m%d-%H%M%S", std::localtime(&Now));
  for (unsigned N = 0; N < 1000; ++N) {
    llvm::SmallString<256> Path(Dir);
    llvm::sys::path::append(Path, N ? std::string(Stamp) + "-" + std::to_string(N) : Stamp);
    // Without IgnoreExisting: an existing folder (an earlier run this second) is never reused.
    std::error_code EC = llvm::sys::fs::create_directory(Path, /*IgnoreExisting=*/false);
    if (!EC)
      return Path.str().str();
    if (EC != std::errc::file_exists)
      return llvm::createStringError(EC, "cannot create '%s': %s", Path.c_str(),
                                     EC.message().c_str());
  }
  return llvm::createStringError(std::errc::file_exists, "too many runs in one second");
}

llvm::Error pointLatest(llvm::StringRef Dir, llvm::StringRef RunFolder) {
  llvm::SmallString<256> Latest(Dir);
  llvm::sys::path::append(Latest, "latest");
  llvm::sys::fs::file_status Status;
  bool IsLink = !llvm::sys::fs::status(Latest, Status, /*follow=*/false) &&
                Status.type() == llvm::sys::fs::file_type::symlink_file;
  if (IsLink)
    llvm::sys::fs::remove(Latest);
  if (!llvm::sys::fs::exists(Latest) &&
      !llvm::sys::fs::create_link(llvm::sys::path::filename(RunFolder), Latest))
    return llvm::Error::success();
  // No links here (or `latest` is a real folder): copy the run's files into it.
  if (std::error_code EC = llvm::sys::fs::create_directories(Latest))
    return llvm::createStringError(EC, "cannot create '%s'", Latest.c_str());
  std::error_code EC;
  for (llvm::sys::fs::directory_iterator It(RunFolder, EC), End; It != End && !EC;
       It.increment(EC)) {
    llvm::SmallString<256> To(Latest);
    llvm::sys::path::append(To, llvm::sys::path::filename(It->path()));
    if (std::error_code CopyEC = llvm::sys::fs::copy_file(It->path(), To))
      return llvm::createStringError(CopyEC, "cannot copy to '%s'", To.c_str());
  }
  return EC ? llvm::createStringError(EC, "cannot list '%s'", RunFolder.str().c_str())
            : llvm::Error::success();
}

} // namespace cutrace
