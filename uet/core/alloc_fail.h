/* For tests and the fuzzer: an allocator (include/uet/alloc.h) that
 * fails the allocation numbered fail_at (0-based, counting from the
 * last uet_alloc_fail_init or re-arm), once. */
#ifndef UET_CORE_ALLOC_FAIL_H
#define UET_CORE_ALLOC_FAIL_H

#include <stdlib.h>

#include "uet/alloc.h"

struct uet_alloc_fail {
	struct uet_alloc a;		/* give &a to uet_fep_config.alloc */
	long calls;			/* allocations asked for */
	long fail_at;			/* -1: never */
	long failed;
};

static inline int uet_alloc_fail_now(void *u)
{
	struct uet_alloc_fail *f = u;

	if (f->calls++ != f->fail_at)
		return 0;
	f->failed++;
	return 1;
}

static inline void *uet_alloc_fail_malloc(void *u, size_t n)
{
	return uet_alloc_fail_now(u) ? NULL : malloc(n);
}

static inline void *uet_alloc_fail_calloc(void *u, size_t m, size_t n)
{
	return uet_alloc_fail_now(u) ? NULL : calloc(m, n);
}

static inline void *uet_alloc_fail_realloc(void *u, void *p, size_t n)
{
	return uet_alloc_fail_now(u) ? NULL : realloc(p, n);
}

static inline void uet_alloc_fail_free(void *u, void *p)
{
	(void)u;
	free(p);
}

static inline void uet_alloc_fail_init(struct uet_alloc_fail *f,
				       long fail_at)
{
	f->a.malloc = uet_alloc_fail_malloc;
	f->a.calloc = uet_alloc_fail_calloc;
	f->a.realloc = uet_alloc_fail_realloc;
	f->a.free = uet_alloc_fail_free;
	f->a.user = f;
	f->calls = 0;
	f->failed = 0;
	f->fail_at = fail_at;
}

#endif
