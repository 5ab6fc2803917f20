/* Event heap and deadline heap of the simulator (see evq.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "evq.h"

void *uet_sim_alloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p) {
		fprintf(stderr, "uetsim: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void *uet_sim_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p) {
		fprintf(stderr, "uetsim: out of memory (%zu bytes)\n", n);
		abort();
	}
	return p;
}

void uet_evq_init(struct uet_evq *q)
{
	memset(q, 0, sizeof(*q));
}

void uet_evq_fini(struct uet_evq *q)
{
	free(q->v);
	memset(q, 0, sizeof(*q));
}

static bool ev_before(const struct uet_ev *x, const struct uet_ev *y)
{
	return x->t < y->t || (x->t == y->t && x->seq < y->seq);
}

void uet_evq_push(struct uet_evq *q, uet_ps t, uint32_t kind, uint32_t a,
		  void *p)
{
	struct uet_ev ev = { .t = t, .seq = q->seq++, .p = p, .a = a,
			     .kind = kind };
	size_t i, up;

	if (q->n == q->cap) {
		q->cap = q->cap ? 2 * q->cap : 1024;
		q->v = uet_sim_realloc(q->v, q->cap * sizeof(*q->v));
	}
	q->pushed++;
	for (i = q->n++; i; i = up) {
		up = (i - 1) / 2;
		if (!ev_before(&ev, &q->v[up]))
			break;
		q->v[i] = q->v[up];
	}
	q->v[i] = ev;
}

bool uet_evq_pop(struct uet_evq *q, struct uet_ev *out)
{
	struct uet_ev last;
	size_t i = 0, c;

	if (!q->n)
		return false;
	*out = q->v[0];
	last = q->v[--q->n];
	while ((c = 2 * i + 1) < q->n) {
		if (c + 1 < q->n && ev_before(&q->v[c + 1], &q->v[c]))
			c++;
		if (!ev_before(&q->v[c], &last))
			break;
		q->v[i] = q->v[c];
		i = c;
	}
	if (q->n)
		q->v[i] = last;
	return true;
}

void uet_tmq_init(struct uet_tmq *q, uint32_t ids)
{
	uint32_t i;

	q->heap = uet_sim_alloc((size_t)ids * sizeof(*q->heap));
	q->pos = uet_sim_alloc((size_t)ids * sizeof(*q->pos));
	q->at = uet_sim_alloc((size_t)ids * sizeof(*q->at));
	q->n = 0;
	q->ids = ids;
	for (i = 0; i < ids; i++) {
		q->pos[i] = UINT32_MAX;
		q->at[i] = UET_PS_NONE;
	}
}

void uet_tmq_fini(struct uet_tmq *q)
{
	free(q->heap);
	free(q->pos);
	free(q->at);
	memset(q, 0, sizeof(*q));
}

static bool tm_before(const struct uet_tmq *q, uint32_t x, uint32_t y)
{
	return q->at[x] < q->at[y] || (q->at[x] == q->at[y] && x < y);
}

static void tm_place(struct uet_tmq *q, uint32_t i, uint32_t id)
{
	q->heap[i] = id;
	q->pos[id] = i;
}

static void tm_up(struct uet_tmq *q, uint32_t i, uint32_t id)
{
	while (i) {
		uint32_t up = (i - 1) / 2;

		if (!tm_before(q, id, q->heap[up]))
			break;
		tm_place(q, i, q->heap[up]);
		i = up;
	}
	tm_place(q, i, id);
}

static void tm_down(struct uet_tmq *q, uint32_t i, uint32_t id)
{
	uint32_t c;

	while ((c = 2 * i + 1) < q->n) {
		if (c + 1 < q->n && tm_before(q, q->heap[c + 1], q->heap[c]))
			c++;
		if (!tm_before(q, q->heap[c], id))
			break;
		tm_place(q, i, q->heap[c]);
		i = c;
	}
	tm_place(q, i, id);
}

void uet_tmq_set(struct uet_tmq *q, uint32_t id, uet_ps at)
{
	uint32_t i = q->pos[id], last;

	if (at == q->at[id])
		return;
	if (at == UET_PS_NONE) {
		q->at[id] = at;
		q->pos[id] = UINT32_MAX;
		last = q->heap[--q->n];
		if (i == q->n)
			return;
		/* The last node fills the hole: it may go either way. */
		tm_up(q, i, last);
		tm_down(q, q->pos[last], last);
		return;
	}
	q->at[id] = at;
	if (i == UINT32_MAX) {
		tm_up(q, q->n++, id);
		return;
	}
	tm_up(q, i, id);
	tm_down(q, q->pos[id], id);
}
