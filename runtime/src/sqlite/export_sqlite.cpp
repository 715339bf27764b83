// A decoded run as an SQLite database (docs/analysis.md, "SQL and pandas", documents every table,
// column and index below). Rows are inserted through prepared statements in one transaction
// (events 64 rows to a statement), the indexes built afterwards; the database is built in a
// temporary file and renamed into place.
#include <cutrace/completeness.h>
#include <cutrace/output_files.h>
#include <cutrace/sqlite.h>

#include <cutrace/analysis.h>
#include <cutrace/ctrace.h>
#include <cutrace/export.h>

#include <sqlite3.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <map>
#include <optional>
#include <string_view>
#include <unistd.h>
#include <unordered_map>

namespace cutrace {

namespace {

const char *kSchema = R"sql(
CREATE TABLE meta (key TEXT NOT NULL, value TEXT);
CREATE TABLE launches (
  launch INTEGER PRIMARY KEY, sequence INTEGER, kernel TEXT, launch_index INTEGER,
  grid_x INTEGER, grid_y INTEGER, grid_z INTEGER, block_x INTEGER, block_y INTEGER, block_z INTEGER,
  ctas INTEGER, clock TEXT, stream INTEGER, in_graph INTEGER,
  device INTEGER, device_name TEXT, device_clock_khz INTEGER, device_sms INTEGER,
  process INTEGER, program TEXT, pid INTEGER, rank INTEGER, input_file TEXT,
  begin_ns REAL, end_ns REAL, offset_ns REAL, enqueue_ns REAL, origin_ns INTEGER,
  max_events INTEGER, buffer_rows INTEGER, backward_flows INTEGER, unpaired_flows INTEGER,
  problems INTEGER, first_problem TEXT, source TEXT,
  decoded INTEGER, complete INTEGER, dropped_events INTEGER, rows_overflowed INTEGER,
  incomplete_slices INTEGER, rows_never_ended INTEGER);
CREATE TABLE rows (
  launch INTEGER NOT NULL, row INTEGER NOT NULL, row_in_cta INTEGER, cta INTEGER,
  block_x INTEGER, block_y INTEGER, block_z INTEGER, smid INTEGER,
  group_index INTEGER, group_name TEXT, slice INTEGER, first_thread INTEGER, label TEXT,
  ghz REAL, ghz_source TEXT, start_ns REAL, end_ns REAL, started INTEGER, closed INTEGER,
  attempted INTEGER, stored INTEGER, dropped INTEGER, unmatched_ends INTEGER,
  unknown_sites INTEGER, invalid_records INTEGER, never_ended INTEGER,
  PRIMARY KEY (launch, row));
CREATE TABLE events (
  event INTEGER PRIMARY KEY, launch INTEGER NOT NULL, row INTEGER NOT NULL, cta INTEGER,
  kind TEXT, name TEXT, site INTEGER, lane TEXT, payload INTEGER,
  begin_cycles INTEGER, end_cycles INTEGER, duration_cycles INTEGER,
  begin_ns REAL, end_ns REAL, duration_ns REAL, incomplete INTEGER, file TEXT, line INTEGER);
CREATE TABLE flows (
  flow INTEGER PRIMARY KEY, launch INTEGER NOT NULL, cta INTEGER, src INTEGER, dst INTEGER,
  at_cycles INTEGER, at_ns REAL, wait_ns REAL, gap_ns REAL, wait_cycles REAL, gap_cycles REAL,
  incomplete INTEGER);
CREATE TABLE undecoded (
  input_file TEXT, sequence INTEGER, kernel TEXT, why TEXT);
)sql";

// Built after the inserts: one pass over sorted data instead of a B-tree update per row.
const char *kIndexes = R"sql(
CREATE INDEX events_name ON events (name);
CREATE INDEX events_row ON events (launch, row);
CREATE INDEX events_cta ON events (launch, cta);
CREATE INDEX rows_cta ON rows (launch, cta);
CREATE INDEX rows_smid ON rows (smid);
CREATE INDEX rows_group ON rows (group_name);
CREATE INDEX flows_src ON flows (src);
CREATE INDEX flows_dst ON flows (dst);
CREATE INDEX flows_launch ON flows (launch);
CREATE INDEX launches_kernel ON launches (kernel);
)sql";

