#ifndef FUZZ_DRIVER_H
#define FUZZ_DRIVER_H

#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (LLVM 12 and later): runs the fuzzing loop with the
/// command line's options, calling `callback` with each input. SwiftPM gives
/// each executable a main of its own, so libFuzzer's main is never linked:
/// ours calls this.
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*callback)(const uint8_t *data, size_t size));

#endif
