/* Binary min-heap of timer nodes keyed by deadline: the PDS keeps one node
 * per PDC (its earliest RTO, delayed-ACK or idle deadline), so
 * uet_fep_next_timeout is the top and handle_timeout pops what is due.
 * Nodes are embedded in their owners; the heap array is allocated once.
 */
#ifndef UET_PDS_HEAP_H
#define UET_PDS_HEAP_H

#include <stdbool.h>

#include "uet/time.h"

#define UET_HEAP_NONE	(~0u)	/* idx of a node that is not in the heap */

struct uet_heap_node {
	uet_time key;
	unsigned idx;
};

struct uet_heap {
	struct uet_heap_node **a;
	unsigned n, cap;
};

/* 0 or UET_ERR_NOMEM. */
int uet_heap_init(struct uet_heap *h, unsigned cap);
void uet_heap_fini(struct uet_heap *h);

static inline void uet_heap_node_init(struct uet_heap_node *nd)
{
	nd->key = UET_TIME_NONE;
	nd->idx = UET_HEAP_NONE;
}

/* Insert, move or (key UET_TIME_NONE) remove nd. The heap never holds more
 * than cap nodes: a caller has at most cap owners. */
void uet_heap_set(struct uet_heap *h, struct uet_heap_node *nd, uet_time key);

static inline struct uet_heap_node *uet_heap_top(const struct uet_heap *h)
{
	return h->n ? h->a[0] : 0;
}

#endif
