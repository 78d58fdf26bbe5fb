#include <sqlite3.h>
#include <valgrind/callgrind.h>

// Callgrind counts instructions only between these calls when run with
// --instr-atstart=no; outside valgrind they cost a few instructions.
static inline void bench_instrumentation_start(void) { CALLGRIND_START_INSTRUMENTATION; }
static inline void bench_instrumentation_stop(void) { CALLGRIND_STOP_INSTRUMENTATION; }
