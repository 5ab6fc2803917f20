/*
 * ft_tagged: functional matrix of tagged matching and its neighbours.
 * The server receives, the client sends; both run the same list of cases,
 * meet out of band before each one, and swap results after it, so both
 * print the same table. A case whose capability either side lacks is
 * SKIP, never PASS. Exit status is non-zero if any case FAILs.
 */
#include "common.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

enum { TG_PASS, TG_FAIL, TG_SKIP, TG_XFAIL };

#define TG_OPS		64
#define TG_BUF		(4u << 20)
#define TG_SPIN_MS	50	/* lets unexpected messages arrive first */
#define TG_POISON	0xee
#define TG_MR_BUF	4096	/* multi-recv buffer */
#define TG_MR_MIN	1024	/* FI_OPT_MIN_MULTI_RECV */
#define TG_MR_LEN	800
#define TG_MR_MSGS	4	/* 4 * 800 leaves 896 < 1024: released */
#define TG_ORDER_N	16
#define TG_CQ_DATA	0x1122334455667788ull

/*
 * Out-of-band words within a case: SYNC meets the peer; END(result) closes
 * the case. A side that fails sends END at once; a peer waiting in a SYNC
 * then fails too instead of hanging, and stray SYNCs are dropped at END.
 */
#define TG_SYNC		0x53594e43ull
#define TG_END		0x454e4400ull
#define TG_IS_END(v)	(((v) & ~0xffull) == TG_END)

struct tg_pool {
	struct ft_op op[TG_OPS];
	struct fid_ep *ep[TG_OPS];
	uint8_t *buf[TG_OPS];
	size_t len[TG_OPS];
	int n;
};

struct tg {
	struct ft_ctx c;
	struct fid_ep *ep2;		/* client: a second sender */
	struct fid_cq *cq2;
	fi_addr_t peer2;		/* server: the client's second endpoint */
	uint8_t *sbuf, *rbuf;
	struct fid_mr *smr, *rmr;
	void *sdesc, *rdesc;
	size_t scur, rcur;		/* bump allocators in sbuf / rbuf */
	struct tg_pool *pool;
	int idx;			/* current case */
	char reason[160];
	bool peer_ended;		/* END already read in a SYNC */
	uint64_t peer_res;
	/* what both sides have */
	uint64_t caps;
	uint64_t cq_data_size, inject_size, iov_limit, ordered;
	/* multi-recv completions, in the order read */
	struct fi_cq_tagged_entry mr_comp[16];
	int mr_err[16];
	int mr_n;
	bool mr_released;
	const char *only;		/* -c: run one case */
	const char *xfail;		/* -x: known failures of this provider */
	bool list;			/* -l: list the cases */
};

struct tg_case {
	const char *name;
	int (*run)(struct tg *t);
	const char *what;
};

/* ------------------------------------------------------------------ */
/* helpers */

static bool tg_server(const struct tg *t)
{
	return !ft_is_client(&t->c);
}

static uint64_t tg_tag(const struct tg *t, uint64_t k)
{
	return ((uint64_t)(t->idx + 1) << 32) | k;
}

static uint64_t tg_seed(const struct tg *t, uint64_t k)
{
	return (uint64_t)(t->idx + 1) * 1000 + k;
}

