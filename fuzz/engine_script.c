/* The engine script interpreter (engine_script.h). */
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"
#include "uet/fep.h"

#include "../uet/fixtures/alloc_fail.h"
#include "../uet/fixtures/harness.h"
#include "../uet/ses/ses.h"
#include "engine_script.h"

#define EFZ_OPS_MAX	256
#define EFZ_TARGET	1
#define EFZ_PEER	0

struct efz_opslot {
	unsigned completions;
};

/* The target's allocator: EFZ_FAIL arms it. */
static struct uet_alloc_fail efz_alloc;

static struct {
	struct uet_harness h;
	uint8_t buf[EFZ_SLOTS][EFZ_SLOT_SIZE];
	struct efz_opslot ops[EFZ_OPS_MAX];
	unsigned nops;
	int newest[EFZ_SLOTS];		/* op index, or -1 */
	int mr_ctx;			/* context of remote completions */
	struct efz_result *res;
	bool stray;			/* a completion for nothing we posted */
} S;

static void efz_complete(struct uet_harness *h, unsigned node,
			 const struct uet_completion *c)
{
	(void)h;
	if (node != EFZ_TARGET || c->context == &S.mr_ctx)
		return;
	if ((struct efz_opslot *)c->context < S.ops ||
	    (struct efz_opslot *)c->context >= S.ops + S.nops) {
		S.stray = true;
		return;
	}
	((struct efz_opslot *)c->context)->completions++;
	S.res->ops_completed++;
	if (c->err)
		S.res->ops_failed++;
}

static void efz_config(struct uet_fep_config *c, unsigned i)
{
	struct uet_addr a = uet_harness_addr(i);

	uet_fep_config_default(c);
	c->job_id = 0x42;
	c->pid_on_fep = uet_addr_pid(&a);
	c->resource_index = uet_addr_ri(&a);
	/* small and quick, so a script reaches limits and timeouts */
	c->mtu = 1500;
	c->window = 16;
	c->tx_depth = 64;
	c->rx_depth = 64;
	c->unexp_max = 256u << 10;
	c->pdc_max = 16;
	c->rndv_threshold = 16384;
	c->rto_min = 1 * UET_MSEC;
	c->rto_max = 50 * UET_MSEC;
	c->max_retx = 5;
	c->pdc_idle = 20 * UET_MSEC;
}

int efz_open(bool peer_alive, struct efz_result *res)
{
	struct uet_fep_config cfg[2];

	memset(&S, 0, sizeof(S));
	memset(res, 0, sizeof(*res));
	S.res = res;
	for (unsigned i = 0; i < EFZ_SLOTS; i++)
		S.newest[i] = -1;
	efz_config(&cfg[0], 0);
	efz_config(&cfg[1], 1);
	uet_alloc_fail_init(&efz_alloc, -1);
	cfg[1].alloc = &efz_alloc.a;
	if (uet_harness_init_each(&S.h, 2, cfg, NULL, 1))
		return -1;
	S.h.on_complete = efz_complete;
	if (!peer_alive)
		uet_harness_kill(&S.h, EFZ_PEER);
	return 0;
}

static uint32_t rd(const uint8_t **p, const uint8_t *end, unsigned n,
		   bool *ok)
{
	uint32_t v = 0;

	if ((size_t)(end - *p) < n) {
		*ok = false;
		return 0;
	}
	for (unsigned i = 0; i < n; i++)
		v |= (uint32_t)(*p)[i] << (8 * i);
	*p += n;
	return v;
}

/* Timeouts due now fire, then everything before now + ns, and the clock
 * stops at now + ns with what is due then still pending: a packet
 * injected next arrives before those timeouts, as in a harness step,
 * which hands over packets before it runs timeouts (so a recording
 * replays in the order it happened). */
static void efz_advance(uet_time ns)
{
	struct uet_fep *fep = S.h.node[EFZ_TARGET].fep;
	uet_time until = S.h.now + ns;

	if (uet_fep_next_timeout(fep) <= S.h.now)
		uet_fep_handle_timeout(fep, S.h.now);
	uet_harness_flush(&S.h);
	if (!ns)
		return;
	uet_harness_run(&S.h, NULL, NULL, until - 1);
	if (S.h.now < until)
		S.h.now = until;	/* quiet: the clock still moves */
}

static void efz_inject(uint8_t flags, const uint8_t *pkt, size_t len)
{
	struct uet_pkt_info pi = { 0 };

	pi.src = uet_harness_addr(EFZ_PEER);
	if (!(flags & 0x08))
		pi.src.port = (uint16_t)(50000 + (flags >> 4 & 7));
	pi.dst = uet_harness_addr(EFZ_TARGET);
	pi.home = flags & 0x08;
	pi.entropy = pi.src.port;
	pi.ecn = flags & 3;
	pi.trimmed = flags & 0x04;
	pi.ts = S.h.now;
	S.res->packets_in++;
	if (!uet_harness_inject(&S.h, EFZ_TARGET, &pi, pkt, len))
		S.res->packets_accepted++;
	/* No flush: what the target answers leaves at the next ADVANCE,
	 * as the packets of one harness step are answered together. */
}