// A prepared statement bound column by column, then stepped; errors surface at step().
class Statement {
public:
  Statement(sqlite3 *db, const char *sql) { sqlite3_prepare_v2(db, sql, -1, &stmt_, nullptr); }
  ~Statement() { sqlite3_finalize(stmt_); }
  Statement(const Statement &) = delete;
  Statement &operator=(const Statement &) = delete;

  Statement &integer(int64_t v) { return bound(sqlite3_bind_int64(stmt_, ++column_, v)); }
  Statement &real(double v) { return bound(sqlite3_bind_double(stmt_, ++column_, v)); }
  // Bound without a copy: the text must stay alive until step() (every caller binds text that
  // outlives the statement's step, or a temporary of the same full expression as step()).
  Statement &text(std::string_view v) {
    return bound(sqlite3_bind_text(stmt_, ++column_, v.data(), int(v.size()), SQLITE_STATIC));
  }
  Statement &null() { return bound(sqlite3_bind_null(stmt_, ++column_)); }
  template <class T> Statement &integer_or_null(const std::optional<T> &v) {
    return v ? integer(int64_t(*v)) : null();
  }
  // Runs the insert; false (the database holds the message) on any error so far.
  bool step() {
    const bool done = ok_ && stmt_ && sqlite3_step(stmt_) == SQLITE_DONE;
    sqlite3_reset(stmt_); // every column is bound again before the next step
    column_ = 0;
    return done;
  }

private:
  Statement &bound(int rc) {
    ok_ = ok_ && rc == SQLITE_OK;
    return *this;
  }
  sqlite3_stmt *stmt_ = nullptr;
  int column_ = 0;
  bool ok_ = true;
};

const char *clock_name(Clock c) { return c == Clock::globaltimer ? "globaltimer" : "clock64"; }

// "file:line:col" -> file and line; a loc without a line keeps the whole text as the file.
std::pair<std::string, std::optional<int64_t>> file_and_line(const std::string &loc) {
  const size_t last = loc.rfind(':');
  if (last == std::string::npos || last == 0)
    return {loc, std::nullopt};
  const size_t before = loc.rfind(':', last - 1);
  const std::string line = before == std::string::npos ? loc.substr(last + 1)
                                                       : loc.substr(before + 1, last - before - 1);
  const std::string file =
      before == std::string::npos ? loc.substr(0, last) : loc.substr(0, before);
  if (line.empty() || line.find_first_not_of("0123456789") != std::string::npos)
    return {loc, std::nullopt};
  return {file, std::stoll(line)};
}

// "INSERT INTO table VALUES (?,...),(?,...)...": `rows` rows of `columns` parameters.
std::string batch_insert(const char *table, int columns, int rows) {
  std::string one = "(";
  for (int c = 0; c < columns; ++c)
    one += c ? ",?" : "?";
  one += ")";
  std::string sql = std::string("INSERT INTO ") + table + " VALUES ";
  for (int r = 0; r < rows; ++r)
    sql += (r ? "," : "") + one;
  return sql;
}