static int tg_fail(struct tg *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int tg_fail(struct tg *t, const char *fmt, ...)
{
	va_list ap;

	if (!t->reason[0]) {
		va_start(ap, fmt);
		vsnprintf(t->reason, sizeof(t->reason), fmt, ap);
		va_end(ap);
	}
	return TG_FAIL;
}

static int tg_skip(struct tg *t, const char *why)
{
	snprintf(t->reason, sizeof(t->reason), "%s", why);
	return TG_SKIP;
}

static int tg_sync(struct tg *t)
{
	uint64_t v;

	if (t->peer_ended)
		return tg_fail(t, "the peer ended the case early");
	if (ft_oob_swap(&t->c, TG_SYNC, &v))
		return tg_fail(t, "out-of-band sync failed");
	if (TG_IS_END(v)) {
		t->peer_ended = true;
		t->peer_res = v & 0xff;
		return tg_fail(t, "the peer ended the case early");
	}
	return v == TG_SYNC ? 0 : tg_fail(t, "out-of-band protocol error");
}

/* While we wait for a completion: did the peer end the case failing? */
static bool tg_abort_check(struct ft_ctx *c)
{
	uint8_t b[8];

	if (recv(c->oob_fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT) != 8)
		return false;
	return ft_get_be64(b) == (TG_END | TG_FAIL);
}

static struct ft_op *tg_op(struct tg *t, struct fid_ep *ep, uint8_t *buf,
			   size_t len)
{
	struct tg_pool *p = t->pool;
	struct ft_op *op;

	if (p->n == TG_OPS)
		return NULL;
	op = &p->op[p->n];
	memset(op, 0, sizeof(*op));
	op->id = (uint64_t)p->n;
	p->ep[p->n] = ep;
	p->buf[p->n] = buf;
	p->len[p->n] = len;
	p->n++;
	return op;
}

static uint8_t *tg_sbuf(struct tg *t, size_t len)
{
	uint8_t *b = t->sbuf + t->scur;

	t->scur += (len + 63) & ~(size_t)63;
	return t->scur <= TG_BUF ? b : NULL;
}

/* Receive space, poisoned (with its padding) to catch stray writes. */
static uint8_t *tg_rbuf(struct tg *t, size_t len)
{
	uint8_t *b = t->rbuf + t->rcur;
	size_t n = (len + 64) & ~(size_t)63;

	t->rcur += n;
	if (t->rcur > TG_BUF)
		return NULL;
	memset(b, TG_POISON, n);
	return b;
}

static uint8_t *tg_op_buf(const struct tg *t, const struct ft_op *op)
{
	return t->pool->buf[op->id];
}

/* Post a tagged send of len pattern bytes (seed) from ep. */
static struct ft_op *tg_send(struct tg *t, struct fid_ep *ep, uint64_t tag,
			     size_t len, uint64_t seed)
{
	struct ft_ctx *c = &t->c;
	uint8_t *buf = tg_sbuf(t, len ? len : 1);
	struct ft_op *op = buf ? tg_op(t, ep, buf, len) : NULL;
	ssize_t ret;

	if (!op) {
		tg_fail(t, "out of test buffers");
		return NULL;
	}
	ft_fill(buf, len, seed);
	ret = FT_POST(c, fi_tsend(ep, buf, len, t->sdesc, c->peer, tag, op));
	if (ret) {
		tg_fail(t, "fi_tsend: %s (%zd)", fi_strerror((int)-ret), ret);
		return NULL;
	}
	return op;
}

static struct ft_op *tg_recv(struct tg *t, fi_addr_t src, uint64_t tag,
			     uint64_t ignore, size_t len)
{
	struct ft_ctx *c = &t->c;
	uint8_t *buf = tg_rbuf(t, len ? len : 1);
	struct ft_op *op = buf ? tg_op(t, c->ep, buf, len) : NULL;
	ssize_t ret;

	if (!op) {
		tg_fail(t, "out of test buffers");
		return NULL;
	}
	ret = FT_POST(c, fi_trecv(c->ep, buf, len, t->rdesc, src, tag, ignore,
				  op));
	if (ret) {
		tg_fail(t, "fi_trecv: %s (%zd)", fi_strerror((int)-ret), ret);
		return NULL;
	}
	return op;
}

static int tg_wait(struct tg *t, struct ft_op *op, const char *what)
{
	int ret = ft_wait_op(&t->c, op);

	if (ret)
		return tg_fail(t, "%s: %s", what, ret == -FI_ETIMEDOUT ?
			       "no completion" : fi_strerror(-ret));
	return 0;
}

static int tg_wait_send(struct tg *t, struct ft_op *op, const char *what)
{
	if (tg_wait(t, op, what))
		return TG_FAIL;
	if (op->err)
		return tg_fail(t, "%s: %s", what, op->errstr);
	if ((op->comp.flags & (FI_SEND | FI_TAGGED)) != (FI_SEND | FI_TAGGED))
		return tg_fail(t, "%s: completion flags 0x%" PRIx64 " lack "
			       "FI_SEND|FI_TAGGED", what, op->comp.flags);
	return 0;
}

/* A receive completed with this tag, length and content, and nothing else. */
static int tg_expect(struct tg *t, struct ft_op *op, uint64_t tag, size_t len,
		     uint64_t seed, const char *what)
{
	uint8_t *buf = tg_op_buf(t, op);
	ssize_t bad;

	if (tg_wait(t, op, what))
		return TG_FAIL;
	if (op->err)
		return tg_fail(t, "%s: %s", what, op->errstr);
	if ((op->comp.flags & (FI_RECV | FI_TAGGED)) != (FI_RECV | FI_TAGGED))
		return tg_fail(t, "%s: completion flags 0x%" PRIx64 " lack "
			       "FI_RECV|FI_TAGGED", what, op->comp.flags);
	if (op->comp.tag != tag)
		return tg_fail(t, "%s: tag 0x%" PRIx64 ", want 0x%" PRIx64,
			       what, op->comp.tag, tag);
	if (op->comp.len != len)
		return tg_fail(t, "%s: %zu bytes, want %zu", what,
			       op->comp.len, len);
	bad = ft_check(buf, len, seed);
	if (bad >= 0)
		return tg_fail(t, "%s: wrong data at offset %zd (another "
			       "message's?)", what, bad);
	/* tg_rbuf poisoned at least one byte past the posted length. */
	if (buf[t->pool->len[op->id]] != TG_POISON ||
	    (len < t->pool->len[op->id] && buf[len] != TG_POISON))
		return tg_fail(t, "%s: wrote past the message end", what);
	return 0;
}

/* Client's "unexpected" step: get the sends out before the server posts. */
static int tg_push(struct tg *t)
{
	if (ft_spin(&t->c, TG_SPIN_MS / 2))
		return tg_fail(t, "progress failed");
	return tg_sync(t);
}

/* Server's "unexpected" step: the messages arrive before the receives. */
static int tg_pull(struct tg *t)
{
	if (tg_sync(t))
		return TG_FAIL;
	if (ft_spin(&t->c, TG_SPIN_MS))
		return tg_fail(t, "progress failed");
	return 0;
}

/* ------------------------------------------------------------------ */
/* cases */

static int tg_exact(struct tg *t, bool unexpected, size_t len)
{
	uint64_t tag = tg_tag(t, 1), seed = tg_seed(t, 1);
	struct ft_op *op;

	if (tg_server(t)) {
		if (unexpected && tg_pull(t))
			return TG_FAIL;
		op = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, len);
		if (!op || (!unexpected && tg_sync(t)))
			return TG_FAIL;
		return tg_expect(t, op, tag, len, seed, "receive");
	}
	if (!unexpected && tg_sync(t))
		return TG_FAIL;
	op = tg_send(t, t->c.ep, tag, len, seed);
	if (!op || (unexpected && tg_push(t)))
		return TG_FAIL;
	return tg_wait_send(t, op, "send");
}

static int tg_exact_expected(struct tg *t)
{
	return tg_exact(t, false, 256);
}

static int tg_exact_unexpected(struct tg *t)
{
	return tg_exact(t, true, 256);
}

static int tg_large_expected(struct tg *t)
{
	return tg_exact(t, false, 1u << 20);
}

static int tg_large_unexpected(struct tg *t)
{
	return tg_exact(t, true, 1u << 20);
}

static int tg_zero_length(struct tg *t)
{
	return tg_exact(t, false, 0);
}

