/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ft_deadpeer: a peer dies in the middle of a stream.
 *
 * Three processes: A streams messages to B and to C; the driver
 * (run-fault.sh) kills C with SIGKILL once C has received some. Then:
 *  - A's sends to C still pending complete with error completions
 *    (fi_cq_readerr: err != 0, prov_errno reported), in bounded time;
 *  - a send posted to C after that failure completes in error too (or
 *    fi_send refuses it), it does not hang and does not succeed;
 *  - A's stream to B goes on and completes: B receives every message,
 *    verified, exactly once, nothing extra.
 *
 *   ft_deadpeer -p PROV -k ID                sink (B: ID 1, C: ID 2),
 *                                            prints "ft_deadpeer: sink ID
 *                                            127.0.0.1 PORT", then "rx N"
 *   ft_deadpeer -p PROV -b IP:PORT -c IP:PORT   sender A
 *
 * A prints the wall-clock times of C's first and last error completions
 * so that the driver can measure them from the moment of the kill.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"

#define MAGIC_BASE	0x44410000u	/* | stream id */
#define MSG_MAX		(32 * 1024)
#define WINDOW_MAX	64
#define SINK_RECVS	16
#define RX_EVERY	100	/* sink progress lines */
#define GRACE_S		0.5
#define PEER_B		0
#define PEER_C		1

static const size_t sizes[] = { 64, 1000, 4096, 20000 };

struct opts {
	const char *prov;
	int sink_id;			/* -k */
	const char *addr[2];		/* -b, -c */
	unsigned window;
	size_t max_size;		/* -M: cap on message sizes */
	unsigned tail;			/* messages to B after C failed */
	double bound_s;			/* C's errors within this */
	double c_wait_s;		/* longest wait for C to fail */
	int timeout_s;
};

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s -p PROV -k ID | -p PROV -b IP:PORT -c IP:PORT\n"
		"  -w N  sends in flight per peer (default 8)\n"
		"  -M N  messages of at most N bytes (default 20000)\n"
		"  -t N  messages to B after C failed (default 300)\n"
		"  -E S  C's pending sends must fail within S s of the first "
		"error (default 10)\n"
		"  -W S  wait at most S s for C to fail (default 30)\n"
		"  -T S  give up after S seconds (default 90)\n", argv0);
}

static void pause_us(unsigned us)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)us * 1000 };

	nanosleep(&ts, NULL);
}

/* ---- sink (B, C) ---- */

struct sink {
	uint8_t *seen;			/* by seq */
	size_t cap;
	unsigned long got, dup, bad, extra;
	long total;			/* from the LAST message, or -1 */
};

static int sink_note(struct sink *k, uint32_t seq, uint32_t flags)
{
	if (seq >= k->cap) {
		size_t cap = k->cap ? k->cap : 1024;
		uint8_t *n;

		while (cap <= seq)
			cap *= 2;
		n = realloc(k->seen, cap);
		if (!n)
			return -1;
		memset(n + k->cap, 0, cap - k->cap);
		k->seen = n;
		k->cap = cap;
	}
	if (k->seen[seq]) {
		k->dup++;
		return -1;
	}
	if (k->total >= 0 && seq >= (uint32_t)k->total) {
		k->extra++;
		return -1;
	}
	k->seen[seq] = 1;
	k->got++;
	if (flags & FAULT_F_LAST)
		k->total = (long)seq + 1;
	return 0;
}