class RunWriter {
public:
  explicit RunWriter(sqlite3 *db)
      : db_(db), launch_(db, "INSERT INTO launches VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,"
                             "?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        row_(db, "INSERT INTO rows VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        event_(db, "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"),
        events_batch_(db, batch_insert("events", 18, kBatchRows).c_str()),
        flow_(db, "INSERT INTO flows VALUES (?,?,?,?,?,?,?,?,?,?,?,?)") {}

  // `loaded`: the launch with its records, when the run holds it without them.
  bool launch(const RunTrace &run, uint32_t index, const RunLaunch *loaded = nullptr) {
    const RunLaunch &l = loaded ? *loaded : run.launches[index];
    const Trace &t = l.trace;
    const DecodeMap *map = l.map < run.maps.size() ? &run.maps[l.map] : nullptr;
    const RunDevice *device = l.device < run.devices.size() ? &run.devices[l.device] : nullptr;
    const RunProcess *process = device && device->process < run.processes.size()
                                    ? &run.processes[device->process]
                                    : nullptr;
    launch_.integer(index).integer(int64_t(l.sequence)).text(t.kernel).integer(l.launch_index);
    for (uint32_t g : l.grid)
      launch_.integer(g);
    for (uint32_t b : l.block)
      launch_.integer(b);
    launch_.integer(int64_t(uint64_t(l.grid[0]) * l.grid[1] * l.grid[2]))
        .text(clock_name(map ? map->clock : t.header.clock))
        .integer(int64_t(l.stream))
        .integer(l.in_graph);
    if (device)
      launch_.integer(device->index)
          .text(device->name)
          .integer(device->clock_khz)
          .integer(device->sms);
    else
      launch_.null().null().null().null();
    if (process)
      launch_.integer(device->process)
          .text(process->program)
          .integer(int64_t(process->pid))
          .integer_or_null(process->rank >= 0 ? std::optional<int>(process->rank) : std::nullopt)
          .text(process->file);
    else
      launch_.null().null().null().null().null();
    launch_.real(l.begin_ns).real(l.end_ns).real(l.offset_ns);
    l.enqueue_ns ? launch_.real(*l.enqueue_ns) : launch_.null();
    launch_.integer(int64_t(t.origin_ns))
        .integer(t.header.max_events)
        .integer(t.header.num_rows)
        .integer(t.backward_flows)
        .integer(t.unpaired_flows)
        .integer(int64_t(t.problems.size()));
    t.problems.empty() ? launch_.null() : launch_.text(t.problems.front());
    map ? launch_.text(map->source) : launch_.null();
    const Completeness c = completeness_of(l);
    launch_
        .integer(t.ok() || (l.detail && !t.rows.empty())) // as run_completeness counts
        .integer(c.complete())
        .integer(int64_t(c.dropped_events))
        .integer(c.rows_overflowed)
        .integer(int64_t(c.incomplete_slices))
        .integer(c.rows_never_ended);
    if (!launch_.step())
      return false;

    // Event ids: each row's slices, then its instants, numbered on from the previous launch.
    std::vector<int64_t> first_event(t.rows.size());
    for (size_t r = 0; r < t.rows.size(); ++r) {
      first_event[r] = next_event_;
      if (!t.rows[r].started && !t.rows[r].stored)
        continue; // a group that never ran in this CTA: noise, as in trace_summary_json
      if (!row(t, index, map, t.rows[r]))
        return false;
    }
    for (const Flow &f : t.flows)
      if (!flow(t, index, f, first_event))
        return false;
    return flush_events();
  }

private:
  bool row(const Trace &t, uint32_t launch, const DecodeMap *map, const Row &r) {
    const std::array<uint32_t, 3> idx = cta_coords(t.header, r.cta);
    row_.integer(launch).integer(r.index).integer(r.row_in_cta).integer(r.cta);
    for (uint32_t v : idx)
      row_.integer(v);
    row_.integer(r.smid).integer(r.group);
    map &&r.group < map->groups.size() ? row_.text(map->groups[r.group].name) : row_.null();
    r.sliced() ? row_.integer(r.slice) : row_.null();
    row_.integer_or_null(r.first_thread)
        .text(r.label)
        .real(r.ghz)
        .text(rate_source_name(r.ghz_source))
        .real(row_start_ns(t, r))
        .real(row_end_ns(t, r))
        .integer(r.started)
        .integer(r.closed)
        .integer(r.attempted)
        .integer(r.stored)
        .integer(r.dropped)
        .integer(r.unmatched_ends)
        .integer(r.unknown_sites)
        .integer(r.invalid_records)
        .integer(r.never_ended());
    if (!row_.step())
      return false;
    for (const Slice &s : r.slices)
      if (!event(launch, map, r, "slice", s.site, s.name, s.lane, s.payload, s.begin_cycles,
                 s.end_cycles, s.begin_ns, s.end_ns, s.incomplete))
        return false;
    for (const Instant &i : r.instants)
      if (!event(launch, map, r, "instant", i.site, i.name, i.lane, i.payload, i.cycles, i.cycles,
                 i.ns, i.ns, false))
        return false;
    return true;
  }

  struct SiteFile {
    std::string file;
    std::optional<int64_t> line;
  };

  // One row of `events`, held until its batch is inserted (its texts live until then: the
  // launch's names, the map's lanes, the site files).
  struct EventRow {
    int64_t event, launch, row, cta;
    const char *kind;
    std::string_view name;
    int64_t site;
    std::optional<std::string_view> lane;
    int64_t payload, begin_cycles, end_cycles;
    double begin_ns, end_ns;
    bool incomplete;
    const SiteFile *file;
  };
  static constexpr int kBatchRows = 64; // rows per INSERT: one statement step for 64 events

  static void bind(Statement &st, const EventRow &e) {
    st.integer(e.event).integer(e.launch).integer(e.row).integer(e.cta).text(e.kind).text(e.name);
    st.integer(e.site);
    e.lane ? st.text(*e.lane) : st.null();
    st.integer(e.payload)
        .integer(e.begin_cycles)
        .integer(e.end_cycles)
        .integer(e.end_cycles - e.begin_cycles)
        .real(e.begin_ns)
        .real(e.end_ns)
        .real(e.end_ns - e.begin_ns)
        .integer(e.incomplete);
    if (e.file)
      st.text(e.file->file).integer_or_null(e.file->line);
    else
      st.null().null();
  }

  bool event(uint32_t launch, const DecodeMap *map, const Row &r, const char *kind, uint32_t site,
             const std::string &name, uint32_t lane, int32_t payload, uint64_t begin_cycles,
             uint64_t end_cycles, double begin_ns, double end_ns, bool incomplete) {
    EventRow &e = pending_[pending_count_++];
    e = {next_event_++,
         launch,
         r.index,
         r.cta,
         kind,
         name,
         site,
         map && lane < map->lanes.size() ? std::optional<std::string_view>(map->lanes[lane])
                                         : std::nullopt,
         payload,
         int64_t(begin_cycles),
         int64_t(end_cycles),
         begin_ns,
         end_ns,
         incomplete,
         map ? site_file(*map, site) : nullptr};
    if (pending_count_ < kBatchRows)
      return true;
    for (int i = 0; i < kBatchRows; ++i)
      bind(events_batch_, pending_[i]);
    pending_count_ = 0;
    return events_batch_.step();
  }

  // Inserts the events still held (before the launch whose names they point into is freed).
  bool flush_events() {
    bool ok = true;
    for (int i = 0; i < pending_count_ && ok; ++i) {
      bind(event_, pending_[i]);
      ok = event_.step();
    }
    pending_count_ = 0;
    return ok;
  }

  // A site's file and line, split from its loc once per map (the texts stay alive for step()).
  const SiteFile *site_file(const DecodeMap &map, uint32_t site) {
    std::unordered_map<uint32_t, SiteFile> &files = site_files_[&map];
    if (files.empty())
      for (const Site &s : map.sites)
        if (!s.loc.empty()) {
          auto [file, line] = file_and_line(s.loc);
          files[s.id] = {std::move(file), line};
        }
    auto it = files.find(site);
    return it == files.end() ? nullptr : &it->second;
  }

  bool flow(const Trace &t, uint32_t launch, const Flow &f,
            const std::vector<int64_t> &first_event) {
    const HandoffTiming h = handoff_timing(t, f);
    flow_.integer(next_flow_++)
        .integer(launch)
        .integer(t.rows[f.dst.row].cta)
        .integer(first_event[f.src.row] + f.src.slice)
        .integer(first_event[f.dst.row] + f.dst.slice)
        .integer(int64_t(f.at_cycles))
        .real(f.at_ns)
        .real(h.wait_ns)
        .real(h.gap_ns)
        .real(h.wait_cycles)
        .real(h.gap_cycles)
        .integer(t.rows[f.src.row].slices[f.src.slice].incomplete ||
                 t.rows[f.dst.row].slices[f.dst.slice].incomplete);
    return flow_.step();
  }

  sqlite3 *db_;
  Statement launch_, row_, event_, events_batch_, flow_;
  EventRow pending_[kBatchRows];
  int pending_count_ = 0;
  std::map<const DecodeMap *, std::unordered_map<uint32_t, SiteFile>> site_files_;
  int64_t next_event_ = 0, next_flow_ = 0;
};

bool exec(sqlite3 *db, const char *sql) {
  return sqlite3_exec(db, sql, nullptr, nullptr, nullptr) == SQLITE_OK;
}

bool write_meta(sqlite3 *db, const RunTrace &run, const SqliteOptions &options) {
  Statement meta(db, "INSERT INTO meta VALUES (?, ?)");
  bool ok = meta.text("schema_version").text(std::to_string(kSqliteSchemaVersion)).step() &&
            meta.text("trace_format_version").text(std::to_string(kFormatVersion)).step() &&
            meta.text("tool_version").text(options.tool_version).step() &&
            meta.text("run_axis").text(run.host_aligned ? "host" : "globaltimer").step() &&
            meta.text("run_origin_ns").text(std::to_string(run.origin_ns)).step();
  for (const std::string &file : options.input_files)
    ok = ok && meta.text("input_file").text(file).step();
  const RunCompleteness gaps = run_completeness(run);
  ok = ok && meta.text("complete").text(gaps.complete() ? "1" : "0").step() &&
       meta.text("completeness").text(run_completeness_text(gaps)).step();
  Statement undecoded(db, "INSERT INTO undecoded VALUES (?, ?, ?, ?)");
  for (const UndecodedLaunch &u : gaps.undecoded) {
    undecoded.text(u.file);
    u.sequence ? undecoded.integer(int64_t(*u.sequence)) : undecoded.null();
    ok = ok && undecoded.text(u.kernel).text(u.why).step();
  }
  return ok;
}

// Fills the open, empty database `db`; the SQLite message on failure.
std::optional<std::string> fill(sqlite3 *db, const RunTrace &run, const SqliteOptions &options) {
  // A fresh file that is renamed into place only when complete: no journal needed. Pages of
  // 16 KB instead of 4: a quarter of the page writes and B-tree splits, 13% less CPU time at
  // 1 M events (docs/PERFORMANCE.md, "4a"); the page cache stays 16 MB.
  bool ok = exec(db, "PRAGMA page_size = 16384; PRAGMA journal_mode = OFF;"
                     "PRAGMA synchronous = OFF; PRAGMA cache_size = -16384; BEGIN;") &&
            exec(db, kSchema) && write_meta(db, run, options);
  if (ok) {
    RunWriter writer(db);
    for (uint32_t i = 0; ok && i < run.launches.size(); ++i) {
      std::optional<RunLaunch> loaded;
      if (!run.launches[i].detail && options.load_detail) {
        loaded = options.load_detail(run.launches[i]); // freed before the next launch
        if (!loaded && run.launches[i].trace.ok())     // readable when first read: not any more
          return "cannot read the records of launch " + std::to_string(run.launches[i].sequence) +
                 " again from its file";
      }
      ok = writer.launch(run, i, loaded ? &*loaded : nullptr);
    }
  }
  ok = ok && exec(db, kIndexes) && exec(db, "COMMIT;");
  if (ok)
    return std::nullopt;
  return std::string(sqlite3_errmsg(db));
}

} // namespace

