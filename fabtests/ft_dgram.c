/*
 * ft_dgram: a datagram ping-pong (FI_EP_DGRAM, FI_MSG) as a real datagram
 * application writes one: the network may lose, duplicate or reorder its
 * datagrams, so reliability is ours. Every ping carries a sequence number;
 * the client resends a ping whose pong has not come within a timeout
 * (doubling, at most FT_DG_MAX_RESEND times), ignores pongs of earlier
 * pings (duplicates, answers to resends), and the server answers every
 * ping it gets, copies included. Both sides check every byte they
 * receive against the pattern its sequence number and size define.
 *
 * The sequence number travels in the remote CQ data when the provider
 * has 8 bytes of it (fi_senddata), else in the first 8 payload bytes
 * (sizes below 8 are then skipped).
 */
#include "common.h"

#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define FT_DG_RECVS		16	/* receives kept posted */
#define FT_DG_SENDS		32	/* sends in flight */
#define FT_DG_MAX_RESEND	64	/* of one ping */
#define FT_DG_RTO_MAX_MS	500
#define FT_DG_DONE		0xD0D0D0D0D0D0D0D0ull
#define FT_DG_IDLE_YIELD	64	/* idle polls between two yields */

enum {
	P_ITERS,
	P_RTO_MS,
	P_CORRUPT,
	P_NSIZES,
	P_SIZES,
	P_COUNT = P_SIZES + FT_MAX_SIZES
};

struct dg {
	struct ft_ctx c;
	uint64_t p[P_COUNT];
	size_t max;			/* buffer size: the largest size run */
	bool cq_seq;			/* sequence numbers in remote CQ data */
	uint8_t *rbuf, *sbuf;		/* FT_DG_RECVS / FT_DG_SENDS slots */
	void *rdesc, *sdesc;
	struct fid_mr *rmr, *smr;
	struct ft_op rops[FT_DG_RECVS];
	struct ft_op sops[FT_DG_SENDS];
	unsigned snext;
	uint64_t seq;			/* next ping (client), monotonic */
	uint64_t nping;			/* pings sent for the first time (-Z) */
	/* per size */
	uint64_t resent, stale, answered, bad;
};

static void dg_usage(void)
{
	fprintf(stderr,
		"Usage: ft_dgram [options]          (server)\n"
		"       ft_dgram [options] HOST     (client)\n"
		"Datagram ping-pong with sequence numbers, timeouts and resends;\n"
		"every byte is checked. The server takes the client's -S/-I/-R/-Z.\n"
		"Endpoint type dgram unless -e says otherwise.\n"
		"  -S SIZES    1:16k (default) | list 1,64,4k | range 1:1k[:step];\n"
		"              sizes above max_msg_size are skipped\n"
		"  -I N        pings per size (1000)\n"
		"  -R MS       first resend timeout in ms (10), doubling to 500\n"
		"  -Z K        corrupt one byte of the client's K-th ping\n");
	ft_usage_common();
}

