// The declaration in include/FuzzDriver.h is all: libFuzzer defines the function.
#include "FuzzDriver.h"