std::optional<std::string> write_sqlite(const std::string &path, const RunTrace &run,
                                        const SqliteOptions &options) {
  static std::atomic<unsigned> counter{0};
  // Built beside the file a link names and renamed onto it, so a link to the database stays one.
  const std::string target = rename_target(path);
  const std::string tmp = temporary_name_beside(target, std::to_string(::getpid()) + "." +
                                                            std::to_string(counter.fetch_add(1)));
  // Errors name the path the user gave, never the temporary file (docs/cli.md, "Outputs").
  const std::string cannot_write = "cannot write '" + path + "': ";
  // Missing parent folders are created, as for every output.
  const std::filesystem::path folder = std::filesystem::path(target).parent_path();
  std::error_code ec;
  if (!folder.empty() && !std::filesystem::is_directory(folder, ec)) {
    std::filesystem::create_directories(folder, ec);
    if (ec)
      return cannot_write + "cannot create folder '" + folder.string() + "': " + ec.message();
  }
  // O_EXCL: SQLite must start from an empty file of our own, never one that was lying there.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
  if (fd < 0)
    return cannot_write + std::strerror(errno);
  ::close(fd);
  const int interrupt_slot = remember_temp(tmp.c_str()); // filling a large run takes a while
  sqlite3 *db = nullptr;
  std::optional<std::string> err;
  if (sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK)
    err = cannot_write +
          "cannot open it as a database: " + (db ? sqlite3_errmsg(db) : "out of memory");
  else if (std::optional<std::string> why = fill(db, run, options))
    err = cannot_write + *why;
  if (sqlite3_close(db) != SQLITE_OK && !err)
    err = cannot_write + "the database could not be closed";
  if (!err && std::rename(tmp.c_str(), target.c_str()) != 0)
    err = cannot_write + std::strerror(errno);
  if (err)
    ::unlink(tmp.c_str());
  forget_temp(interrupt_slot);
  return err;
}

} // namespace cutrace
