/* What SQLite itself costs for the rows `trace-view --sqlite` writes (docs/PERFORMANCE.md, "4a"):
 * N rows into an empty table through one prepared statement, in one transaction with no journal,
 * then the three indexes the events table has, timed apart (wall and process CPU).
 *   cc -O2 bench/decode/sqlite_floor.c -lsqlite3 -o sqlite_floor
 *   ./sqlite_floor N [wide]   wide: the events table's 18 columns, texts included;
 *                             otherwise 11 integer and real columns (names as ids) */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double clock_s(clockid_t id) {
  struct timespec t;
  clock_gettime(id, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  if (argc < 2)
    return fprintf(stderr, "usage: sqlite_floor N [wide]\n"), 2;
  const long n = atol(argv[1]);
  const int wide = argc > 2 && strcmp(argv[2], "wide") == 0;
  const char *path = "sqlite_floor.db";
  remove(path);
  sqlite3 *db;
  sqlite3_open(path, &db);
  sqlite3_exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-16384;"
                   "BEGIN;", 0, 0, 0);
  sqlite3_exec(db,
               wide ? "CREATE TABLE events (event INTEGER PRIMARY KEY, launch INTEGER, row INTEGER,"
                      " cta INTEGER, kind TEXT, name TEXT, site INTEGER, lane TEXT, payload INTEGER,"
                      " begin_cycles INTEGER, end_cycles INTEGER, duration_cycles INTEGER,"
                      " begin_ns REAL, end_ns REAL, duration_ns REAL, incomplete INTEGER,"
                      " file TEXT, line INTEGER)"
                    : "CREATE TABLE events (event INTEGER PRIMARY KEY, launch INTEGER, row INTEGER,"
                      " cta INTEGER, name INTEGER, payload INTEGER, begin_cycles INTEGER,"
                      " end_cycles INTEGER, begin_ns REAL, end_ns REAL, flags INTEGER)",
               0, 0, 0);
  const char *names[] = {"produce", "consume", "stage_ready", "stage_free", "epilogue"};
  sqlite3_stmt *st;
  sqlite3_prepare_v2(db,
                     wide ? "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
                          : "INSERT INTO events VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                     -1, &st, 0);
  const double w0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  for (long i = 0; i < n; ++i) {
    const long row = i / 500, at = i * 37 % 100000;
    int k = 1;
    sqlite3_bind_int64(st, k++, i);
    sqlite3_bind_int64(st, k++, row / 256);
    sqlite3_bind_int64(st, k++, row % 256);
    sqlite3_bind_int64(st, k++, row % 256 / 2);
    if (wide) {
      sqlite3_bind_text(st, k++, i % 3 ? "slice" : "instant", -1, SQLITE_STATIC);
      sqlite3_bind_text(st, k++, names[i % 5], -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, k++, i % 5);
      sqlite3_bind_text(st, k++, "main", -1, SQLITE_STATIC);
    } else {
      sqlite3_bind_int64(st, k++, i % 5);
    }
    sqlite3_bind_int64(st, k++, i % 64);
    sqlite3_bind_int64(st, k++, at * 100);
    sqlite3_bind_int64(st, k++, at * 100 + 300);
    if (wide)
      sqlite3_bind_int64(st, k++, 300);
    sqlite3_bind_double(st, k++, at * 55.123);
    sqlite3_bind_double(st, k++, at * 55.123 + 171.3);
    if (wide) {
      sqlite3_bind_double(st, k++, 171.3);
      sqlite3_bind_int64(st, k++, 0);
      sqlite3_bind_text(st, k++, "warp_specialized.cu", -1, SQLITE_STATIC);
      sqlite3_bind_int64(st, k++, 44 + i % 5);
    } else {
      sqlite3_bind_int64(st, k++, i % 3 ? 0 : 1);
    }
    sqlite3_step(st);
    sqlite3_reset(st);
  }
  sqlite3_finalize(st);
  const double w1 = clock_s(CLOCK_MONOTONIC), c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  sqlite3_exec(db, "CREATE INDEX events_name ON events (name);"
                   "CREATE INDEX events_row ON events (launch, row);"
                   "CREATE INDEX events_cta ON events (launch, cta); COMMIT;", 0, 0, 0);
  sqlite3_close(db);
  const double w2 = clock_s(CLOCK_MONOTONIC), c2 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
  printf("%ld rows (%s): insert %.2f s (CPU %.2f), indexes %.2f s (CPU %.2f): %.2f M rows/s\n", n,
         wide ? "18 columns" : "11 columns", w1 - w0, c1 - c0, w2 - w1, c2 - c1,
         n / (w2 - w0) / 1e6);
  remove(path);
  return 0;
}