static int dg_opt(void *arg, int opt, const char *optarg)
{
	struct dg *d = arg;

	switch (opt) {
	case 'S':
		return ft_parse_sizes_param("ft_dgram", optarg, &d->p[P_NSIZES],
					    &d->p[P_SIZES]);
	case 'I':
		d->p[P_ITERS] = strtoull(optarg, NULL, 0);
		return d->p[P_ITERS] ? 0 : -1;
	case 'R':
		d->p[P_RTO_MS] = strtoull(optarg, NULL, 0);
		return d->p[P_RTO_MS] ? 0 : -1;
	case 'Z':
		d->p[P_CORRUPT] = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

static uint64_t dg_seed(size_t size, uint64_t seq, int dir)
{
	return ft_mix64(size * 2654435761u + seq * 40503u + (uint64_t)dir);
}

/* The datagram of (size, seq) in direction dir (0 ping, 1 pong). */
static void dg_fill(const struct dg *d, uint8_t *p, size_t size, uint64_t seq,
		    int dir)
{
	if (d->cq_seq) {
		ft_fill(p, size, dg_seed(size, seq, dir));
		return;
	}
	memcpy(p, &seq, 8);
	ft_fill(p + 8, size - 8, dg_seed(size, seq, dir));
}

/* The sequence number of a received datagram, and whether its bytes are
 * the pattern of (its length, that number). */
static bool dg_check(const struct dg *d, const struct ft_op *op,
		     const uint8_t *p, int dir, uint64_t *seq)
{
	size_t len = op->comp.len;

	if (d->cq_seq) {
		if (!(op->comp.flags & FI_REMOTE_CQ_DATA))
			return false;
		*seq = op->comp.data;
		return ft_check(p, len, dg_seed(len, *seq, dir)) < 0;
	}
	if (len < 8)
		return false;
	memcpy(seq, p, 8);
	return ft_check(p + 8, len - 8, dg_seed(len, *seq, dir)) < 0;
}

static int dg_post_recv(struct dg *d, unsigned i)
{
	struct ft_ctx *c = &d->c;
	ssize_t ret;

	ft_op_reset(&d->rops[i]);
	ret = FT_POST(c, fi_recv(c->ep, d->rbuf + i * d->max, d->max,
				 d->rdesc, FI_ADDR_UNSPEC, &d->rops[i]));
	if (ret)
		ft_perr("fi_recv", (int)ret);
	return (int)ret;
}

/* Send one datagram (its own slot: the buffer stays until it is done). */
static int dg_send(struct dg *d, size_t size, uint64_t seq, int dir,
		   bool corrupt)
{
	struct ft_ctx *c = &d->c;
	unsigned i = d->snext++ % FT_DG_SENDS;
	struct ft_op *op = &d->sops[i];
	uint8_t *p = d->sbuf + i * d->max;
	ssize_t ret;

	if (!op->done) {
		ret = ft_wait_op(c, op);
		if (!ret)
			ret = ft_op_check(op, "send completion");
		if (ret)
			return (int)ret;
	}
	dg_fill(d, p, size, seq, dir);
	if (corrupt) {
		p[size / 2] ^= 0x20;
		fprintf(stderr, "ft_dgram: corrupting ping %" PRIu64
			" on purpose (-Z)\n", d->nping);
	}
	ft_op_reset(op);
	if (d->cq_seq)
		ret = FT_POST(c, fi_senddata(c->ep, p, size, d->sdesc, seq,
					     c->peer, op));
	else
		ret = FT_POST(c, fi_send(c->ep, p, size, d->sdesc, c->peer,
					 op));
	if (ret)
		ft_perr(d->cq_seq ? "fi_senddata" : "fi_send", (int)ret);
	return (int)ret;
}

/* Busy polling, but let the peer run on a crowded host. */
static void dg_idle(unsigned *idle, int progressed)
{
	if (progressed)
		*idle = 0;
	else if (!(++*idle % FT_DG_IDLE_YIELD))
		sched_yield();
}

/* Is there something to read out of band (or did the peer go away)? */
static bool dg_oob_ready(const struct ft_ctx *c)
{
	struct pollfd pfd = { .fd = c->oob_fd, .events = POLLIN };

	return poll(&pfd, 1, 0) > 0;
}

static bool dg_oob_closed(const struct ft_ctx *c)
{
	char b;

	return dg_oob_ready(c) &&
	       recv(c->oob_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* Server: answer pings until the client says the size is done. */
static int dg_serve(struct dg *d, size_t size)
{
	struct ft_ctx *c = &d->c;
	uint64_t deadline = ft_deadline(c), v, seq;
	unsigned idle = 0;
	int ret;

	for (;;) {
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		dg_idle(&idle, ret);
		for (unsigned i = 0; i < FT_DG_RECVS; i++) {
			struct ft_op *op = &d->rops[i];

			if (!op->done)
				continue;
			ret = ft_op_check(op, "receive completion");
			if (ret)
				return ret;
			if (!dg_check(d, op, d->rbuf + i * d->max, 0, &seq)) {
				fprintf(stderr, "ft_dgram: data mismatch: a "
					"%zu-byte ping\n", op->comp.len);
				return -FI_EIO;
			}
			d->answered++;
			ret = dg_send(d, op->comp.len, seq, 1, false);
			if (!ret)
				ret = dg_post_recv(d, i);
			if (ret)
				return ret;
			deadline = ft_deadline(c);
		}
		if (dg_oob_ready(c)) {
			ret = ft_oob_recv_u64(c, &v);
			if (ret)
				return ret;
			if (v != FT_DG_DONE) {
				fprintf(stderr, "ft_dgram: bad control word\n");
				return -FI_EIO;
			}
			return 0;
		}
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "ft_dgram: %zu bytes: nothing from the "
				"client within %d s\n", size, c->opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
	}
}

/* Client: one ping, until its pong comes back. */
static int dg_ping(struct dg *d, size_t size)
{
	struct ft_ctx *c = &d->c;
	uint64_t seq = d->seq++, got, rto, resend_at, deadline;
	unsigned resends = 0, idle = 0;
	bool corrupt = ++d->nping == d->p[P_CORRUPT];
	int ret;

	rto = d->p[P_RTO_MS] * 1000000ull;
	ret = dg_send(d, size, seq, 0, corrupt);
	if (ret)
		return ret;
	resend_at = ft_now_ns() + rto;
	deadline = ft_deadline(c);
	for (;;) {
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		dg_idle(&idle, ret);
		for (unsigned i = 0; i < FT_DG_RECVS; i++) {
			struct ft_op *op = &d->rops[i];
			bool mine;

			if (!op->done)
				continue;
			ret = ft_op_check(op, "receive completion");
			if (ret)
				return ret;
			if (!dg_check(d, op, d->rbuf + i * d->max, 1, &got)) {
				fprintf(stderr, "ft_dgram: data mismatch: a "
					"%zu-byte pong\n", op->comp.len);
				return -FI_EIO;
			}
			mine = got == seq;
			if (got > seq) {
				fprintf(stderr, "ft_dgram: pong %" PRIu64
					" to ping %" PRIu64 " not sent yet\n",
					got, seq);
				return -FI_EIO;
			}
			if (mine && op->comp.len != size) {
				fprintf(stderr, "ft_dgram: pong of %zu bytes "
					"to a %zu-byte ping\n", op->comp.len,
					size);
				return -FI_EIO;
			}
			ret = dg_post_recv(d, i);
			if (ret)
				return ret;
			if (mine)
				return 0;
			d->stale++;	/* a copy, or an earlier answer */
		}
		if (ft_now_ns() < resend_at)
			continue;
		if (dg_oob_closed(c)) {
			fprintf(stderr, "ft_dgram: the server went away\n");
			return -FI_ECONNRESET;
		}
		if (++resends > FT_DG_MAX_RESEND || ft_now_ns() > deadline) {
			fprintf(stderr, "ft_dgram: %zu bytes: no pong to ping "
				"%" PRIu64 " after %u resends\n", size, seq,
				resends - 1);
			return -FI_ETIMEDOUT;
		}
		d->resent++;
		ret = dg_send(d, size, seq, 0, false);
		if (ret)
			return ret;
		rto = rto * 2 > FT_DG_RTO_MAX_MS * 1000000ull ?
		      FT_DG_RTO_MAX_MS * 1000000ull : rto * 2;
		resend_at = ft_now_ns() + rto;
	}
}

static int dg_run_size(struct dg *d, size_t size)
{
	struct ft_ctx *c = &d->c;
	uint64_t iters = d->p[P_ITERS], start, ns, answered;
	int ret;

	d->resent = d->stale = d->answered = 0;
	ret = ft_oob_sync(c);
	if (ret)
		return ret;
	if (!ft_is_client(c)) {
		ret = dg_serve(d, size);
		/* the client prints what we answered */
		if (!ret)
			ret = ft_oob_send_u64(c, d->answered);
		return ret;
	}
	start = ft_now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		ret = dg_ping(d, size);
		if (ret) {
			fprintf(stderr, "ft_dgram: %zu bytes, ping %" PRIu64
				" of %" PRIu64 " failed\n", size, i, iters);
			return ret;
		}
	}
	ns = ft_now_ns() - start;
	ret = ft_oob_send_u64(c, FT_DG_DONE);
	if (!ret)
		ret = ft_oob_recv_u64(c, &answered);
	if (ret)
		return ret;
	printf("%10zu %8" PRIu64 " %12.2f %8" PRIu64 " %8" PRIu64 " %9"
	       PRIu64 "\n", size, iters, ns / 1e3 / (2.0 * (double)iters),
	       d->resent, d->stale, answered);
	fflush(stdout);
	return 0;
}

static int dg_setup(struct dg *d)
{
	struct ft_ctx *c = &d->c;
	size_t maxmsg = c->info->ep_attr->max_msg_size;
	int ret;

	d->cq_seq = c->info->domain_attr->cq_data_size >= 8;
	d->max = 8;
	for (uint64_t i = 0; i < d->p[P_NSIZES]; i++)
		if (d->p[P_SIZES + i] > d->max &&
		    d->p[P_SIZES + i] <= maxmsg)
			d->max = d->p[P_SIZES + i];
	d->rbuf = ft_alloc(FT_DG_RECVS * d->max);
	d->sbuf = ft_alloc(FT_DG_SENDS * d->max);
	if (!d->rbuf || !d->sbuf)
		return -FI_ENOMEM;
	ret = ft_mr_reg(c, d->rbuf, FT_DG_RECVS * d->max, &d->rmr, &d->rdesc);
	if (!ret)
		ret = ft_mr_reg(c, d->sbuf, FT_DG_SENDS * d->max, &d->smr,
				&d->sdesc);
	for (unsigned i = 0; !ret && i < FT_DG_SENDS; i++)
		d->sops[i].done = true;
	for (unsigned i = 0; !ret && i < FT_DG_RECVS; i++)
		ret = dg_post_recv(d, i);
	return ret;
}

static int dg_run(struct dg *d)
{
	struct ft_ctx *c = &d->c;
	size_t maxmsg = c->info->ep_attr->max_msg_size, size;
	int ret;

	ret = dg_setup(d);
	if (ret)
		return ret;
	printf("# ft_dgram: provider %s, fabric %s, domain %s, ep %s, "
	       "max_msg_size %zu, sequence in %s, %s\n",
	       c->info->fabric_attr->prov_name, c->info->fabric_attr->name,
	       c->info->domain_attr->name,
	       c->opts.ep_type == FI_EP_DGRAM ? "dgram" : "rdm", maxmsg,
	       d->cq_seq ? "CQ data" : "payload",
	       ft_is_client(c) ? "client" : "server");
	if (ft_is_client(c))
		printf("# one-way latency (round trip / 2, resends included);"
		       " resent: pings resent after a timeout;\n# stale: "
		       "pongs of earlier pings; answered: pings the server "
		       "answered (copies included)\n%10s %8s %12s %8s %8s "
		       "%9s\n", "bytes", "pings", "usec/xfer", "resent",
		       "stale", "answered");
	for (uint64_t i = 0; i < d->p[P_NSIZES]; i++) {
		size = d->p[P_SIZES + i];
		if (size > maxmsg || (!d->cq_seq && size < 8)) {
			printf("# %zu bytes: %s, skipped\n", size,
			       size > maxmsg ? "above max_msg_size" :
			       "no room for the sequence number");
			continue;
		}
		ret = dg_run_size(d, size);
		if (ret) {
			fprintf(stderr, "ft_dgram: failed at %zu bytes\n",
				size);
			return ret;
		}
	}
	return ft_oob_sync(c);
}

int main(int argc, char **argv)
{
	struct dg *d = calloc(1, sizeof(*d));
	int ret;

	if (!d)
		return EXIT_FAILURE;
	ft_ctx_init(&d->c);
	d->c.opts.ep_type = FI_EP_DGRAM;
	d->p[P_ITERS] = 1000;
	d->p[P_RTO_MS] = 10;
	ft_parse_sizes_param("ft_dgram", "1:16k", &d->p[P_NSIZES],
			     &d->p[P_SIZES]);
	ret = ft_parse_args(&d->c.opts, argc, argv, "S:I:R:Z:", dg_opt, d);
	if (ret) {
		dg_usage();
		free(d);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	ret = ft_oob_start(&d->c);
	if (!ret)
		ret = ft_oob_share(&d->c, d->p, P_COUNT);
	if (!ret)
		ret = ft_getinfo(&d->c, FI_MSG, 0);
	if (!ret)
		ret = ft_open(&d->c);
	if (!ret)
		ret = ft_oob_xchg_names(&d->c);
	if (!ret)
		ret = dg_run(d);

	ft_mr_close(d->rmr);
	ft_mr_close(d->smr);
	/* the receives still posted go with the endpoint */
	ft_close(&d->c);
	free(d->rbuf);
	free(d->sbuf);
	free(d);
	if (ret)
		fprintf(stderr, "ft_dgram: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
