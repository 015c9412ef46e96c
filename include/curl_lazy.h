#pragma once
/* libcurl is not linked: src/curl_lazy.c defines the libcurl functions
 * the code calls and opens libcurl the first time one is called. */

#include "err.h"

/* After a libcurl call that fails only when out of memory failed: when
 * libcurl could not be loaded, ERR_INTERNAL saying why; out of memory
 * otherwise. -1, as err_set. */
int curl_lazy_fail(struct err *e);
