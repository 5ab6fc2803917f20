/* The messages waiting to start, indexed by peer (ses_int.h, struct
 * uet_ses_peer). ses->tx_pending keeps every one in post order (flush,
 * rewakes); ses->cl_pending the connectionless ones among them, so that
 * a connectionless start looks past no message that waits for a PDC; and
 * each peer's list its own, in the same order, so that starting a peer's
 * next message, checking its fences and summing what is queued for it
 * look at that peer's messages only, not at everyone's (an endpoint
 * sending to many peers at once walked them all for each message it
 * started or finished).
 *
 * A peer's entry is made at its first message and kept while the
 * endpoint talks to few peers: one allocation per peer, none per
 * message. Past PENDING_KEEP_MIN entries, a post first drops the entries
 * with nothing waiting (uet_pending_sweep), and the next sweep waits
 * until the table has doubled: an endpoint that meets ever new peers
 * holds entries for the peers it is sending to, and at most about as
 * many idle ones, at a cost per post that stays constant on average.
 */
#include <string.h>

#include "uet/alloc.h"
#include "uet/err.h"
#include "ses_int.h"

#define PENDING_BUCKETS_MIN	64u
#define PENDING_KEEP_MIN	1024u	/* idle entries kept before a sweep */

static struct uet_ses_peer **pending_slot(const struct uet_ses *ses,
					  const struct uet_addr *a)
{
	return &ses->peers[uet_addr_hash(a) & (ses->peers_cap - 1)];
}

struct uet_ses_peer *uet_pending_peer(const struct uet_ses *ses,
				      const struct uet_addr *a)
{
	struct uet_ses_peer *q;

	if (!ses->peers_cap)
		return NULL;
	for (q = *pending_slot(ses, a); q; q = q->next)
		if (uet_addr_equal(&q->addr, a))
			return q;
	return NULL;
}

/* Twice the buckets once there are as many peers as buckets. */
static int pending_grow(struct uet_ses *ses)
{
	unsigned cap = ses->peers_cap ? 2 * ses->peers_cap :
					PENDING_BUCKETS_MIN;
	struct uet_ses_peer **old = ses->peers, **t;
	unsigned old_cap = ses->peers_cap;

	t = uet_calloc(cap, sizeof(*t));
	if (!t)
		return UET_ERR_NOMEM;
	ses->peers = t;
	ses->peers_cap = cap;
	for (unsigned i = 0; i < old_cap; i++) {
		struct uet_ses_peer *q = old[i], *next;

		for (; q; q = next) {
			struct uet_ses_peer **s = pending_slot(ses, &q->addr);

			next = q->next;
			q->next = *s;
			*s = q;
		}
	}
	uet_free(old);
	return 0;
}

struct uet_ses_peer *uet_pending_entry(struct uet_ses *ses,
				       const struct uet_addr *a)
{
	struct uet_ses_peer *q = uet_pending_peer(ses, a), **s;

	if (q)
		return q;
	if (ses->peers_n >= ses->peers_cap && pending_grow(ses) &&
	    !ses->peers_cap)
		return NULL;	/* a full table only chains longer */
	q = uet_calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->addr = *a;
	uet_list_init(&q->pending);
	s = pending_slot(ses, a);
	q->next = *s;
	*s = q;
	ses->peers_n++;
	return q;
}

void uet_pending_insert(struct uet_list *at, struct uet_list *pat,
			struct uet_ses_peer *q, struct uet_ses_msg *m)
{
	uet_list_add(at, &m->link);
	uet_list_add(pat, &m->plink);
	m->pq = q;
	if (!m->cl_mode) {
		q->bytes += m->len;
		q->msgs++;
	}
}

int uet_pending_add(struct uet_ses *ses, struct uet_ses_msg *m)
{
	struct uet_ses_peer *q = uet_pending_entry(ses, &m->peer);

	if (!q)
		return UET_ERR_NOMEM;
	/* after the last of each list */
	uet_pending_insert(ses->tx_pending.prev, q->pending.prev, q, m);
	if (m->cl_mode)
		uet_list_add_tail(&ses->cl_pending, &m->clink);
	return 0;
}

void uet_pending_del(struct uet_ses_msg *m)
{
	struct uet_ses_peer *q = m->pq;

	uet_list_del(&m->link);
	if (!q)
		return;
	uet_list_del(&m->plink);
	m->pq = NULL;
	if (m->cl_mode) {
		uet_list_del(&m->clink);
	} else {
		q->bytes -= m->len;
		q->msgs--;
	}
}

void uet_pending_sweep(struct uet_ses *ses)
{
	unsigned at = ses->peers_sweep_at ? ses->peers_sweep_at :
					    PENDING_KEEP_MIN;

	if (ses->peers_n < at)
		return;
	for (unsigned i = 0; i < ses->peers_cap; i++) {
		struct uet_ses_peer **pp = &ses->peers[i], *q;

		while ((q = *pp)) {
			if (!uet_list_empty(&q->pending)) {
				pp = &q->next;
				continue;
			}
			*pp = q->next;
			uet_free(q);
			ses->peers_n--;
		}
	}
	ses->peers_sweep_at = 2 * ses->peers_n > PENDING_KEEP_MIN ?
			      2 * ses->peers_n : PENDING_KEEP_MIN;
}

void uet_pending_fini(struct uet_ses *ses)
{
	for (unsigned i = 0; i < ses->peers_cap; i++) {
		struct uet_ses_peer *q = ses->peers[i], *next;

		for (; q; q = next) {
			next = q->next;
			uet_free(q);
		}
	}
	uet_free(ses->peers);
	ses->peers = NULL;
	ses->peers_cap = ses->peers_n = 0;
}
