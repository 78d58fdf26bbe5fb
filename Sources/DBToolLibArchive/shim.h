#ifndef DBTOOL_LIBARCHIVE_SHIM_H
#define DBTOOL_LIBARCHIVE_SHIM_H

#include <archive.h>
#include <archive_entry.h>

#endif