/* Two receives, two tags, sent in the opposite order. */
static int tg_tag_selects(struct tg *t)
{
	struct ft_op *ra, *rb, *sa, *sb;

	if (tg_server(t)) {
		rb = tg_recv(t, FI_ADDR_UNSPEC, tg_tag(t, 0xb), 0, 64);
		ra = tg_recv(t, FI_ADDR_UNSPEC, tg_tag(t, 0xa), 0, 64);
		if (!ra || !rb || tg_sync(t))
			return TG_FAIL;
		if (tg_expect(t, ra, tg_tag(t, 0xa), 64, tg_seed(t, 0xa), "tag A"))
			return TG_FAIL;
		return tg_expect(t, rb, tg_tag(t, 0xb), 64, tg_seed(t, 0xb),
				 "tag B");
	}
	if (tg_sync(t))
		return TG_FAIL;
	sa = tg_send(t, t->c.ep, tg_tag(t, 0xa), 64, tg_seed(t, 0xa));
	sb = tg_send(t, t->c.ep, tg_tag(t, 0xb), 64, tg_seed(t, 0xb));
	if (!sa || !sb || tg_wait_send(t, sa, "send A"))
		return TG_FAIL;
	return tg_wait_send(t, sb, "send B");
}

/* ignore = 0xff matches 0x12xx, not 0x1300; the entry reports the real tag. */
static int tg_ignore_bits(struct tg *t)
{
	uint64_t wild = tg_tag(t, 0x1200), exact = tg_tag(t, 0x1300);
	uint64_t sent = tg_tag(t, 0x12ab);
	struct ft_op *rw, *rx, *s1, *s2;

	if (tg_server(t)) {
		rw = tg_recv(t, FI_ADDR_UNSPEC, wild, 0xff, 64);
		rx = tg_recv(t, FI_ADDR_UNSPEC, exact, 0, 64);
		if (!rw || !rx || tg_sync(t))
			return TG_FAIL;
		if (tg_expect(t, rx, exact, 64, tg_seed(t, 1),
			      "exact receive (the wildcard must not take it)"))
			return TG_FAIL;
		return tg_expect(t, rw, sent, 64, tg_seed(t, 2),
				 "wildcard receive");
	}
	if (tg_sync(t))
		return TG_FAIL;
	s1 = tg_send(t, t->c.ep, exact, 64, tg_seed(t, 1));
	s2 = tg_send(t, t->c.ep, sent, 64, tg_seed(t, 2));
	if (!s1 || !s2 || tg_wait_send(t, s1, "send 0x1300"))
		return TG_FAIL;
	return tg_wait_send(t, s2, "send 0x12ab");
}

/* A non-matching message waits as unexpected; the posted one stays posted. */
static int tg_unmatched_waits(struct tg *t)
{
	uint64_t ta = tg_tag(t, 0xa), tb = tg_tag(t, 0xb);
	struct ft_op *ra, *rb, *sa, *sb;

	if (tg_server(t)) {
		ra = tg_recv(t, FI_ADDR_UNSPEC, ta, 0, 128);
		if (!ra || tg_sync(t))
			return TG_FAIL;
		if (tg_expect(t, ra, ta, 128, tg_seed(t, 0xa), "tag A receive"))
			return TG_FAIL;
		rb = tg_recv(t, FI_ADDR_UNSPEC, tb, 0, 128);
		if (!rb)
			return TG_FAIL;
		return tg_expect(t, rb, tb, 128, tg_seed(t, 0xb),
				 "tag B receive posted late");
	}
	if (tg_sync(t))
		return TG_FAIL;
	sb = tg_send(t, t->c.ep, tb, 128, tg_seed(t, 0xb));
	if (!sb || tg_wait_send(t, sb, "send B"))
		return TG_FAIL;
	sa = tg_send(t, t->c.ep, ta, 128, tg_seed(t, 0xa));
	return sa ? tg_wait_send(t, sa, "send A") : TG_FAIL;
}

/* FI_ADDR_UNSPEC receives take messages from both client endpoints. */
static int tg_any_source(struct tg *t)
{
	uint64_t tag = tg_tag(t, 1);
	struct ft_op *r[2], *s1, *s2;
	bool got[2] = { false, false };
	int i, k;

	if (tg_server(t)) {
		r[0] = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		r[1] = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!r[0] || !r[1] || tg_sync(t))
			return TG_FAIL;
		for (i = 0; i < 2; i++) {
			if (tg_wait(t, r[i], "receive"))
				return TG_FAIL;
			if (r[i]->err)
				return tg_fail(t, "receive: %s", r[i]->errstr);
			for (k = 0; k < 2; k++)
				if (r[i]->comp.len == 64 &&
				    ft_check(tg_op_buf(t, r[i]), 64,
					     tg_seed(t, (uint64_t)k)) < 0)
					got[k] = true;
		}
		if (!got[0] || !got[1])
			return tg_fail(t, "missing the message of endpoint %d",
				       got[0] ? 2 : 1);
		return TG_PASS;
	}
	if (tg_sync(t))
		return TG_FAIL;
	s1 = tg_send(t, t->c.ep, tag, 64, tg_seed(t, 0));
	s2 = tg_send(t, t->ep2, tag, 64, tg_seed(t, 1));
	if (!s1 || !s2 || tg_wait_send(t, s1, "send from endpoint 1"))
		return TG_FAIL;
	return tg_wait_send(t, s2, "send from endpoint 2");
}

/*
 * FI_DIRECTED_RECV: a receive for endpoint 2 is posted first, endpoint 1's
 * message arrives first; it must go to the later FI_ADDR_UNSPEC receive.
 */
static int tg_directed(struct tg *t)
{
	uint64_t tag = tg_tag(t, 1);
	struct ft_op *rd, *ru, *s1, *s2;

	if (!(t->caps & FI_DIRECTED_RECV))
		return tg_skip(t, "FI_DIRECTED_RECV not advertised");
	if (tg_server(t)) {
		rd = tg_recv(t, t->peer2, tag, 0, 64);
		ru = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!rd || !ru || tg_sync(t))
			return TG_FAIL;
		if (tg_expect(t, ru, tag, 64, tg_seed(t, 1),
			      "FI_ADDR_UNSPEC receive (endpoint 1's message)"))
			return TG_FAIL;
		return tg_expect(t, rd, tag, 64, tg_seed(t, 2),
				 "directed receive (endpoint 2's message)");
	}
	if (tg_sync(t))
		return TG_FAIL;
	s1 = tg_send(t, t->c.ep, tag, 64, tg_seed(t, 1));
	if (!s1 || tg_wait_send(t, s1, "send from endpoint 1"))
		return TG_FAIL;
	s2 = tg_send(t, t->ep2, tag, 64, tg_seed(t, 2));
	return s2 ? tg_wait_send(t, s2, "send from endpoint 2") : TG_FAIL;
}

