#include "report/ExplainHtml.h"

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

const char *Style = R"css(
:root{--bg:#fff;--fg:#1f2328;--mut:#656d76;--line:#d0d7de;--add:#dafbe1;--addx:#7ee29a;
--del:#ffebe9;--delx:#ff9a92;--side:#f6f8fa;--sel:#0969da}
*{box-sizing:border-box}body{margin:0;font:14px/1.45 system-ui,sans-serif;color:var(--fg);
background:var(--bg);display:flex;height:100vh}
nav{width:300px;flex:none;overflow:auto;background:var(--side);border-right:1px solid var(--line);
padding:12px}
nav h1{font-size:15px;margin:0 0 2px;word-break:break-all}nav h2{font-size:12px;text-transform:
uppercase;color:var(--mut);margin:14px 0 4px}nav ul{list-style:none;margin:0;padding:0}
nav li a{display:block;padding:3px 6px;border-radius:4px;color:inherit;text-decoration:none}
nav li a:hover{background:#eaeef2}nav li a.current{background:var(--sel);color:#fff}
nav .counts{display:block;font-size:11px;color:var(--mut);padding-left:22px}
nav a.current .counts{color:#dbe9ff}
.mark{display:inline-block;width:16px;text-align:center;font-weight:bold}
.completed .mark{color:#1a7f37}.failed .mark{color:#cf222e}.skipped .mark{color:#9a6700}
a.current .mark{color:#fff}
.plus{color:#1a7f37;font-weight:600}.minus{color:#cf222e;font-weight:600}
a.current .plus,a.current .minus{color:#fff}
main{flex:1;overflow:auto;padding:16px 20px}
.summary{color:var(--mut);margin-bottom:12px}.summary b{color:var(--fg)}
.help{font-size:12px;color:var(--mut)}kbd{border:1px solid var(--line);border-radius:3px;
padding:0 4px;background:var(--side)}
table.stages{border-collapse:collapse;margin-bottom:20px}table.stages td,table.stages th{
border-bottom:1px solid var(--line);padding:4px 10px;text-align:left;vertical-align:top}
table.stages td.ms{text-align:right;font-variant-numeric:tabular-nums}
table.stages td:nth-child(-n+3){white-space:nowrap}
tr.failed td{background:var(--del)}
pre.diag{margin:4px 0 0;padding:6px;background:#fff8c5;border:1px solid #d4a72c;
white-space:pre-wrap;font:12px/1.4 ui-monospace,monospace}
section.region{border:1px solid var(--line);border-radius:6px;margin:0 0 18px;overflow:hidden}
section.region.current{outline:2px solid var(--sel)}
section.region h2{font-size:14px;margin:0;padding:8px 12px;background:var(--side);
border-bottom:1px solid var(--line)}section.region h2 .kind{color:var(--mut);font-weight:normal}
table.diff{border-collapse:collapse;width:100%;table-layout:fixed;
font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,monospace}
table.diff td{padding:0 8px;white-space:pre-wrap;word-break:break-all;tab-size:4;vertical-align:top}
table.diff td.ln{width:52px;text-align:right;color:var(--mut);user-select:none;
border-right:1px solid var(--line)}
table.diff col.ln{width:52px}
td.del{background:var(--del)}td.add{background:var(--add)}td.none{background:#f6f8fa}
span.dx{background:var(--delx);border-radius:2px}span.ax{background:var(--addx);border-radius:2px}
tr.fold td{background:#ddf4ff;color:#0550ae;cursor:pointer;text-align:center;font-family:
system-ui,sans-serif}tr.fold:hover td{background:#b6e3ff}
tr.folded{display:none}
)css";

const char *Script = R"js(
(function(){
  var regions=[].slice.call(document.querySelectorAll('section.region'));
  var links=[].slice.call(document.querySelectorAll('nav a[data-region]'));
  var current=-1;
  function select(i,scroll){
    if(!regions.length)return;
    current=(i+regions.length)%regions.length;
    regions.forEach(function(r,k){r.classList.toggle('current',k===current);});
    links.forEach(function(a){a.classList.toggle('current',+a.dataset.region===current);});
    if(scroll)regions[current].scrollIntoView({block:'start'});
  }
  function unfold(row){
    var id=row.dataset.fold;
    document.querySelectorAll('tr.folded[data-in="'+id+'"]').forEach(function(r){
      r.classList.remove('folded');});
    row.parentNode.removeChild(row);
  }
  document.querySelectorAll('tr.fold').forEach(function(row){
    row.addEventListener('click',function(){unfold(row);});});
  links.forEach(function(a){a.addEventListener('click',function(){select(+a.dataset.region,false);});});
  document.addEventListener('keydown',function(e){
    if(e.ctrlKey||e.metaKey||e.altKey)return;
    if(e.key==='j'||e.key==='n'){select(current+1,true);e.preventDefault();}
    else if(e.key==='k'||e.key==='p'){select(current<0?-1:current-1,true);e.preventDefault();}
    else if(e.key==='e'){document.querySelectorAll('tr.fold').forEach(unfold);}
  });
  var byKind={};
  regions.forEach(function(r){byKind[r.dataset.kind]=(byKind[r.dataset.kind]||0)+1;});
  var check=document.getElementById('explain-check');
  check.textContent='stages='+document.querySelectorAll('nav li.stage').length+
    ' regions='+regions.length+' sidebar_regions='+links.length+
    ' kernels='+(byKind['kernel']||0)+' launch_sites='+(byKind['launch site']||0)+
    ' functions='+(byKind['function']||0)+' folds='+document.querySelectorAll('tr.fold').length;
  var m=/^#region-(\d+)$/.exec(location.hash);
  if(regions.length)select(m?+m[1]:0,false);
})();
)js";

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
     << "<title>trace-rewrite explain: " << escapeHtml(Report.file()) << "</title>\n<style>"
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
  OS << "</main>\n<div id=\"explain-check\" hidden></div>\n<script>" << Script
     << "</script>\n</body></html>\n";
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
