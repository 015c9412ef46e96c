#pragma once
/* libcurl is not linked: src/curl_lazy.c defines the libcurl functions
 * the code calls and opens libcurl the first time one is called. */

#include "err.h"

/* Why libcurl could not be loaded, or NULL: it is (loading it if need be). */
const char *curl_lazy_error(void);
/* After a libcurl call that fails only when out of memory failed: when
 * libcurl could not be loaded, ERR_INTERNAL saying why; out of memory
 * otherwise. -1, as err_set. */
int curl_lazy_fail(struct err *e);