/* FI_ORDER_SAS: equal tags match receives in posting order. */
static int tg_order(struct tg *t, bool unexpected, bool mixed)
{
	uint64_t tag = tg_tag(t, 1);
	struct ft_op *op[TG_ORDER_N];
	size_t big = 256u * 1024, len[TG_ORDER_N];
	int i, n = mixed ? 8 : TG_ORDER_N;
	char what[64];

	if (!t->ordered)
		return tg_skip(t, "FI_ORDER_SAS not advertised");
	for (i = 0; i < n; i++)
		len[i] = mixed && (i & 1) ? big : 128;
	if (tg_server(t)) {
		if (unexpected && tg_pull(t))
			return TG_FAIL;
		for (i = 0; i < n; i++) {
			op[i] = tg_recv(t, FI_ADDR_UNSPEC, tag, 0,
					mixed ? big : 128);
			if (!op[i])
				return TG_FAIL;
		}
		if (!unexpected && tg_sync(t))
			return TG_FAIL;
		for (i = 0; i < n; i++) {
			snprintf(what, sizeof(what), "receive %d of %d", i, n);
			if (tg_expect(t, op[i], tag, len[i],
				      tg_seed(t, (uint64_t)i), what))
				return TG_FAIL;
		}
		return TG_PASS;
	}
	if (!unexpected && tg_sync(t))
		return TG_FAIL;
	for (i = 0; i < n; i++) {
		op[i] = tg_send(t, t->c.ep, tag, len[i], tg_seed(t, (uint64_t)i));
		if (!op[i])
			return TG_FAIL;
	}
	if (unexpected && tg_push(t))
		return TG_FAIL;
	for (i = 0; i < n; i++)
		if (tg_wait_send(t, op[i], "send"))
			return TG_FAIL;
	return TG_PASS;
}

static int tg_order_expected(struct tg *t)
{
	return tg_order(t, false, false);
}

static int tg_order_unexpected(struct tg *t)
{
	return tg_order(t, true, false);
}

static int tg_order_mixed(struct tg *t)
{
	return tg_order(t, false, true);
}

/* 100 bytes into 16: FI_ETRUNC with olen 84; the sender succeeds. */
static int tg_trunc(struct tg *t, bool unexpected)
{
	uint64_t tag = tg_tag(t, 1), seed = tg_seed(t, 1);
	struct ft_op *op;
	uint8_t *buf;

	if (tg_server(t)) {
		if (unexpected && tg_pull(t))
			return TG_FAIL;
		op = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 16);
		if (!op || (!unexpected && tg_sync(t)))
			return TG_FAIL;
		if (tg_wait(t, op, "receive"))
			return TG_FAIL;
		buf = tg_op_buf(t, op);
		if (buf[16] != TG_POISON)
			return tg_fail(t, "%s, and wrote past the 16-byte "
				       "buffer", op->err == FI_ETRUNC ?
				       "FI_ETRUNC" : "no FI_ETRUNC");
		if (op->err != FI_ETRUNC)
			return tg_fail(t, "want FI_ETRUNC, got %s (len %zu)",
				       op->err ? op->errstr : "success",
				       op->comp.len);
		if (op->olen != 84)
			return tg_fail(t, "olen %zu, want 84 (len %zu)",
				       op->olen, op->comp.len);
		if (op->comp.tag != tag)
			return tg_fail(t, "tag 0x%" PRIx64 " in the error entry",
				       op->comp.tag);
		return TG_PASS;
	}
	if (!unexpected && tg_sync(t))
		return TG_FAIL;
	op = tg_send(t, t->c.ep, tag, 100, seed);
	if (!op || (unexpected && tg_push(t)))
		return TG_FAIL;
	return tg_wait_send(t, op, "send (truncated at the target)");
}

static int tg_trunc_expected(struct tg *t)
{
	return tg_trunc(t, false);
}

static int tg_trunc_unexpected(struct tg *t)
{
	return tg_trunc(t, true);
}

/* fi_cancel: FI_ECANCELED entry; a later message goes to a new receive. */
static int tg_cancel(struct tg *t)
{
	uint64_t tag = tg_tag(t, 1);
	struct ft_op *rc, *rn, *s;
	uint8_t *buf;
	int ret;

	if (tg_server(t)) {
		rc = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!rc)
			return TG_FAIL;
		ret = fi_cancel(&t->c.ep->fid, rc);
		if (ret)
			return tg_fail(t, "fi_cancel: %s (%d)",
				       fi_strerror(-ret), ret);
		if (tg_wait(t, rc, "cancelled receive"))
			return TG_FAIL;
		if (rc->err != FI_ECANCELED)
			return tg_fail(t, "want FI_ECANCELED, got %s",
				       rc->err ? rc->errstr : "success");
		if (rc->comp.op_context != rc)
			return tg_fail(t, "error entry has the wrong context");
		if (tg_sync(t))
			return TG_FAIL;
		rn = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!rn || tg_expect(t, rn, tag, 64, tg_seed(t, 1),
				     "receive after the cancel"))
			return TG_FAIL;
		buf = tg_op_buf(t, rc);
		if (buf[0] != TG_POISON || buf[63] != TG_POISON)
			return tg_fail(t, "the cancelled buffer was written");
		if (rc->ncomp != 1)
			return tg_fail(t, "%u completions for the cancelled "
				       "receive", rc->ncomp);
		return TG_PASS;
	}
	if (tg_sync(t))
		return TG_FAIL;
	s = tg_send(t, t->c.ep, tag, 64, tg_seed(t, 1));
	return s ? tg_wait_send(t, s, "send") : TG_FAIL;
}

