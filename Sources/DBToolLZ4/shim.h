// liblz4's block API: the compression of LTX page frames.
#include <lz4.h>
