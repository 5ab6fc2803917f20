/* The allocator of the engine call in progress (include/uet/alloc.h).
 * Thread-local: feps on other threads have their own calls. */
#include <stdlib.h>

#include "uet/alloc.h"

static __thread const struct uet_alloc *uet_alloc_cur;

const struct uet_alloc *uet_alloc_enter(const struct uet_alloc *a)
{
	const struct uet_alloc *prev = uet_alloc_cur;

	uet_alloc_cur = a;
	return prev;
}

void uet_alloc_leave(const struct uet_alloc *prev)
{
	uet_alloc_cur = prev;
}

void *uet_malloc(size_t size)
{
	const struct uet_alloc *a = uet_alloc_cur;

	return a ? a->malloc(a->user, size) : malloc(size);
}

void *uet_calloc(size_t nmemb, size_t size)
{
	const struct uet_alloc *a = uet_alloc_cur;

	return a ? a->calloc(a->user, nmemb, size) : calloc(nmemb, size);
}

void *uet_realloc(void *ptr, size_t size)
{
	const struct uet_alloc *a = uet_alloc_cur;

	return a ? a->realloc(a->user, ptr, size) : realloc(ptr, size);
}

void uet_free(void *ptr)
{
	const struct uet_alloc *a = uet_alloc_cur;

	if (a)
		a->free(a->user, ptr);
	else
		free(ptr);
}