static struct tg *tg_self;

static void tg_mr_comp(struct ft_op *op)
{
	struct tg *t = tg_self;

	if (t->mr_n < 16) {
		t->mr_comp[t->mr_n] = op->comp;
		t->mr_err[t->mr_n] = op->err;
	}
	if (op->comp.flags & FI_MULTI_RECV)
		t->mr_released = true;
	t->mr_n++;
}

static int tg_multi_recv_check(struct tg *t, uint8_t *base)
{
	struct fi_cq_tagged_entry *e;
	uint8_t *end = base, *p;
	bool used[TG_MR_MSGS] = { false };
	int i, k, data = 0, nflag = 0;

	for (i = 0; i < t->mr_n && i < 16; i++) {
		e = &t->mr_comp[i];
		if (t->mr_err[i])
			return tg_fail(t, "completion %d: %s", i,
				       fi_strerror(t->mr_err[i]));
		if (e->flags & FI_MULTI_RECV) {
			nflag++;
			if (i != t->mr_n - 1)
				return tg_fail(t, "FI_MULTI_RECV on completion "
					       "%d of %d", i + 1, t->mr_n);
		}
		if (!e->len)
			continue;	/* a separate release entry */
		data++;
		if ((e->flags & (FI_RECV | FI_MSG)) != (FI_RECV | FI_MSG))
			return tg_fail(t, "flags 0x%" PRIx64 " lack FI_RECV|"
				       "FI_MSG", e->flags);
		p = e->buf;
		if (e->len != TG_MR_LEN)
			return tg_fail(t, "message of %zu bytes", e->len);
		if (p < end || p + e->len > base + TG_MR_BUF)
			return tg_fail(t, "message %d at offset %td overlaps "
				       "or leaves the buffer", i, p - base);
		end = p + e->len;
		for (k = 0; k < TG_MR_MSGS; k++)
			if (!used[k] && ft_check(p, TG_MR_LEN,
						 tg_seed(t, (uint64_t)k)) < 0)
				break;
		if (k == TG_MR_MSGS)
			return tg_fail(t, "message %d: unknown content", i);
		if (t->ordered && k != data - 1)
			return tg_fail(t, "message %d holds message %d "
				       "(FI_ORDER_SAS)", data - 1, k);
		used[k] = true;
	}
	if (data != TG_MR_MSGS)
		return tg_fail(t, "%d messages, want %d", data, TG_MR_MSGS);
	if (nflag != 1)
		return tg_fail(t, "FI_MULTI_RECV seen %d times, want once",
			       nflag);
	return TG_PASS;
}

/*
 * FI_MULTI_RECV: 4 * 800 bytes into 4096 with FI_OPT_MIN_MULTI_RECV 1024;
 * the buffer is released (flag on the last completion) and a 5th message
 * goes to the next posted receive.
 */
static int tg_multi_recv(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	struct fi_msg msg = { 0 };
	struct iovec iov;
	struct ft_op *rm, *rn, *s[TG_MR_MSGS + 1];
	uint64_t deadline;
	uint8_t *buf;
	ssize_t ret;
	int i, n;

	if ((t->caps & (FI_MULTI_RECV | FI_MSG)) != (FI_MULTI_RECV | FI_MSG))
		return tg_skip(t, "FI_MULTI_RECV not advertised");
	if (tg_server(t)) {
		buf = tg_rbuf(t, TG_MR_BUF);
		rm = buf ? tg_op(t, c->ep, buf, TG_MR_BUF) : NULL;
		if (!rm)
			return tg_fail(t, "out of test buffers");
		rm->on_comp = tg_mr_comp;
		t->mr_n = 0;
		t->mr_released = false;
		iov.iov_base = buf;
		iov.iov_len = TG_MR_BUF;
		msg.msg_iov = &iov;
		msg.desc = &t->rdesc;
		msg.iov_count = 1;
		msg.addr = FI_ADDR_UNSPEC;
		msg.context = rm;
		ret = FT_POST(c, fi_recvmsg(c->ep, &msg, FI_MULTI_RECV));
		if (ret)
			return tg_fail(t, "fi_recvmsg(FI_MULTI_RECV): %s",
				       fi_strerror((int)-ret));
		if (tg_sync(t))
			return TG_FAIL;
		deadline = ft_deadline(c);
		while (!t->mr_released && t->mr_n < 16) {
			if (ft_progress(c) < 0 || ft_now_ns() > deadline)
				break;
		}
		n = t->mr_n;
		if (tg_sync(t) || ft_spin(c, TG_SPIN_MS))
			return TG_FAIL;
		if (t->mr_n != n)
			return tg_fail(t, "completions after FI_MULTI_RECV");
		if (tg_multi_recv_check(t, buf))
			return TG_FAIL;
		/* The released buffer must not take the next message. */
		buf = tg_rbuf(t, TG_MR_LEN);
		rn = buf ? tg_op(t, c->ep, buf, TG_MR_LEN) : NULL;
		if (!rn)
			return tg_fail(t, "out of test buffers");
		ret = FT_POST(c, fi_recv(c->ep, buf, TG_MR_LEN, t->rdesc,
					 FI_ADDR_UNSPEC, rn));
		if (ret)
			return tg_fail(t, "fi_recv: %s", fi_strerror((int)-ret));
		if (tg_sync(t) || tg_wait(t, rn, "receive after release"))
			return TG_FAIL;
		if (rn->err)
			return tg_fail(t, "receive after release: %s",
				       rn->errstr);
		if (rn->comp.len != TG_MR_LEN ||
		    ft_check(buf, TG_MR_LEN, tg_seed(t, TG_MR_MSGS)) >= 0)
			return tg_fail(t, "5th message not in the new receive");
		if (t->mr_n != n)
			return tg_fail(t, "the released buffer took the 5th "
				       "message");
		return TG_PASS;
	}
	if (tg_sync(t))
		return TG_FAIL;
	for (i = 0; i <= TG_MR_MSGS; i++) {
		if (i == TG_MR_MSGS && tg_sync(t))	/* server checked */
			return TG_FAIL;
		if (i == TG_MR_MSGS && tg_sync(t))	/* new receive posted */
			return TG_FAIL;
		buf = tg_sbuf(t, TG_MR_LEN);
		s[i] = buf ? tg_op(t, c->ep, buf, TG_MR_LEN) : NULL;
		if (!s[i])
			return tg_fail(t, "out of test buffers");
		ft_fill(buf, TG_MR_LEN, tg_seed(t, (uint64_t)i));
		ret = FT_POST(c, fi_send(c->ep, buf, TG_MR_LEN, t->sdesc,
					 c->peer, s[i]));
		if (ret)
			return tg_fail(t, "fi_send: %s", fi_strerror((int)-ret));
	}
	for (i = 0; i <= TG_MR_MSGS; i++) {
		if (tg_wait(t, s[i], "send"))
			return TG_FAIL;
		if (s[i]->err)
			return tg_fail(t, "send: %s", s[i]->errstr);
	}
	return TG_PASS;
}