static void efz_post(uint8_t type, uint8_t slot, uint16_t len, uint8_t tag,
		     uint16_t raddr)
{
	struct uet_fep *fep = S.h.node[EFZ_TARGET].fep;
	struct uet_iov iov;
	struct uet_op op;
	struct efz_opslot *o;

	if (S.nops >= EFZ_OPS_MAX)
		return;
	slot %= EFZ_SLOTS;
	type = (uint8_t)(UET_OP_SEND + type % 6);	/* send .. read */
	o = &S.ops[S.nops];
	memset(&op, 0, sizeof(op));
	iov.base = S.buf[slot];
	iov.len = len;
	op.type = type;
	op.flags = UET_OPF_COMPLETION;
	op.context = o;
	op.peer = uet_harness_addr(EFZ_PEER);
	op.iov = &iov;
	op.iov_count = 1;
	op.tag = tag;
	op.rkey = 0x100 + tag;
	op.raddr = raddr;
	/* Counted first: a receive that finds its message waiting
	 * completes inside the post. */
	S.nops++;
	if (uet_fep_post(fep, &op, S.h.now)) {
		S.nops--;		/* refused: owes no completion */
		if (o->completions)
			S.stray = true;
		return;
	}
	S.newest[slot] = (int)(S.nops - 1);
	S.res->ops_posted++;
	uet_harness_flush(&S.h);
}

static void efz_cancel(uint8_t slot)
{
	int k = S.newest[slot % EFZ_SLOTS];

	if (k >= 0)
		(void)uet_fep_cancel(S.h.node[EFZ_TARGET].fep, &S.ops[k]);
	uet_harness_flush(&S.h);
}

static void efz_mr(uint8_t slot, uint16_t key)
{
	struct uet_mr_attr a = {
		.base = S.buf[slot % EFZ_SLOTS], .len = EFZ_SLOT_SIZE,
		.key = key, .access = UET_MR_REMOTE_READ | UET_MR_REMOTE_WRITE,
		.context = &S.mr_ctx,
	};

	(void)uet_fep_mr_reg(S.h.node[EFZ_TARGET].fep, &a);
}

/* The records, until the end or a truncated one. */
static void efz_interpret(const uint8_t *p, const uint8_t *end)
{
	bool ok = true;

	while (ok && p < end && !S.h.stuck) {
		uint8_t op = *p++;

		switch (op) {
		case EFZ_INJECT: {
			uint8_t flags = (uint8_t)rd(&p, end, 1, &ok);
			uint32_t len = rd(&p, end, 2, &ok);

			if (!ok || len > (size_t)(end - p) ||
			    len > UET_HARNESS_PKT_MAX)
				return;
			efz_inject(flags, p, len);
			p += len;
			break;
		}
		case EFZ_ADVANCE: {
			uint32_t ns = rd(&p, end, 4, &ok);

			if (ok)
				efz_advance(ns);
			break;
		}
		case EFZ_POST: {
			uint8_t type = (uint8_t)rd(&p, end, 1, &ok);
			uint8_t slot = (uint8_t)rd(&p, end, 1, &ok);
			uint16_t len = (uint16_t)rd(&p, end, 2, &ok);
			uint8_t tag = (uint8_t)rd(&p, end, 1, &ok);
			uint16_t raddr = (uint16_t)rd(&p, end, 2, &ok);

			if (ok)
				efz_post(type, slot, len, tag, raddr);
			break;
		}
		case EFZ_CANCEL: {
			uint8_t slot = (uint8_t)rd(&p, end, 1, &ok);

			if (ok)
				efz_cancel(slot);
			break;
		}
		case EFZ_MR: {
			uint8_t slot = (uint8_t)rd(&p, end, 1, &ok);
			uint16_t key = (uint16_t)rd(&p, end, 2, &ok);

			if (ok)
				efz_mr(slot, key);
			break;
		}
		case EFZ_RUN:
			uet_harness_run(&S.h, NULL, NULL, S.h.now + UET_SEC);
			break;
		case EFZ_FAIL: {
			uint16_t n = (uint16_t)rd(&p, end, 2, &ok);

			if (ok)
				uet_alloc_fail_init(&efz_alloc, n);
			break;
		}
		default:
			break;
		}
	}
}

/* What must hold once the peer has gone quiet for a minute. */
static const char *efz_check(void)
{
	if (S.h.stuck)
		return "the engine made no progress with time standing still";
	if (S.stray)
		return "a completion for an operation never posted";
	for (unsigned k = 0; k < S.nops; k++) {
		if (S.ops[k].completions > 1)
			return "an operation completed twice";
		if (!S.ops[k].completions)
			return "an operation never completed";
	}
	return NULL;
}

void efz_exec(const uint8_t *rec, size_t len)
{
	efz_interpret(rec, rec + len);
}

void efz_close(void)
{
	uet_harness_fini(&S.h);
}

struct uet_harness *efz_harness(void)
{
	return &S.h;
}

int efz_run(const uint8_t *data, size_t size, struct efz_result *res)
{
	if (efz_open(false, res))
		return -1;
	efz_interpret(data, data + size);
	if (!S.h.stuck) {
		uet_fep_flush(S.h.node[EFZ_TARGET].fep);
		uet_harness_run(&S.h, NULL, NULL, S.h.now + 60 * UET_SEC);
	}
	res->violation = efz_check();
	efz_close();
	return res->violation ? -1 : 0;
}
