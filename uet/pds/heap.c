/* Binary min-heap of deadlines (see heap.h). */
#include <assert.h>
#include <stdlib.h>

#include "uet/alloc.h"
#include "uet/err.h"

#include "heap.h"

int uet_heap_init(struct uet_heap *h, unsigned cap)
{
	h->a = uet_calloc(cap ? cap : 1, sizeof(*h->a));
	h->n = 0;
	h->cap = cap;
	return h->a ? 0 : UET_ERR_NOMEM;
}

void uet_heap_fini(struct uet_heap *h)
{
	uet_free(h->a);
	h->a = NULL;
	h->n = h->cap = 0;
}

static void heap_place(struct uet_heap *h, unsigned i, struct uet_heap_node *nd)
{
	h->a[i] = nd;
	nd->idx = i;
}

static void heap_up(struct uet_heap *h, unsigned i)
{
	struct uet_heap_node *nd = h->a[i];

	while (i) {
		unsigned p = (i - 1) / 2;

		if (h->a[p]->key <= nd->key)
			break;
		heap_place(h, i, h->a[p]);
		i = p;
	}
	heap_place(h, i, nd);
}

static void heap_down(struct uet_heap *h, unsigned i)
{
	struct uet_heap_node *nd = h->a[i];

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= h->n)
			break;
		if (c + 1 < h->n && h->a[c + 1]->key < h->a[c]->key)
			c++;
		if (nd->key <= h->a[c]->key)
			break;
		heap_place(h, i, h->a[c]);
		i = c;
	}
	heap_place(h, i, nd);
}

static void heap_remove(struct uet_heap *h, struct uet_heap_node *nd)
{
	unsigned i = nd->idx;
	struct uet_heap_node *last = h->a[--h->n];

	nd->idx = UET_HEAP_NONE;
	if (last == nd)
		return;
	heap_place(h, i, last);
	heap_up(h, i);
	heap_down(h, last->idx);
}

void uet_heap_set(struct uet_heap *h, struct uet_heap_node *nd, uet_time key)
{
	if (nd->idx == UET_HEAP_NONE) {
		nd->key = key;
		if (key == UET_TIME_NONE)
			return;
		assert(h->n < h->cap);
		heap_place(h, h->n++, nd);
		heap_up(h, nd->idx);
		return;
	}
	if (key == UET_TIME_NONE) {
		nd->key = key;
		heap_remove(h, nd);
		return;
	}
	/* A PDC rearms after each packet, mostly to the same time. */
	if (key == nd->key)
		return;
	nd->key = key;
	heap_up(h, nd->idx);
	heap_down(h, nd->idx);
}