/* fi_tsenddata: FI_REMOTE_CQ_DATA and the data in the receive entry. */
static int tg_cq_data(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	uint64_t tag = tg_tag(t, 1), mask, data;
	struct ft_op *op;
	uint8_t *buf;
	ssize_t ret;

	if (!t->cq_data_size)
		return tg_skip(t, "cq_data_size is 0");
	mask = t->cq_data_size >= 8 ? ~0ull :
	       (1ull << (8 * t->cq_data_size)) - 1;
	data = TG_CQ_DATA & mask;
	if (tg_server(t)) {
		op = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!op || tg_sync(t) ||
		    tg_expect(t, op, tag, 64, tg_seed(t, 1), "receive"))
			return TG_FAIL;
		if (!(op->comp.flags & FI_REMOTE_CQ_DATA))
			return tg_fail(t, "no FI_REMOTE_CQ_DATA flag");
		if (op->comp.data != data)
			return tg_fail(t, "data 0x%" PRIx64 ", want 0x%" PRIx64,
				       op->comp.data, data);
		return TG_PASS;
	}
	if (tg_sync(t))
		return TG_FAIL;
	buf = tg_sbuf(t, 64);
	op = buf ? tg_op(t, c->ep, buf, 64) : NULL;
	if (!op)
		return tg_fail(t, "out of test buffers");
	ft_fill(buf, 64, tg_seed(t, 1));
	ret = FT_POST(c, fi_tsenddata(c->ep, buf, 64, t->sdesc, data, c->peer,
				      tag, op));
	if (ret)
		return tg_fail(t, "fi_tsenddata: %s", fi_strerror((int)-ret));
	return tg_wait_send(t, op, "send");
}

/* fi_tinject: no completion, the buffer is free on return. */
static int tg_inject(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	uint64_t tag = tg_tag(t, 1), stray;
	size_t len = t->inject_size < 64 ? t->inject_size : 64;
	struct ft_op *op;
	uint8_t *buf;
	ssize_t ret;

	if (len < 8)
		return tg_skip(t, "inject_size below 8");
	if (tg_server(t)) {
		op = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 64);
		if (!op || tg_sync(t))
			return TG_FAIL;
		return tg_expect(t, op, tag, len, tg_seed(t, 1), "receive");
	}
	if (tg_sync(t))
		return TG_FAIL;
	buf = tg_sbuf(t, len);
	if (!buf)
		return tg_fail(t, "out of test buffers");
	ft_fill(buf, len, tg_seed(t, 1));
	stray = c->stray;
	ret = FT_POST(c, fi_tinject(c->ep, buf, len, c->peer, tag));
	if (ret)
		return tg_fail(t, "fi_tinject: %s", fi_strerror((int)-ret));
	memset(buf, 0x5a, len);		/* ours again: must not be sent */
	if (ft_spin(c, TG_SPIN_MS))
		return tg_fail(t, "progress failed");
	if (c->stray != stray)
		return tg_fail(t, "fi_tinject generated a completion");
	return TG_PASS;
}

/* fi_tsendmsg with a 2-entry iov and FI_TRANSMIT_COMPLETE. */
static int tg_sendmsg_iov(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	uint64_t tag = tg_tag(t, 1);
	struct fi_msg_tagged msg = { 0 };
	struct iovec iov[2];
	void *desc[2] = { t->sdesc, t->sdesc };
	struct ft_op *op;
	uint8_t *buf, tmp[300];
	ssize_t ret;

	if (t->iov_limit < 2)
		return tg_skip(t, "iov_limit below 2");
	if (tg_server(t)) {
		op = tg_recv(t, FI_ADDR_UNSPEC, tag, 0, 300);
		if (!op || tg_sync(t))
			return TG_FAIL;
		return tg_expect(t, op, tag, 300, tg_seed(t, 1), "receive");
	}
	if (tg_sync(t))
		return TG_FAIL;
	/* 100 + 200 bytes, apart in memory, carrying one 300-byte pattern. */
	ft_fill(tmp, sizeof(tmp), tg_seed(t, 1));
	buf = tg_sbuf(t, 1024);
	op = buf ? tg_op(t, c->ep, buf, 300) : NULL;
	if (!op)
		return tg_fail(t, "out of test buffers");
	memcpy(buf + 512, tmp, 100);
	memcpy(buf, tmp + 100, 200);
	iov[0].iov_base = buf + 512;
	iov[0].iov_len = 100;
	iov[1].iov_base = buf;
	iov[1].iov_len = 200;
	msg.msg_iov = iov;
	msg.desc = desc;
	msg.iov_count = 2;
	msg.addr = c->peer;
	msg.tag = tag;
	msg.context = op;
	ret = FT_POST(c, fi_tsendmsg(c->ep, &msg, FI_COMPLETION |
				     FI_TRANSMIT_COMPLETE));
	if (ret)
		return tg_fail(t, "fi_tsendmsg: %s", fi_strerror((int)-ret));
	return tg_wait_send(t, op, "send");
}

