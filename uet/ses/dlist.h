/* Intrusive doubly linked lists for SES queues (posted receives, the
 * unexpected list, pending sends, free lists): O(1) unlink from the middle,
 * which cancel and matching need, and no allocation. */
#ifndef UET_SES_DLIST_H
#define UET_SES_DLIST_H

#include <stdbool.h>
#include <stddef.h>

struct uet_dlist {
	struct uet_dlist *next, *prev;
};

#define uet_dlist_entry(ptr, type, member) \
	((type *)((char *)(ptr) - offsetof(type, member)))

/* Iterate while allowing the current node to be unlinked. */
#define uet_dlist_foreach_safe(pos, tmp, head) \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

static inline void uet_dlist_init(struct uet_dlist *h)
{
	h->next = h->prev = h;
}

static inline bool uet_dlist_empty(const struct uet_dlist *h)
{
	return h->next == h;
}

static inline void uet_dlist_add_tail(struct uet_dlist *h, struct uet_dlist *n)
{
	n->prev = h->prev;
	n->next = h;
	h->prev->next = n;
	h->prev = n;
}

/* Push n at the front: free lists are LIFO, so the descriptor (and inject
 * slice) just released, still in cache and paged in, is the next one used. */
static inline void uet_dlist_add(struct uet_dlist *h, struct uet_dlist *n)
{
	uet_dlist_add_tail(h->next, n);
}

/* Unlink n and leave it pointing at itself, so a second del is harmless
 * and uet_dlist_linked() tells whether it is on a list. */
static inline void uet_dlist_del(struct uet_dlist *n)
{
	n->prev->next = n->next;
	n->next->prev = n->prev;
	n->next = n->prev = n;
}

static inline bool uet_dlist_linked(const struct uet_dlist *n)
{
	return n->next != n;
}

static inline struct uet_dlist *uet_dlist_pop(struct uet_dlist *h)
{
	struct uet_dlist *n = h->next;

	if (n == h)
		return NULL;
	uet_dlist_del(n);
	return n;
}

#endif
