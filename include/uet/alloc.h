/* The engine's memory: every allocation on its paths goes through the
 * allocator a fep was opened with (uet_fep_config.alloc; NULL: the C
 * library's), so a test or a fuzzer can make any of them fail and check
 * that the engine says so and loses nothing.
 *
 * The engine is single-threaded per fep and entered only through its
 * API: the fep being called names the allocator for the duration of the
 * call (uet_alloc_enter/leave around every entry point), and engine code
 * calls uet_malloc & co. without passing it around.
 */
#ifndef UET_ALLOC_H
#define UET_ALLOC_H

#include <stddef.h>

struct uet_alloc {
	void *(*malloc)(void *user, size_t size);
	void *(*calloc)(void *user, size_t nmemb, size_t size);
	void *(*realloc)(void *user, void *ptr, size_t size);
	void (*free)(void *user, void *ptr);
	void *user;
};

void *uet_malloc(size_t size);
void *uet_calloc(size_t nmemb, size_t size);
void *uet_realloc(void *ptr, size_t size);
void uet_free(void *ptr);

/* Make a the allocator of this thread's engine calls until the matching
 * leave (NULL: the C library's); returns the one to restore. */
const struct uet_alloc *uet_alloc_enter(const struct uet_alloc *a);
void uet_alloc_leave(const struct uet_alloc *prev);

#endif