static const struct tg_case tg_cases[] = {
	{ "exact_expected", tg_exact_expected,
	  "exact tag, receive posted first" },
	{ "exact_unexpected", tg_exact_unexpected,
	  "exact tag, message arrives first" },
	{ "zero_length", tg_zero_length, "0-byte message" },
	{ "large_expected", tg_large_expected, "1 MiB, receive posted first" },
	{ "large_unexpected", tg_large_unexpected,
	  "1 MiB, message arrives first" },
	{ "tag_selects", tg_tag_selects, "two tags reach their own receives" },
	{ "ignore_bits", tg_ignore_bits,
	  "ignore mask matches, entry reports the sent tag" },
	{ "unmatched_waits", tg_unmatched_waits,
	  "unmatched message queues; posted receive stays" },
	{ "any_source", tg_any_source, "FI_ADDR_UNSPEC from two endpoints" },
	{ "directed_recv", tg_directed, "FI_DIRECTED_RECV picks the source" },
	{ "order_expected", tg_order_expected,
	  "equal tags match in order (FI_ORDER_SAS)" },
	{ "order_unexpected", tg_order_unexpected,
	  "same, messages first (FI_ORDER_SAS)" },
	{ "order_mixed_sizes", tg_order_mixed,
	  "128 B / 256 KiB interleaved (FI_ORDER_SAS)" },
	{ "cancel", tg_cancel, "fi_cancel gives FI_ECANCELED" },
	{ "multi_recv", tg_multi_recv, "FI_MULTI_RECV buffer use and release" },
	{ "remote_cq_data", tg_cq_data, "fi_tsenddata, FI_REMOTE_CQ_DATA" },
	{ "tinject", tg_inject, "fi_tinject: no completion, buffer reusable" },
	{ "sendmsg_iov", tg_sendmsg_iov,
	  "fi_tsendmsg, 2-entry iov, FI_TRANSMIT_COMPLETE" },
	/* Last: some providers break the connection after a truncation. */
	{ "trunc_unexpected", tg_trunc_unexpected,
	  "FI_ETRUNC, olen, message arrives first" },
	{ "trunc_expected", tg_trunc_expected,
	  "FI_ETRUNC, olen, receive posted first" },
};

#define TG_NCASES ((int)(sizeof(tg_cases) / sizeof(tg_cases[0])))

/* ------------------------------------------------------------------ */
/* driver */

/* Cancel what a case left posted; keep the pool if something never ends. */
static void tg_pool_finish(struct tg *t)
{
	struct tg_pool *p = t->pool;
	uint64_t end;
	bool pending = false;
	int i;

	for (i = 0; i < p->n; i++)
		if (!p->op[i].done)
			fi_cancel(&p->ep[i]->fid, &p->op[i]);
	end = ft_now_ns() + 500000000ull;
	do {
		pending = false;
		for (i = 0; i < p->n; i++)
			pending |= !p->op[i].done;
		if (!pending || ft_progress(&t->c) < 0)
			break;
	} while (ft_now_ns() < end);
	if (pending) {
		/* A late completion must not land in a reused op: leak it. */
		t->pool = calloc(1, sizeof(*t->pool));
		return;
	}
	memset(p, 0, sizeof(*p));
}

static bool tg_in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	const char *p = list;

	while (p && (p = strstr(p, name))) {
		if ((p == list || p[-1] == ',') && (!p[n] || p[n] == ','))
			return true;
		p += n;
	}
	return false;
}

static int tg_run_case(struct tg *t, int i, int *counts)
{
	static const char *const names[] = { "PASS", "FAIL", "SKIP", "XFAIL" };
	bool xfail = tg_in_list(t->xfail, tg_cases[i].name);
	char peer_reason[sizeof(t->reason)];
	uint64_t theirs, v;
	int res;

	t->idx = i;
	t->reason[0] = '\0';
	t->peer_ended = false;
	t->scur = t->rcur = 0;
	if (!t->pool)
		return -FI_ENOMEM;
	res = tg_sync(t) ? TG_FAIL : tg_cases[i].run(t);
	/* Tell the peer first: it may be waiting on us. */
	if (ft_oob_send_u64(&t->c, TG_END | (uint64_t)res))
		return -FI_EIO;
	tg_pool_finish(t);
	theirs = t->peer_res;
	while (!t->peer_ended) {
		if (ft_oob_recv_u64(&t->c, &v))
			return -FI_EIO;
		if (TG_IS_END(v)) {
			t->peer_ended = true;
			theirs = v & 0xff;
		} else if (v != TG_SYNC) {
			return -FI_EIO;
		}
	}
	/* Each side's verdict and reason; FAIL beats SKIP beats PASS. */
	if (ft_oob_send(&t->c, t->reason, sizeof(t->reason)) ||
	    ft_oob_recv(&t->c, peer_reason, sizeof(peer_reason)))
		return -FI_EIO;
	peer_reason[sizeof(peer_reason) - 1] = '\0';
	if (theirs == TG_FAIL || (theirs == TG_SKIP && res == TG_PASS))
		res = (int)theirs;
	if (res == TG_FAIL && xfail)
		res = TG_XFAIL;
	counts[res]++;
	printf("%-18s %s", tg_cases[i].name, res == TG_PASS && xfail ?
	       "PASS (XPASS: listed in -x)" : names[res]);
	if (t->reason[0] && res != TG_PASS)
		printf("  %s: %s", tg_server(t) ? "server" : "client",
		       t->reason);
	if (peer_reason[0] && (int)theirs != TG_PASS)
		printf("  %s: %s", tg_server(t) ? "client" : "server",
		       peer_reason);
	printf("\n");
	return 0;
}

