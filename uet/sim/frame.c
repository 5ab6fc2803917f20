/* Frame pool (see frame.h). */
#include <stdlib.h>
#include <string.h>

#include "frame.h"

#define SLAB_FRAMES	64u

static size_t frame_size(uint32_t cap)
{
	/* Keep every frame pointer-aligned inside its slab. */
	size_t n = sizeof(struct uet_frame) + cap;

	return (n + sizeof(void *) - 1) & ~(sizeof(void *) - 1);
}

void uet_frame_pool_init(struct uet_frame_pool *p, uint32_t mtu)
{
	memset(p, 0, sizeof(*p));
	p->big_cap = mtu > UET_FRAME_SMALL ? mtu : UET_FRAME_SMALL;
}

void uet_frame_pool_fini(struct uet_frame_pool *p)
{
	while (p->slabs) {
		void *next = *(void **)p->slabs;

		free(p->slabs);
		p->slabs = next;
	}
	memset(p, 0, sizeof(*p));
}

/* One slab of frames of one size onto its free list. */
static void pool_grow(struct uet_frame_pool *p, uint32_t cap,
		      struct uet_frame **list, uint64_t *made)
{
	size_t fs = frame_size(cap), hdr = sizeof(void *);
	uint8_t *slab = uet_sim_alloc(hdr + SLAB_FRAMES * fs);
	unsigned i;

	*(void **)slab = p->slabs;
	p->slabs = slab;
	for (i = 0; i < SLAB_FRAMES; i++) {
		struct uet_frame *f = (struct uet_frame *)(slab + hdr + i * fs);

		f->cap = cap;
		f->next = *list;
		*list = f;
	}
	*made += SLAB_FRAMES;
}

struct uet_frame *uet_frame_alloc(struct uet_frame_pool *p, uint32_t len)
{
	bool small = len <= UET_FRAME_SMALL;
	struct uet_frame **list = small ? &p->free_small : &p->free_big;
	struct uet_frame *f;
	uint32_t cap;

	if (!*list) {
		if (small)
			pool_grow(p, UET_FRAME_SMALL, list, &p->small);
		else
			pool_grow(p, p->big_cap, list, &p->big);
	}
	f = *list;
	*list = f->next;
	cap = f->cap;
	memset(f, 0, sizeof(*f));
	f->cap = cap;
	if (++p->live > p->live_peak)
		p->live_peak = p->live;
	return f;
}

void uet_frame_free(struct uet_frame_pool *p, struct uet_frame *f)
{
	struct uet_frame **list = f->cap == UET_FRAME_SMALL ? &p->free_small :
			       &p->free_big;

	f->next = *list;
	*list = f;
	p->live--;
}

size_t uet_frame_pool_bytes(const struct uet_frame_pool *p)
{
	return p->small * frame_size(UET_FRAME_SMALL) +
	       p->big * frame_size(p->big_cap);
}