static int sink(const struct opts *o)
{
	struct fault_ep e;
	struct fault_op ops[SINK_RECVS];
	struct sink k = { .total = -1 };
	uint32_t magic = MAGIC_BASE | (uint32_t)o->sink_id;
	char name[64], why[160];
	double end = fault_now() + o->timeout_s, grace = 0;
	unsigned long next_line = RX_EVERY;
	int ret, rc = 1;

	memset(ops, 0, sizeof(ops));
	if (fault_ep_open(&e, o->prov))
		return 1;
	fault_addr_str(name, sizeof(name), &e.name);
	/* The driver kills C by this pid (it runs under timeout(1)). */
	printf("ft_deadpeer: sink %d %s provider %s pid %ld\n", o->sink_id,
	       name, e.info->fabric_attr->prov_name, (long)getpid());
	fflush(stdout);
	for (int i = 0; i < SINK_RECVS; i++) {
		ops[i].buf = malloc(MSG_MAX);
		if (!ops[i].buf ||
		    fault_post_recv(&e, &ops[i], MSG_MAX, end, NULL, NULL))
			goto out;
	}
	for (;;) {
		ret = fault_progress(&e, NULL, NULL);
		if (ret < 0) {
			fprintf(stderr, "sink %d: cq: %d\n", o->sink_id, ret);
			goto out;
		}
		for (int i = 0; i < SINK_RECVS; i++) {
			struct fault_op *op = &ops[i];
			uint32_t seq, flags;

			if (op->busy)
				continue;
			if (op->err) {
				fprintf(stderr, "sink %d: receive error %d "
					"prov_errno %d %s\n", o->sink_id,
					op->err, op->prov_errno, op->errstr);
				k.bad++;
			} else if (fault_msg_check(op->buf, op->rlen, magic,
						   &seq, &flags, why,
						   sizeof(why))) {
				fprintf(stderr, "sink %d: bad message: %s\n",
					o->sink_id, why);
				k.bad++;
			} else if (sink_note(&k, seq, flags)) {
				fprintf(stderr, "sink %d: seq %u %s\n",
					o->sink_id, seq, k.extra ?
					"after the last" : "twice");
			}
			if (k.got >= next_line) {
				printf("ft_deadpeer: sink %d rx %lu\n",
				       o->sink_id, k.got);
				fflush(stdout);
				next_line += RX_EVERY;
			}
			if (fault_post_recv(&e, op, MSG_MAX, end, NULL, NULL))
				goto out;
		}
		if (k.bad)
			goto out;
		if (!grace && k.total >= 0 && k.got == (unsigned long)k.total)
			grace = fault_now() + GRACE_S;	/* extras? */
		if (grace && fault_now() > grace)
			break;
		if (fault_now() > end) {
			fprintf(stderr, "sink %d: timed out with %lu messages "
				"(total %ld)\n", o->sink_id, k.got, k.total);
			goto out;
		}
	}
	rc = k.dup || k.extra || k.bad ? 1 : 0;
out:
	printf("ft_deadpeer: sink %d received %lu total %ld dup %lu extra "
	       "%lu bad %lu stray %lu\n", o->sink_id, k.got, k.total, k.dup,
	       k.extra, k.bad, fault_stray);
	printf("ft_deadpeer: sink %d %s\n", o->sink_id, rc ? "FAIL" : "PASS");
	fflush(stdout);
	for (int i = 0; i < SINK_RECVS; i++)
		if (ops[i].busy)
			fi_cancel(&e.ep->fid, &ops[i].ctx);
	fault_ep_close(&e);
	for (int i = 0; i < SINK_RECVS; i++)
		free(ops[i].buf);
	free(k.seen);
	return rc;
}

/* ---- sender (A) ---- */

struct stream {
	fi_addr_t fa;
	uint32_t magic;
	struct fault_op ops[WINDOW_MAX];
	uint32_t next_seq;
	unsigned long ok, err, imm_err;
	unsigned long ok_after_err;	/* successes after the first error */
	double last_ok_wall;
	double first_err_wall, last_err_wall;
	double first_err;		/* monotonic */
	int err_code, prov_errno;
	char errstr[160];
};

struct sender {
	const struct opts *o;
	struct fault_ep e;
	struct stream s[2];
	long b_target;			/* -1: keep streaming */
	unsigned c_pending_at_err;
};

/* Account a completed op of stream p. */
static void on_done(struct sender *a, int p, struct fault_op *op)
{
	struct stream *st = &a->s[p];
	double wall = fault_wall() - (fault_now() - op->t_done);

	if (!op->err) {
		st->ok++;
		st->ok_after_err += st->err > 0;
		st->last_ok_wall = wall;
		return;
	}
	if (!st->err) {
		st->first_err = op->t_done;
		st->first_err_wall = wall;
		st->err_code = op->err;
		st->prov_errno = op->prov_errno;
		snprintf(st->errstr, sizeof(st->errstr), "%s", op->errstr);
		if (p == PEER_C) {
			/* How many were still in flight when C failed. */
			a->c_pending_at_err = 1;
			for (unsigned i = 0; i < a->o->window; i++)
				a->c_pending_at_err += st->ops[i].busy;
		}
	}
	st->err++;
	st->last_err_wall = wall;
}

static void on_comp(void *user, struct fid_cq *cq, const struct fault_comp *c)
{
	struct sender *a = user;

	(void)cq;
	for (int p = 0; p < 2; p++) {
		struct fault_op *base = a->s[p].ops;

		if (c->op >= base && c->op < base + WINDOW_MAX) {
			on_done(a, p, c->op);
			return;
		}
	}
}