/* Both sides use what both have. */
static int tg_negotiate(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	uint64_t v[5], w[5];
	int i, ret;

	v[0] = c->caps;
	v[1] = c->info->domain_attr->cq_data_size;
	v[2] = c->info->tx_attr->inject_size;
	v[3] = c->info->tx_attr->iov_limit < c->info->rx_attr->iov_limit ?
	       c->info->tx_attr->iov_limit : c->info->rx_attr->iov_limit;
	v[4] = c->ordered;
	for (i = 0; i < 5; i++) {
		ret = ft_oob_swap(c, v[i], &w[i]);
		if (ret)
			return ret;
	}
	t->caps = v[0] & w[0];
	t->cq_data_size = v[1] < w[1] ? v[1] : w[1];
	t->inject_size = v[2] < w[2] ? v[2] : w[2];
	t->iov_limit = v[3] < w[3] ? v[3] : w[3];
	t->ordered = v[4] && w[4];
	return 0;
}

static int tg_setup(struct tg *t)
{
	struct ft_ctx *c = &t->c;
	int ret;

	c->min_multi_recv = TG_MR_MIN;
	ret = ft_oob_start(c);
	if (!ret)
		ret = ft_getinfo(c, FI_TAGGED, FI_MSG | FI_DIRECTED_RECV |
				 FI_MULTI_RECV);
	if (!ret)
		ret = ft_open(c);
	if (!ret && ft_is_client(c))
		ret = ft_ep_open(c, &t->ep2, &t->cq2);
	if (!ret)
		ret = ft_oob_xchg_names(c);
	if (ret)
		return ret;
	/* The server also learns the client's second endpoint. */
	ret = ft_is_client(c) ? ft_oob_send_name(c, t->ep2) :
				ft_oob_recv_name(c, &t->peer2);
	if (!ret)
		ret = tg_negotiate(t);
	if (ret)
		return ret;
	t->sbuf = ft_alloc(TG_BUF);
	t->rbuf = ft_alloc(TG_BUF);
	t->pool = calloc(1, sizeof(*t->pool));
	if (!t->sbuf || !t->rbuf || !t->pool)
		return -FI_ENOMEM;
	ret = ft_mr_reg(c, t->sbuf, TG_BUF, &t->smr, &t->sdesc);
	return ret ? ret : ft_mr_reg(c, t->rbuf, TG_BUF, &t->rmr, &t->rdesc);
}

static void tg_usage(void)
{
	int i;

	fprintf(stderr,
		"Usage: ft_tagged [options]          (server: receives)\n"
		"       ft_tagged [options] HOST     (client: sends)\n"
		"Tagged-matching functional matrix; PASS/FAIL/SKIP per case.\n"
		"  -c NAME     run only this case (both sides must agree)\n"
		"  -x A,B      cases known to fail on this provider: XFAIL, not\n"
		"              FAIL (they still run and report their reason)\n"
		"  -l          list the cases and exit\n");
	ft_usage_common();
	fprintf(stderr, "Cases:\n");
	for (i = 0; i < TG_NCASES; i++)
		fprintf(stderr, "  %-18s %s\n", tg_cases[i].name,
			tg_cases[i].what);
}

static int tg_opt(void *arg, int opt, const char *optarg)
{
	struct tg *t = arg;
	int i;

	switch (opt) {
	case 'c':
		for (i = 0; i < TG_NCASES; i++)
			if (!strcmp(optarg, tg_cases[i].name))
				break;
		if (i == TG_NCASES) {
			fprintf(stderr, "ft_tagged: no case '%s' (-l lists "
				"them)\n", optarg);
			return -1;
		}
		t->only = optarg;
		return 0;
	case 'l':
		t->list = true;
		return 0;
	case 'x':
		t->xfail = optarg;
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct tg *t = calloc(1, sizeof(*t));
	int counts[4] = { 0 }, i, ret;

	if (!t)
		return EXIT_FAILURE;
	tg_self = t;
	ft_ctx_init(&t->c);
	t->c.abort_check = tg_abort_check;
	ret = ft_parse_args(&t->c.opts, argc, argv, "c:lx:", tg_opt, t);
	if (ret || t->list) {
		if (t->list)
			for (i = 0; i < TG_NCASES; i++)
				printf("%s\n", tg_cases[i].name);
		else
			tg_usage();
		free(t);
		return ret < 0 ? EXIT_FAILURE : EXIT_SUCCESS;
	}
	if (t->c.opts.ep_type != FI_EP_RDM) {
		fprintf(stderr, "ft_tagged: needs -e rdm\n");
		free(t);
		return EXIT_FAILURE;
	}
	ret = tg_setup(t);
	if (!ret) {
		printf("# ft_tagged: provider %s, fabric %s, %s; "
		       "directed_recv %s, multi_recv %s, SAS %s, cq_data %"
		       PRIu64 " B, inject %" PRIu64 " B\n",
		       t->c.info->fabric_attr->prov_name,
		       t->c.info->fabric_attr->name,
		       tg_server(t) ? "server (receiver)" : "client (sender)",
		       t->caps & FI_DIRECTED_RECV ? "yes" : "no",
		       t->caps & FI_MULTI_RECV ? "yes" : "no",
		       t->ordered ? "yes" : "no", t->cq_data_size,
		       t->inject_size);
		for (i = 0; i < TG_NCASES && !ret; i++)
			if (!t->only || !strcmp(t->only, tg_cases[i].name))
				ret = tg_run_case(t, i, counts);
		if (!ret)
			ret = ft_oob_sync(&t->c);
		printf("# %d passed, %d failed, %d skipped, %d known failures "
		       "(-x)\n", counts[TG_PASS], counts[TG_FAIL],
		       counts[TG_SKIP], counts[TG_XFAIL]);
	}
	ft_mr_close(t->smr);
	ft_mr_close(t->rmr);
	ft_close(&t->c);
	free(t->sbuf);
	free(t->rbuf);
	free(t->pool);
	free(t);
	if (ret)
		fprintf(stderr, "ft_tagged: setup or out-of-band failure\n");
	return ret || counts[TG_FAIL] ? EXIT_FAILURE : EXIT_SUCCESS;
}
