#include <sqlite3.h>
#include <valgrind/callgrind.h>

// Callgrind counts instructions only between these calls when run with
// --instr-atstart=no; outside valgrind they cost a few instructions.
static inline void bench_instrumentation_start(void) { CALLGRIND_START_INSTRUMENTATION; }
static inline void bench_instrumentation_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }

// SQLITE_TRANSIENT is a macro Swift cannot import.
static inline int bench_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}