static unsigned busy_count(const struct sender *a, int p)
{
	unsigned n = 0;

	for (unsigned i = 0; i < a->o->window; i++)
		n += a->s[p].ops[i].busy;
	return n;
}

/* Note an error that fi_send returned at once as C's failure. */
static void imm_error(struct stream *st, int ret)
{
	st->imm_err++;
	if (st->err || st->imm_err > 1)
		return;
	st->first_err = fault_now();
	st->first_err_wall = fault_wall();
	st->last_err_wall = st->first_err_wall;
	st->err_code = -ret;
	snprintf(st->errstr, sizeof(st->errstr), "fi_send: %s",
		 fi_strerror(-ret));
}

/* Post the next message of stream p into op: 0, -FI_ETIMEDOUT, or the
 * error fi_send returned. */
static int post_next(struct sender *a, int p, struct fault_op *op,
		     uint32_t flags, double end)
{
	struct stream *st = &a->s[p];
	uint32_t seq = st->next_seq;
	int ret;

	op->len = sizes[seq % (sizeof(sizes) / sizeof(sizes[0]))];
	if (op->len > a->o->max_size)
		op->len = a->o->max_size;
	op->seq = seq;
	op->peer = p;
	fault_msg_fill(op->buf, op->len, st->magic, seq, flags);
	ret = fault_post_send(&a->e, op, st->fa, end, on_comp, a);
	if (ret != -FI_ETIMEDOUT)
		st->next_seq++;
	return ret;
}

static int sender(const struct opts *o)
{
	struct sender *a = calloc(1, sizeof(*a));
	struct stream *b, *c;
	struct fault_op after = { 0 };
	struct sockaddr_in sin;
	double t0 = fault_now(), end = t0 + o->timeout_s, t_drained = 0;
	double t_after = 0;
	int phase = 1, ret, rc = 1, after_ret = 0;
	const char *why = "setup";

	if (!a)
		return 1;
	a->o = o;
	a->b_target = -1;
	b = &a->s[PEER_B];
	c = &a->s[PEER_C];
	if (fault_ep_open(&a->e, o->prov))
		goto out;
	for (int p = 0; p < 2; p++) {
		if (fault_addr_parse(o->addr[p], &sin) ||
		    fault_av_insert(&a->e, &sin, &a->s[p].fa))
			goto out;
		a->s[p].magic = MAGIC_BASE | (uint32_t)(p + 1);
		for (unsigned i = 0; i < o->window; i++) {
			a->s[p].ops[i].buf = malloc(MSG_MAX);
			if (!a->s[p].ops[i].buf)
				goto out;
		}
	}
	after.buf = malloc(MSG_MAX);
	if (!after.buf)
		goto out;

	for (;;) {
		double now;

		ret = fault_progress(&a->e, on_comp, a);
		if (ret < 0) {
			why = "CQ read failed";
			goto out;
		}
		/* B: always streaming, up to b_target once that is set. */
		for (unsigned i = 0; i < o->window; i++) {
			struct fault_op *op = &b->ops[i];
			uint32_t fl = 0;

			if (op->busy || (a->b_target >= 0 &&
					 b->next_seq >= a->b_target))
				continue;
			if (a->b_target >= 0 && b->next_seq == a->b_target - 1)
				fl = FAULT_F_LAST;
			ret = post_next(a, PEER_B, op, fl, end);
			if (ret) {
				fprintf(stderr, "A: send %u to B: %d (%s)\n",
					b->next_seq, ret, fi_strerror(-ret));
				why = "send to B refused";
				goto out;
			}
		}
		/* C: streaming until it fails (not one more after that: the
		 * window at the first error is what must fail). */
		for (unsigned i = 0; phase == 1 && i < o->window &&
				     !c->err && !c->imm_err; i++) {
			struct fault_op *op = &c->ops[i];

			if (op->busy)
				continue;
			ret = post_next(a, PEER_C, op, 0, end);
			if (ret == -FI_ETIMEDOUT)
				break;
			if (ret)
				imm_error(c, ret);
		}
		now = fault_now();
		switch (phase) {
		case 1:
			if (c->err || c->imm_err) {
				phase = 2;
			} else if (now > t0 + o->c_wait_s) {
				why = "no error from C (was it killed?)";
				goto out;
			}
			break;
		case 2:
			if (!busy_count(a, PEER_C)) {
				/* Every pending send to C completed: one
				 * more, to the peer known dead. */
				t_drained = now;
				after.len = sizes[0];
				fault_msg_fill(after.buf, after.len, c->magic,
					       c->next_seq++, 0);
				t_after = fault_now();
				after_ret = fault_post_send(&a->e, &after, c->fa,
							    end, on_comp, a);
				phase = after_ret ? 4 : 3;
			} else if (now > c->first_err + o->bound_s) {
				why = "sends to C still pending";
				goto out;
			}
			break;
		case 3:
			if (!after.busy) {
				phase = 4;
			} else if (now > t_after + o->bound_s) {
				why = "send posted to dead C never completed";
				goto out;
			}
			break;
		}
		if (phase == 4 && a->b_target < 0)
			a->b_target = (long)b->next_seq + o->tail;
		if (phase == 4 && b->next_seq == a->b_target &&
		    !busy_count(a, PEER_B))
			break;
		if (now > end) {
			why = "timed out";
			goto out;
		}
		pause_us(50);
	}
	why = NULL;
	if (b->err || b->imm_err || (long)b->ok != a->b_target)
		why = "stream to B incomplete";
	else if (!c->err && !c->imm_err)
		why = "no error completion from C";
	else if (!after_ret && !after.err)
		why = "send to dead C succeeded";
	rc = why ? 1 : 0;
out:
	printf("ft_deadpeer: A C ok %lu err %lu imm_err %lu ok_after_err %lu "
	       "pending_at_first_err %u first_err_wall %.6f last_err_wall "
	       "%.6f last_ok_wall %.6f drain_s %.3f err %d (%s) prov_errno "
	       "%d (%s)\n", c->ok, c->err, c->imm_err, c->ok_after_err,
	       a->c_pending_at_err,
	       c->first_err_wall, c->last_err_wall, c->last_ok_wall,
	       t_drained ? t_drained - c->first_err : -1.0, c->err_code,
	       fi_strerror(c->err_code), c->prov_errno, c->errstr);
	if (after_ret)
		printf("ft_deadpeer: A after-send fi_send returned %d (%s)\n",
		       after_ret, fi_strerror(-after_ret));
	else if (t_after && !after.busy)
		printf("ft_deadpeer: A after-send %s err %d (%s) prov_errno %d "
		       "(%s) in %.3f s\n", after.err ? "error completion" :
		       "SUCCEEDED", after.err, fi_strerror(after.err),
		       after.prov_errno, after.errstr, after.t_done - t_after);
	else
		printf("ft_deadpeer: A after-send not completed\n");
	printf("ft_deadpeer: A B sent %u ok %lu err %lu imm_err %lu target "
	       "%ld stray %lu\n", b->next_seq, b->ok, b->err, b->imm_err,
	       a->b_target, fault_stray);
	if (why)
		printf("ft_deadpeer: A: %s\n", why);
	printf("ft_deadpeer: A %s\n", rc ? "FAIL" : "PASS");
	fflush(stdout);
	fault_ep_close(&a->e);
	for (int p = 0; p < 2; p++)
		for (unsigned i = 0; i < o->window; i++)
			free(a->s[p].ops[i].buf);
	free(after.buf);
	free(a);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.prov = "uet",
		.window = 8,
		.max_size = MSG_MAX,
		.tail = 300,
		.bound_s = 10,
		.c_wait_s = 30,
		.timeout_s = 90,
	};
	int c;

	while ((c = getopt(argc, argv, "p:k:b:c:w:M:t:E:W:T:h")) != -1) {
		switch (c) {
		case 'p': o.prov = optarg; break;
		case 'k': o.sink_id = atoi(optarg); break;
		case 'b': o.addr[PEER_B] = optarg; break;
		case 'c': o.addr[PEER_C] = optarg; break;
		case 'w': o.window = (unsigned)atoi(optarg); break;
		case 'M': o.max_size = strtoul(optarg, NULL, 0); break;
		case 't': o.tail = (unsigned)atoi(optarg); break;
		case 'E': o.bound_s = atof(optarg); break;
		case 'W': o.c_wait_s = atof(optarg); break;
		case 'T': o.timeout_s = atoi(optarg); break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (o.window < 1 || o.window > WINDOW_MAX ||
	    o.max_size < FAULT_HDR_LEN || o.max_size > MSG_MAX) {
		usage(argv[0]);
		return 2;
	}
	if (o.sink_id > 0 && o.sink_id < 256)
		return sink(&o);
	if (o.addr[PEER_B] && o.addr[PEER_C])
		return sender(&o);
	usage(argv[0]);
	return 2;
}
