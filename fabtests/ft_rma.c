/*
 * ft_rma: RMA writes and reads against the server's memory.
 *
 *   -t bw    bandwidth: the client writes (or reads) windows of -w
 *            operations over sizes 1 B..16 MiB. Writes go to one of two
 *            buffer sets of the server with FI_DELIVERY_COMPLETE; after a
 *            window the client says so out of band and the server checks
 *            every message of it (sequence number and content) while the
 *            next window lands in the other set. -o writedata carries the
 *            sequence number as remote CQ data instead, and the server
 *            checks one CQ entry per message too. Reads check every
 *            message at the client.
 *   -t lat   latency: a write ping-pong, each side waiting for the peer's
 *            message and checking it before answering: -o write, plain
 *            writes with FI_DELIVERY_COMPLETE, seen arriving by the
 *            FI_REMOTE_WRITE counter (FI_RMA_EVENT) or else by watching
 *            the memory; -o writedata, seen by the remote CQ entry.
 *            With -o read, back-to-back reads checked one by one.
 *   -t func  a PASS/FAIL matrix: writes and reads of every call flavour,
 *            remote CQ data, FI_FENCE, delivery complete, remote counters
 *            (endpoint and MR), two regions written from their start
 *            (address 0 under offsets), and the error cases - unknown
 *            key, out of range, no permission, closed region, an address
 *            in the other mr_mode's form - each checked to fail with the
 *            right error and to leave the target untouched.
 */
#include "common.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fi_rma.h>

#define RMA_BIG		(64u * 1024)
#define RMA_BUDGET	(16u << 20)	/* bytes of one buffer set */
#define RMA_MAX_WINDOW	1024

/* UET return codes the error cases expect in prov_errno (fi_uet.7). */
#define UET_RC_PERM_VIOLATION	0x17
#define UET_RC_BAD_MKEY		0x1c
#define UET_RC_BAD_ADDR		0x1d

enum { O_WRITE, O_READ, O_WRITEDATA };
enum { T_BW, T_LAT, T_FUNC };
enum { M_BASIC, M_SCALABLE, M_ENDPOINT };

enum {
	P_OP,
	P_TEST,
	P_MODE,
	P_WINDOW,
	P_ITERS,
	P_CORRUPT,
	P_BOTH,
	P_NSIZES,
	P_SIZES,
	P_COUNT = P_SIZES + FT_MAX_SIZES
};

struct rma {
	struct ft_ctx c;
	uint64_t p[P_COUNT];
	size_t region;			/* bytes of one buffer set */
	uint8_t *buf;			/* the target region (server) or the
					 * local buffers (client) */
	size_t buflen;
	struct fid_mr *mr;
	void *desc;
	uint64_t key;			/* ours */
	uint64_t peer_key, peer_addr;	/* the peer's region */
	uint8_t *expect;
	struct ft_op ops[RMA_MAX_WINDOW];
	uint64_t nsent;
	/* remote CQ data seen (writedata, func) */
	uint64_t rx_data[RMA_MAX_WINDOW];
	uint64_t rx_flags[RMA_MAX_WINDOW];
	uint64_t nrx;
};

static struct rma *g_rma;

static const char *op_names[] = { "write", "read", "writedata" };
static const char *test_names[] = { "bw", "lat", "func" };
static const char *mode_names[] = { "basic", "scalable", "endpoint" };

static void rma_usage(void)
{
	fprintf(stderr,
		"Usage: ft_rma [options]          (server: the target)\n"
		"       ft_rma [options] HOST     (client: the initiator)\n"
		"RMA writes and reads; every message is checked.\n"
		"The server takes the client's -o/-t/-M/-S/-w/-I/-Z.\n"
		"  -t TEST     bw (default), lat or func (the functional matrix)\n"
		"  -o OP       write (default), read or writedata (bw, lat)\n"
		"  -M MODE     mr_mode the program offers: basic (FI_MR_VIRT_ADDR |\n"
		"              FI_MR_PROV_KEY | FI_MR_ALLOCATED | FI_MR_LOCAL, default),\n"
		"              scalable (none: offsets and application keys) or\n"
		"              endpoint (basic, plus FI_MR_ENDPOINT forced)\n"
		"  -S SIZES    all (1:16m) | list 1,64,4k | range 1:1m[:step] (all)\n"
		"  -w N        bw window: operations in flight (64, at most 1024; fewer\n"
		"              for big sizes so a window stays within 16 MiB)\n"
		"  -I N        bw: windows per size up to 64 KiB (100), the same bytes\n"
		"              above, at least 2; lat: iterations (1000), N*64 KiB/size\n"
		"              above 64 KiB, at least min(10, N); plus one warm-up\n"
		"  -Z K        bw write: corrupt one byte of the K-th message\n"
		"  -b          bw read: the server reads the client's buffers\n"
		"              at the same time (both ends read, as libfabric's\n"
		"              fi_rma_bw does); its reads are checked, not timed\n");
	ft_usage_common();
}

static int pick(const char *arg, const char **names, int n, uint64_t *out)
{
	for (int i = 0; i < n; i++) {
		if (!strcmp(arg, names[i])) {
			*out = (uint64_t)i;
			return 0;
		}
	}
	return -1;
}

static int rma_opt(void *arg, int opt, const char *optarg)
{
	struct rma *r = arg;

	switch (opt) {
	case 'o':
		return pick(optarg, op_names, 3, &r->p[P_OP]);
	case 't':
		return pick(optarg, test_names, 3, &r->p[P_TEST]);
	case 'M':
		return pick(optarg, mode_names, 3, &r->p[P_MODE]);
	case 'S':
		return ft_parse_sizes_param("ft_rma", optarg, &r->p[P_NSIZES],
					    &r->p[P_SIZES]);
	case 'w':
		r->p[P_WINDOW] = strtoull(optarg, NULL, 0);
		return r->p[P_WINDOW] && r->p[P_WINDOW] <= RMA_MAX_WINDOW ?
		       0 : -1;
	case 'I':
		r->p[P_ITERS] = strtoull(optarg, NULL, 0);
		return r->p[P_ITERS] ? 0 : -1;
	case 'Z':
		r->p[P_CORRUPT] = strtoull(optarg, NULL, 0);
		return 0;
	case 'b':
		r->p[P_BOTH] = 1;
		return 0;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* shared helpers */

static uint64_t rma_seed(size_t size, uint64_t slot)
{
	return ft_mix64(size * 104729u + slot + 7);
}

/* The content of a message: its sequence number, then its slot's
 * pattern (fixed per size and slot, so only the number changes). */
static void rma_fill_msg(uint8_t *p, size_t size, uint64_t slot, uint64_t seq)
{
	if (size < 8) {
		ft_fill(p, size, rma_seed(size, 0));
		return;
	}
	memcpy(p, &seq, 8);
	ft_fill(p + 8, size - 8, rma_seed(size, slot));
}

static void rma_set_seq(uint8_t *p, size_t size, uint64_t seq)
{
	if (size >= 8)
		memcpy(p, &seq, 8);
}

/* The sequence number a message of 8 bytes or more starts with. */
static int rma_check_seq(const uint8_t *p, size_t size, uint64_t seq,
			 const char *what)
{
	uint64_t got;

	if (size < 8)
		return 0;
	memcpy(&got, p, 8);
	if (got == seq)
		return 0;
	fprintf(stderr, "ft_rma: data mismatch: %s, %zu bytes: sequence %"
		PRIu64 ", want %" PRIu64 "\n", what, size, got, seq);
	return -FI_EIO;
}

static int rma_bad_at(size_t size, uint64_t seq, size_t off, const char *what)
{
	fprintf(stderr, "ft_rma: data mismatch: %s, %zu bytes, sequence %"
		PRIu64 ", offset %zu\n", what, size, seq, off);
	return -FI_EIO;
}

static int rma_check_msg(const uint8_t *p, size_t size, uint64_t slot,
			 uint64_t seq, const char *what)
{
	size_t hdr = size < 8 ? 0 : 8;
	ssize_t off;

	if (rma_check_seq(p, size, seq, what))
		return -FI_EIO;
	off = ft_check(p + hdr, size - hdr, rma_seed(size, hdr ? slot : 0));
	return off < 0 ? 0 : rma_bad_at(size, seq, (size_t)off + hdr, what);
}

/* bw: every slot's pattern, made once per size before the timed windows,
 * so that checking a message is a memcmp (ft_check makes the pattern as
 * it reads: at some 700 MB/s it, not the transport, set the pace). */
static void bw_expect(struct rma *r, size_t size, uint64_t win)
{
	uint64_t i;

	for (i = 0; i < win; i++)
		rma_fill_msg(r->expect + i * size, size, i, 0);
}

/* A message of slot `slot` against its pattern in r->expect: the
 * sequence number, then the rest; the offset of a mismatch as
 * rma_check_msg reports it. */
static int bw_check_msg(const struct rma *r, const uint8_t *p, size_t size,
			uint64_t slot, uint64_t seq, const char *what)
{
	const uint8_t *exp = r->expect + slot * size;
	size_t off = size < 8 ? 0 : 8;

	if (rma_check_seq(p, size, seq, what))
		return -FI_EIO;
	if (!memcmp(p + off, exp + off, size - off))
		return 0;
	while (p[off] == exp[off])
		off++;
	return rma_bad_at(size, seq, off, what);
}

static void rma_on_remote(struct ft_ctx *c, const struct fi_cq_tagged_entry *e)
{
	struct rma *r = g_rma;

	(void)c;
	r->rx_data[r->nrx % RMA_MAX_WINDOW] = e->data;
	r->rx_flags[r->nrx % RMA_MAX_WINDOW] = e->flags;
	r->nrx++;
}

static int rma_wait_all(struct rma *r, uint64_t n, const char *what)
{
	for (uint64_t i = 0; i < n; i++) {
		int ret = ft_wait_op(&r->c, &r->ops[i]);

		if (!ret)
			ret = ft_op_check(&r->ops[i], what);
		if (ret)
			return ret;
	}
	return 0;
}

/* Wait until n remote CQ entries arrived. */
static int rma_wait_remote(struct rma *r, uint64_t n)
{
	uint64_t deadline = ft_deadline(&r->c);
	int ret;

	while (r->nrx < n) {
		ret = ft_progress(&r->c);
		if (ret < 0)
			return ret;
		if (!ret)
			sched_yield();	/* the peer may need this CPU */
		if (!ret && ft_now_ns() > deadline) {
			fprintf(stderr, "ft_rma: %" PRIu64 " of %" PRIu64
				" remote CQ entries within %d s\n", r->nrx, n,
				r->c.opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
	}
	return 0;
}

static int rma_xchg_region(struct rma *r, uint8_t *base)
{
	struct ft_ctx *c = &r->c;
	int ret;

	ret = ft_oob_send_u64(c, r->key);
	if (!ret)
		ret = ft_oob_send_u64(c, ft_rma_addr(c, base, base));
	if (!ret)
		ret = ft_oob_recv_u64(c, &r->peer_key);
	if (!ret)
		ret = ft_oob_recv_u64(c, &r->peer_addr);
	return ret;
}

/* Post one write (or writedata) of size bytes from local to raddr. */
static ssize_t rma_post_write(struct rma *r, struct ft_op *op, void *local,
			      size_t size, uint64_t raddr, uint64_t data,
			      bool with_data)
{
	struct ft_ctx *c = &r->c;
	struct iovec iov = { .iov_base = local, .iov_len = size };
	struct fi_rma_iov rma = { .addr = raddr, .len = size,
				  .key = r->peer_key };
	struct fi_msg_rma msg = {
		.msg_iov = &iov, .desc = &r->desc, .iov_count = 1,
		.addr = c->peer, .rma_iov = &rma, .rma_iov_count = 1,
		.context = op, .data = data,
	};

	ft_op_reset(op);
	if (with_data)
		return FT_POST(c, fi_writedata(c->ep, local, size, r->desc, data,
					       c->peer, raddr, r->peer_key,
					       op));
	/* the server looks at the data once we say so: it must be there */
	return FT_POST(c, fi_writemsg(c->ep, &msg,
				      FI_COMPLETION | FI_DELIVERY_COMPLETE));
}

static ssize_t rma_post_read(struct rma *r, struct ft_op *op, void *local,
			     size_t size, uint64_t raddr)
{
	struct ft_ctx *c = &r->c;

	ft_op_reset(op);
	return FT_POST(c, fi_read(c->ep, local, size, r->desc, c->peer, raddr,
				  r->peer_key, op));
}

/* ------------------------------------------------------------------ */
/* bandwidth */

static uint64_t bw_window(const struct rma *r, size_t size)
{
	uint64_t w = RMA_BUDGET / size;

	if (w > r->p[P_WINDOW])
		w = r->p[P_WINDOW];
	return w ? w : 1;
}

static uint64_t bw_windows(const struct rma *r, size_t size, uint64_t win)
{
	uint64_t msgs = r->p[P_ITERS] * r->p[P_WINDOW], n;

	if (size > RMA_BIG)
		msgs = msgs * RMA_BIG / size;
	n = (msgs + win - 1) / win;
	return n < 2 ? 2 : n;
}

static uint64_t bw_warmup(size_t size, bool first)
{
	return first || size <= RMA_BIG;
}

/* writedata: remote CQ entries counted per window. */
static uint64_t *bw_rx_count;
static uint64_t bw_rx_win, bw_rx_nw, bw_rx_bad;

static void bw_on_remote(struct ft_ctx *c, const struct fi_cq_tagged_entry *e)
{
	uint64_t want = FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA;
	uint64_t w = e->data / bw_rx_win;

	(void)c;
	if ((e->flags & want) != want || w >= bw_rx_nw) {
		if (!bw_rx_bad++)
			fprintf(stderr, "ft_rma: remote CQ entry flags 0x%"
				PRIx64 " data %" PRIu64 " unexpected\n",
				(uint64_t)e->flags, (uint64_t)e->data);
		return;
	}
	bw_rx_count[w]++;
}

/* nw windows of win reads of the peer's first set, each checked; into
 * our first set, or our second when the peer reads ours at once (-b:
 * the first is what it reads). ns and cpu from window `warm` on. */
static int bw_reads(struct rma *r, size_t size, uint64_t win, uint64_t nw,
		    uint64_t warm, uint64_t *ns, uint64_t *cpu)
{
	uint8_t *dst = r->buf + (r->p[P_BOTH] ? r->region : 0);
	uint64_t w, i, start = 0;
	int ret = 0;

	bw_expect(r, size, win);
	*cpu = 0;
	for (w = 0; !ret && w < nw; w++) {
		if (w == warm) {
			start = ft_now_ns();
			*cpu = ft_cpu_us();
		}
		for (i = 0; i < win && !ret; i++) {
			memset(dst + i * size, 0xA5, size < 8 ? size : 8);
			ret = (int)rma_post_read(r, &r->ops[i], dst + i * size,
						 size, r->peer_addr + i * size);
		}
		if (ret) {
			ft_perr("fi_read", ret);
			break;
		}
		ret = rma_wait_all(r, win, "read");
		for (i = 0; i < win && !ret; i++)
			ret = bw_check_msg(r, dst + i * size, size, i, i,
					   "read");
	}
	*ns = ft_now_ns() - start;
	*cpu = ft_cpu_us() - *cpu;
	return ret;
}

static int bw_server_size(struct rma *r, size_t size, bool first)
{
	struct ft_ctx *c = &r->c;
	bool data = r->p[P_OP] == O_WRITEDATA;
	uint64_t win = bw_window(r, size), warm = bw_warmup(size, first);
	uint64_t nw = bw_windows(r, size, win) + warm;
	uint64_t w, v, i, deadline, cpu;
	int ret, bad = 0;

	if (r->p[P_OP] == O_READ) {
		/* the reads' CPU here, warm-up included: this side does
		 * not see the windows */
		uint64_t ns, own;

		for (i = 0; i < win; i++)
			rma_fill_msg(r->buf + i * size, size, i, i);
		ret = ft_oob_sync(c);
		cpu = ft_cpu_us();
		if (!ret && r->p[P_BOTH])
			ret = bw_reads(r, size, win, nw, warm, &ns, &own);
		if (!ret)
			ret = ft_oob_recv_u64_progress(c, &v);
		return ret ? ret : ft_oob_send_u64(c, ft_cpu_us() - cpu);
	}
	bw_expect(r, size, win);
	bw_rx_count = calloc(nw, sizeof(*bw_rx_count));
	if (!bw_rx_count)
		return -FI_ENOMEM;
	bw_rx_win = win;
	bw_rx_nw = nw;
	bw_rx_bad = 0;
	c->on_remote = bw_on_remote;
	ret = ft_oob_sync(c);
	cpu = ft_cpu_us();
	for (w = 0; !ret && w < nw; w++) {
		uint8_t *set = r->buf + (w % 2) * r->region;

		if (w == warm)
			cpu = ft_cpu_us();

		ret = ft_oob_recv_u64_progress(c, &v);
		if (ret)
			break;
		if (v != w) {
			fprintf(stderr, "ft_rma: window %" PRIu64 " reported "
				"as %" PRIu64 "\n", w, v);
			ret = -FI_EIO;
			break;
		}
		deadline = ft_deadline(c);
		while (data && bw_rx_count[w] < win && !bw_rx_bad) {
			ret = ft_progress(c);
			if (ret < 0)
				break;
			if (!ret)
				sched_yield();
			ret = 0;
			if (ft_now_ns() > deadline) {
				fprintf(stderr, "ft_rma: window %" PRIu64 ": %"
					PRIu64 " of %" PRIu64 " remote CQ "
					"entries\n", w, bw_rx_count[w], win);
				ret = -FI_ETIMEDOUT;
			}
		}
		if (ret)
			break;
		if (bw_rx_bad)
			bad = 1;
		for (i = 0; i < win && !bad; i++)
			if (bw_check_msg(r, set + i * size, size, i,
					 w * win + i, "written window"))
				bad = 1;
		ret = ft_oob_send_u64(c, w | ((uint64_t)bad << 63));
	}
	c->on_remote = NULL;
	free(bw_rx_count);
	bw_rx_count = NULL;
	if (!ret && !bad)
		ret = ft_oob_send_u64(c, ft_cpu_us() - cpu);
	return ret ? ret : bad ? -FI_EIO : 0;
}

static int bw_ack(struct rma *r, uint64_t w, size_t size)
{
	uint64_t v;
	int ret = ft_oob_recv_u64_progress(&r->c, &v);

	if (ret)
		return ret;
	if ((v & ~(1ull << 63)) != w) {
		fprintf(stderr, "ft_rma: ack %" PRIu64 ", want %" PRIu64 "\n",
			(uint64_t)(v & ~(1ull << 63)), w);
		return -FI_EIO;
	}
	if (v >> 63) {
		fprintf(stderr, "ft_rma: the server found bad data at %zu "
			"bytes, window %" PRIu64 "\n", size, w);
		return -FI_EIO;
	}
	return 0;
}

static int bw_client_size(struct rma *r, size_t size, bool first)
{
	struct ft_ctx *c = &r->c;
	bool rd = r->p[P_OP] == O_READ, data = r->p[P_OP] == O_WRITEDATA;
	uint64_t win = bw_window(r, size), warm = bw_warmup(size, first);
	uint64_t nw = bw_windows(r, size, win) + warm;
	uint64_t w, i, v = 0, start = 0, ns = 0, cpu = 0;
	uint8_t *buf, *flip = NULL;
	ssize_t ret;

	for (i = 0; i < win; i++)
		rma_fill_msg(r->buf + i * size, size, i, i);
	ret = ft_oob_sync(c);
	if (!ret && rd)
		ret = bw_reads(r, size, win, nw, warm, &ns, &cpu);
	for (w = 0; !ret && !rd && w < nw; w++) {
		if (w >= 2)
			ret = bw_ack(r, w - 2, size);
		if (ret)
			break;
		if (w == warm) {
			start = ft_now_ns();
			cpu = ft_cpu_us();
		}
		for (i = 0; i < win && !ret; i++) {
			uint64_t seq = w * win + i;
			uint64_t raddr = r->peer_addr +
				((w % 2) * r->region + i * size);

			buf = r->buf + i * size;
			rma_set_seq(buf, size, seq);
			if (++r->nsent == r->p[P_CORRUPT]) {
				flip = buf + size - 1;
				*flip ^= 0x10;
				fprintf(stderr, "ft_rma: corrupting message %"
					PRIu64 " on purpose (-Z)\n", r->nsent);
			}
			ret = rma_post_write(r, &r->ops[i], buf, size, raddr,
					     seq, data);
		}
		if (ret) {
			ft_perr("fi_write", (int)ret);
			break;
		}
		ret = rma_wait_all(r, win, "write");
		if (ret)
			break;
		if (flip) {
			*flip ^= 0x10;
			flip = NULL;
		}
		ret = ft_oob_send_u64(c, w);
	}
	for (w = nw >= 2 ? nw - 2 : 0; !ret && !rd && w < nw; w++)
		ret = bw_ack(r, w, size);
	if (!rd) {
		ns = ft_now_ns() - start;
		cpu = ft_cpu_us() - cpu;
	}
	if (!ret && rd)
		ret = ft_oob_send_u64(c, nw);
	/* the server's CPU for the size; with -b it may still be reading
	 * from us, and needs our progress for it */
	if (!ret)
		ret = r->p[P_BOTH] ? ft_oob_recv_u64_progress(c, &v) :
				     ft_oob_recv_u64(c, &v);
	if (ret)
		return (int)ret;
	nw -= warm;
	printf("%10zu %8" PRIu64 " %6" PRIu64 " %10.2f %12.2f %10.2f\n", size,
	       nw * win, win, ns / 1e6,
	       (double)(nw * win) * (double)size / (ns / 1e3),
	       (double)(nw * win) / (ns / 1e6));
	ft_cpu_print(size, cpu, v, nw * win);
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------------------------ */
/* latency */

static uint64_t lat_iters(const struct rma *r, size_t size)
{
	uint64_t it = r->p[P_ITERS], f;

	if (size > RMA_BIG) {
		f = it < 10 ? it : 10;
		it = it * RMA_BIG / size;
		if (it < f)
			it = f;
	}
	return it;
}

static int lat_wait_data(struct rma *r, uint64_t n, uint64_t want)
{
	int ret = rma_wait_remote(r, n);
	uint64_t k = (n - 1) % RMA_MAX_WINDOW;
	uint64_t f = FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA;

	if (ret)
		return ret;
	if (r->nrx != n || r->rx_data[k] != want ||
	    (r->rx_flags[k] & f) != f) {
		fprintf(stderr, "ft_rma: remote CQ entry %" PRIu64 ": data %"
			PRIu64 " flags 0x%" PRIx64 ", want %" PRIu64 "\n", n,
			r->rx_data[k], r->rx_flags[k], want);
		return -FI_EIO;
	}
	return 0;
}

/* Latency writes alternate between two patterns, the second the
 * complement of the first, so every byte of a message differs from the
 * byte the previous message left at that place: a byte that did not
 * arrive is seen. Sizes of 8 bytes and more carry the iteration number
 * in their first 8 bytes. Layout: pattern 0, pattern 1, landing area,
 * one region each. */
static void lat_fill(struct rma *r, size_t size)
{
	uint8_t *p0 = r->buf, *p1 = r->buf + r->region;

	ft_fill(p0, size, rma_seed(size, 0));
	for (size_t i = 0; i < size; i++)
		p1[i] = (uint8_t)~p0[i];
}

static uint8_t *lat_msg(struct rma *r, size_t size, uint64_t it)
{
	uint8_t *p = r->buf + (it & 1) * r->region;

	rma_set_seq(p, size, it);
	return p;
}

static uint8_t *lat_land(struct rma *r)
{
	return r->buf + 2 * r->region;
}

/* Has message it arrived whole in our landing area? */
static bool lat_arrived(struct rma *r, size_t size, uint64_t it)
{
	const uint8_t *land = lat_land(r);
	const uint8_t *want = r->buf + (it & 1) * r->region;
	uint64_t seq;

	if (size < 8)
		return !memcmp(land, want, size);
	memcpy(&seq, land, 8);
	return seq == it && !memcmp(land + 8, want + 8, size - 8);
}

static int lat_mismatch(size_t size, uint64_t it, const char *what)
{
	fprintf(stderr, "ft_rma: data mismatch: %s %" PRIu64 ", %zu bytes, "
		"not (all) there after its completion\n", what, it, size);
	return -FI_EIO;
}

/* Wait for the peer's plain write it: its FI_REMOTE_WRITE counter when
 * we have one (FI_RMA_EVENT), else by watching the landing area while
 * driving progress. */
static int lat_wait_write(struct rma *r, size_t size, uint64_t it,
			  uint64_t base, const char *what)
{
	struct ft_ctx *c = &r->c;
	struct fid_cntr *cn = c->rcntr_write;
	uint64_t deadline = ft_deadline(c);
	unsigned idle = 0;
	int ret;

	for (;;) {
		if (cn) {
			if (fi_cntr_read(cn) >= base + it + 1)
				return lat_arrived(r, size, it) ? 0 :
				       lat_mismatch(size, it, what);
			if (fi_cntr_readerr(cn)) {
				fprintf(stderr, "ft_rma: FI_REMOTE_WRITE "
					"counter counts errors\n");
				return -FI_EIO;
			}
		} else {
			if (lat_arrived(r, size, it))
				return 0;
			ret = ft_progress(c);
			if (ret < 0)
				return ret;
		}
		sched_yield();		/* the peer may need this CPU */
		if (++idle % 64)
			continue;
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "ft_rma: %s %" PRIu64 " not there "
				"within %d s\n", what, it, c->opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
	}
}

/* Wait for the peer's message it: write (plain) or writedata. */
static int lat_wait_peer(struct rma *r, size_t size, uint64_t it,
			 uint64_t base, const char *what)
{
	int ret;

	if (r->p[P_OP] == O_WRITE)
		return lat_wait_write(r, size, it, base, what);
	ret = lat_wait_data(r, it + 1, it);
	if (!ret && !lat_arrived(r, size, it))
		ret = lat_mismatch(size, it, what);
	return ret;
}

static int lat_size(struct rma *r, size_t size)
{
	struct ft_ctx *c = &r->c;
	bool client = ft_is_client(c), rd = r->p[P_OP] == O_READ;
	bool data = r->p[P_OP] == O_WRITEDATA;
	uint64_t iters = lat_iters(r, size), total = iters + 1, it, v;
	uint64_t start = 0, ns, base = 0;
	uint8_t *land = lat_land(r);
	uint64_t raddr = r->peer_addr + 2 * r->region;
	ssize_t ret;

	if (rd)
		rma_fill_msg(r->buf, size, 0, 0);
	else
		lat_fill(r, size);
	/* the landing area holds neither pattern's next message */
	memset(land, 0, size);
	if (!rd)
		memcpy(land, r->buf + r->region, size);	/* "message -1" */
	if (!rd && size >= 8)
		memset(land, 0xFF, 8);
	r->nrx = 0;
	if (c->rcntr_write)
		base = fi_cntr_read(c->rcntr_write);
	ret = ft_oob_sync(c);
	if (ret)
		return (int)ret;
	if (rd && !client) {
		ret = ft_oob_recv_u64_progress(c, &v);
		return ret ? (int)ret : ft_oob_send_u64(c, 0);
	}
	for (it = 0; it < total && !ret; it++) {
		if (it == 1)
			start = ft_now_ns();
		if (rd) {
			memset(land, 0xA5, size < 8 ? size : 8);
			ret = rma_post_read(r, &r->ops[0], land, size,
					    r->peer_addr);
			if (!ret)
				ret = rma_wait_all(r, 1, "read");
			if (!ret)
				ret = rma_check_msg(land, size, 0, 0, "read");
			continue;
		}
		if (!client) {
			ret = lat_wait_peer(r, size, it, base, "ping");
			if (ret)
				break;
		}
		ret = rma_post_write(r, &r->ops[0], lat_msg(r, size, it), size,
				     raddr, it, data);
		if (!ret)
			ret = rma_wait_all(r, 1, data ? "writedata" : "write");
		if (!ret && client)
			ret = lat_wait_peer(r, size, it, base, "pong");
	}
	ns = ft_now_ns() - start;
	if (ret)
		return (int)ret;
	if (rd) {
		ret = ft_oob_send_u64(c, total);
		if (!ret)
			ret = ft_oob_recv_u64(c, &v);
		if (ret)
			return (int)ret;
	}
	if (client) {
		/* one-way time: half a round trip (a read is one) */
		double us = ns / 1e3 / (double)iters / (rd ? 1 : 2);

		printf("%10zu %8" PRIu64 " %10.2f %10.2f\n", size, iters, us,
		       size / us);
		fflush(stdout);
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* the functional matrix */

#define F_AREA		(2u << 20)	/* bytes of one target area */
#define F_BIG		(1u << 20)
#define F_FILL_RW	0x11	/* what f_setup_rw's region holds */

struct fdesc {
	uint64_t key, addr, len;	/* region 1 */
	uint64_t key2, addr2, len2;	/* region 2, if any */
	uint64_t arg;
};
#define FDESC_N		7

struct fstate {
	struct fid_mr *mr[2];
	struct fid_cntr *cntr;
	uint64_t w0, r0;		/* remote counters before the case */
	uint8_t fill;			/* what the target held before */
};

struct fcase {
	const char *name;
	uint64_t need;			/* FI_FENCE, FI_RMA_EVENT */
	int (*setup)(struct rma *r, struct fstate *st, struct fdesc *d);
	int (*run)(struct rma *r, const struct fdesc *d);
	int (*check)(struct rma *r, struct fstate *st, const struct fdesc *d);
};

static bool f_is_uet(const struct rma *r)
{
	return !strcmp(r->c.info->fabric_attr->prov_name, "uet");
}

static uint8_t *f_area(struct rma *r, int n)
{
	return r->buf + (size_t)n * F_AREA;
}

static int f_fail(const char *fmt, const char *what, long a, long b)
{
	fprintf(stderr, "ft_rma: ");
	fprintf(stderr, fmt, what, a, b);
	fprintf(stderr, "\n");
	return -FI_EIO;
}

/* Register len bytes of area n with access for the peer; counter cntr
 * (FI_REMOTE_WRITE) bound before the region is enabled. */
static int f_reg(struct rma *r, struct fstate *st, int n, size_t off,
		 size_t len, uint64_t access, struct fid_cntr *cntr,
		 uint64_t *key, uint64_t *addr)
{
	struct ft_ctx *c = &r->c;
	uint8_t *p = f_area(r, n) + off;
	void *desc;
	int ret;

	if (!cntr) {
		ret = ft_mr_reg_rma(c, p, len, access, &st->mr[n], &desc, key);
	} else {
		ret = fi_mr_reg(c->domain, p, len, access, 0, 0x7000 + n,
				FI_RMA_EVENT, &st->mr[n], NULL);
		if (!ret)
			ret = fi_mr_bind(st->mr[n], &cntr->fid,
					 FI_REMOTE_WRITE);
		if (!ret && (c->info->domain_attr->mr_mode & FI_MR_ENDPOINT))
			ret = fi_mr_bind(st->mr[n], &c->ep->fid, 0);
		if (!ret && (c->info->domain_attr->mr_mode &
			     (FI_MR_ENDPOINT | FI_MR_RMA_EVENT)))
			ret = fi_mr_enable(st->mr[n]);
		if (ret)
			ft_perr("MR with a counter", ret);
		else
			*key = fi_mr_key(st->mr[n]);
	}
	if (!ret)
		*addr = ft_rma_addr(c, p, p);
	return ret;
}

/* The target area n holds fill except [off, off+len), which holds the
 * local bytes the client wrote (ft_fill(seed)). */
static int f_target_is(struct rma *r, int n, uint8_t fill, size_t off,
		       size_t len, uint64_t seed)
{
	const uint8_t *p = f_area(r, n);
	ssize_t bad;

	for (size_t i = 0; i < F_AREA; i++) {
		if (i == off && len) {
			bad = ft_check(p + off, len, seed);
			if (bad >= 0)
				return f_fail("%s: written byte %ld wrong%.0ld",
					      "target", (long)(off + bad), 0);
			i += len - 1;
			continue;
		}
		if (p[i] != fill)
			return f_fail("%s: byte %ld is 0x%02lx: changed",
				      "target", (long)i, p[i]);
	}
	return 0;
}

static uint8_t *f_local(struct rma *r, int n)
{
	return r->buf + (size_t)n * F_AREA;
}

static int f_wait(struct rma *r, struct ft_op *op, const char *what)
{
	int ret = ft_wait_op(&r->c, op);

	return ret ? ret : ft_op_check(op, what);
}

/* An operation that must fail with err (and, on uet, prov_errno rc). */
static int f_expect_err(struct rma *r, struct ft_op *op, int err, int rc,
			const char *what)
{
	int ret = ft_wait_op(&r->c, op);

	if (ret)
		return ret;
	if (!op->err)
		return f_fail("%s succeeded, want error %ld%.0ld", what, err,
			      0);
	if (f_is_uet(r) && (op->err != err || op->prov_errno != rc))
		return f_fail("%s: err %ld prov_errno 0x%lx", what, op->err,
			      op->prov_errno);
	if (r->c.opts.verbose)
		printf("#   %s failed as it must: %s\n", what, op->errstr);
	return 0;
}

static ssize_t f_write(struct rma *r, struct ft_op *op, void *buf,
		       size_t len, uint64_t addr, uint64_t key)
{
	ft_op_reset(op);
	return FT_POST(&r->c, fi_write(r->c.ep, buf, len, r->desc, r->c.peer,
				       addr, key, op));
}

static ssize_t f_read(struct rma *r, struct ft_op *op, void *buf, size_t len,
		      uint64_t addr, uint64_t key)
{
	ft_op_reset(op);
	return FT_POST(&r->c, fi_read(r->c.ep, buf, len, r->desc, r->c.peer,
				      addr, key, op));
}

#define F_TRY(x) do { ssize_t t_ = (x); if (t_) { \
	ft_perr(#x, (int)t_); return (int)t_; } } while (0)

/* -- setups -- */

static int f_setup_rw(struct rma *r, struct fstate *st, struct fdesc *d)
{
	st->fill = F_FILL_RW;
	memset(f_area(r, 0), st->fill, F_AREA);
	d->len = F_AREA;
	return f_reg(r, st, 0, 0, F_AREA, FI_REMOTE_READ | FI_REMOTE_WRITE,
		     NULL, &d->key, &d->addr);
}

/* -- write + read back, three call flavours -- */

static int f_run_write_read(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct ft_op op = { 0 };

	ft_fill(a, 4000, 1);
	memset(b, 0, 4000);
	F_TRY(f_write(r, &op, a, 4000, d->addr + 100, d->key));
	F_TRY(f_wait(r, &op, "fi_write"));
	if (!(op.comp.flags & FI_RMA) || !(op.comp.flags & FI_WRITE))
		return f_fail("%s: flags 0x%lx%.0ld", "fi_write completion",
			      (long)op.comp.flags, 0);
	F_TRY(f_read(r, &op, b, 4000, d->addr + 100, d->key));
	F_TRY(f_wait(r, &op, "fi_read"));
	if (!(op.comp.flags & FI_RMA) || !(op.comp.flags & FI_READ))
		return f_fail("%s: flags 0x%lx%.0ld", "fi_read completion",
			      (long)op.comp.flags, 0);
	return memcmp(a, b, 4000) ? f_fail("%s: %ld%.0ld", "read back", 0, 0)
				  : 0;
}

static int f_check_write_read(struct rma *r, struct fstate *st,
			      const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 100, 4000, 1);
}

static int f_run_vec(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	size_t lim = r->c.info->tx_attr->iov_limit, n = lim < 3 ? lim : 3;
	struct iovec wi[3] = {
		{ a, 10 }, { a + 10, 1000 }, { a + 1010, 3000 },
	};
	struct iovec ri[2] = { { b, 2000 }, { b + 2000, 2010 } };
	size_t len = 0;
	struct ft_op op = { 0 };

	for (size_t i = 0; i < n; i++)
		len += wi[i].iov_len;
	ft_fill(a, 4010, 2);
	memset(b, 0, 4010);
	ft_op_reset(&op);
	F_TRY(FT_POST(&r->c, fi_writev(r->c.ep, wi, NULL, n, r->c.peer,
				       d->addr + 7, d->key, &op)));
	F_TRY(f_wait(r, &op, "fi_writev"));
	ft_op_reset(&op);
	if (n == 1)
		ri[0].iov_len = len;
	F_TRY(FT_POST(&r->c, fi_readv(r->c.ep, ri, NULL, n < 2 ? 1 : 2,
				      r->c.peer, d->addr + 7, d->key, &op)));
	F_TRY(f_wait(r, &op, "fi_readv"));
	if (n == 3)	/* the check needs all 4010 bytes */
		return memcmp(a, b, 4010) ? f_fail("%s%ld%.0ld",
						   "readv data", 0, 0) : 0;
	return 0;
}

static int f_check_vec(struct rma *r, struct fstate *st, const struct fdesc *d)
{
	size_t lim = r->c.info->rx_attr->iov_limit;

	(void)d;
	if (lim < 3)
		return 0;
	return f_target_is(r, 0, st->fill, 7, 4010, 2);
}

static int f_run_msg_big(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct iovec iov = { a, F_BIG };
	struct fi_rma_iov rma = { d->addr + 4096, F_BIG, d->key };
	struct ft_op op = { 0 };
	struct fi_msg_rma m = {
		.msg_iov = &iov, .iov_count = 1, .addr = r->c.peer,
		.rma_iov = &rma, .rma_iov_count = 1, .context = &op,
	};

	ft_fill(a, F_BIG, 3);
	memset(b, 0, F_BIG);
	ft_op_reset(&op);
	F_TRY(FT_POST(&r->c, fi_writemsg(r->c.ep, &m, FI_COMPLETION)));
	F_TRY(f_wait(r, &op, "fi_writemsg"));
	iov.iov_base = b;
	ft_op_reset(&op);
	F_TRY(FT_POST(&r->c, fi_readmsg(r->c.ep, &m, FI_COMPLETION)));
	F_TRY(f_wait(r, &op, "fi_readmsg"));
	return memcmp(a, b, F_BIG) ? f_fail("%s%ld%.0ld", "readmsg data", 0,
					    0) : 0;
}

static int f_check_msg_big(struct rma *r, struct fstate *st,
			   const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 4096, F_BIG, 3);
}

/* -- inject, then a fenced read of the same bytes -- */

static int f_fenced_read(struct rma *r, void *buf, size_t len, uint64_t addr,
			 uint64_t key, struct ft_op *op)
{
	struct iovec iov = { buf, len };
	struct fi_rma_iov rma = { addr, len, key };
	struct fi_msg_rma m = {
		.msg_iov = &iov, .iov_count = 1, .addr = r->c.peer,
		.rma_iov = &rma, .rma_iov_count = 1, .context = op,
	};

	ft_op_reset(op);
	return FT_POST(&r->c, fi_readmsg(r->c.ep, &m,
					 FI_COMPLETION | FI_FENCE));
}

static int f_run_inject(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct ft_op op = { 0 };

	ft_fill(a, 64, 4);
	memset(b, 0, 64);
	F_TRY(FT_POST(&r->c, fi_inject_write(r->c.ep, a, 64, r->c.peer,
					     d->addr + 64, d->key)));
	memset(a, 0, 64);	/* ours again at once (FI_INJECT) */
	F_TRY(f_fenced_read(r, b, 64, d->addr + 64, d->key, &op));
	F_TRY(f_wait(r, &op, "fenced fi_readmsg"));
	ft_fill(a, 64, 4);
	return memcmp(a, b, 64) ? f_fail("%s%ld%.0ld",
					 "fenced read after inject", 0, 0) : 0;
}

static int f_check_inject(struct rma *r, struct fstate *st,
			  const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 64, 64, 4);
}

/* -- a big write and a fenced read posted back to back -- */

static int f_run_fence(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct ft_op w = { 0 }, rd = { 0 };

	ft_fill(a, 300000, 5);
	memset(b, 0, 300000);
	F_TRY(f_write(r, &w, a, 300000, d->addr, d->key));
	F_TRY(f_fenced_read(r, b, 300000, d->addr, d->key, &rd));
	F_TRY(f_wait(r, &w, "fi_write"));
	F_TRY(f_wait(r, &rd, "fenced fi_readmsg"));
	return memcmp(a, b, 300000) ? f_fail("%s%ld%.0ld",
					     "fenced read saw old data", 0,
					     0) : 0;
}

static int f_check_fence(struct rma *r, struct fstate *st,
			 const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 0, 300000, 5);
}

/* -- a big read and a fenced write of the same bytes: the read is served
 * from the target's memory packet by packet as the return direction
 * sends, so without the fence the write lands in the middle of it and
 * the read returns some of the new bytes (on loopback, every time) -- */

static int f_run_fence_war(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct iovec iov = { a, F_BIG };
	struct fi_rma_iov rma = { d->addr, F_BIG, d->key };
	struct ft_op w = { 0 }, rd = { 0 };
	struct fi_msg_rma m = {
		.msg_iov = &iov, .iov_count = 1, .addr = r->c.peer,
		.rma_iov = &rma, .rma_iov_count = 1, .context = &w,
	};
	size_t i;

	ft_fill(a, F_BIG, 12);
	memset(b, 0, F_BIG);
	F_TRY(f_read(r, &rd, b, F_BIG, d->addr, d->key));
	ft_op_reset(&w);
	F_TRY(FT_POST(&r->c, fi_writemsg(r->c.ep, &m,
					 FI_COMPLETION | FI_FENCE)));
	F_TRY(f_wait(r, &rd, "fi_read"));
	F_TRY(f_wait(r, &w, "fenced fi_writemsg"));
	for (i = 0; i < F_BIG; i++)
		if (b[i] != F_FILL_RW)
			return f_fail("%s: byte %ld is 0x%02lx: the fenced "
				      "write overtook the read", "read",
				      (long)i, b[i]);
	return 0;
}

static int f_check_fence_war(struct rma *r, struct fstate *st,
			     const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 0, F_BIG, 12);
}

/* -- remote CQ data -- */

static int f_run_writedata(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0);
	struct ft_op op = { 0 };

	ft_fill(a, 512, 6);
	ft_op_reset(&op);
	F_TRY(FT_POST(&r->c, fi_writedata(r->c.ep, a, 512, r->desc,
					  0x1122334455667788ull, r->c.peer,
					  d->addr + 1000, d->key, &op)));
	return f_wait(r, &op, "fi_writedata");
}

static int f_check_data(struct rma *r, uint64_t want)
{
	/* fi_cq.3 says FI_RMA too; tcp;ofi_rxm leaves it out */
	uint64_t f = FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA |
		     (f_is_uet(r) ? FI_RMA : 0);
	int ret = rma_wait_remote(r, 1);

	if (ret)
		return ret;
	if (r->nrx != 1 || r->rx_data[0] != want ||
	    (r->rx_flags[0] & f) != f)
		return f_fail("remote CQ entry: %s data 0x%lx flags 0x%lx",
			      "", (long)r->rx_data[0], (long)r->rx_flags[0]);
	return 0;
}

static int f_check_writedata(struct rma *r, struct fstate *st,
			     const struct fdesc *d)
{
	int ret = f_check_data(r, 0x1122334455667788ull);

	(void)d;
	return ret ? ret : f_target_is(r, 0, st->fill, 1000, 512, 6);
}

static int f_run_injectdata(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0);

	ft_fill(a, 48, 7);
	F_TRY(FT_POST(&r->c, fi_inject_writedata(r->c.ep, a, 48, 0xabcdef,
						 r->c.peer, d->addr + 5,
						 d->key)));
	return 0;
}

static int f_check_injectdata(struct rma *r, struct fstate *st,
			      const struct fdesc *d)
{
	int ret = f_check_data(r, 0xabcdef);

	(void)d;
	return ret ? ret : f_target_is(r, 0, st->fill, 5, 48, 7);
}

/* -- delivery complete: placed before the initiator hears of it -- */

static int f_run_delivery(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0);
	struct iovec iov = { a, 8192 };
	struct fi_rma_iov rma = { d->addr + 8192, 8192, d->key };
	struct ft_op op = { 0 };
	struct fi_msg_rma m = {
		.msg_iov = &iov, .iov_count = 1, .addr = r->c.peer,
		.rma_iov = &rma, .rma_iov_count = 1, .context = &op,
	};

	ft_fill(a, 8192, 8);
	ft_op_reset(&op);
	F_TRY(FT_POST(&r->c, fi_writemsg(r->c.ep, &m,
					 FI_COMPLETION |
					 FI_DELIVERY_COMPLETE)));
	return f_wait(r, &op, "FI_DELIVERY_COMPLETE write");
}

static int f_check_delivery(struct rma *r, struct fstate *st,
			    const struct fdesc *d)
{
	(void)d;
	return f_target_is(r, 0, st->fill, 8192, 8192, 8);
}

/* -- remote counters, endpoint-bound -- */

static int f_setup_cntr(struct rma *r, struct fstate *st, struct fdesc *d)
{
	int ret = f_setup_rw(r, st, d);

	st->w0 = fi_cntr_read(r->c.rcntr_write);
	st->r0 = fi_cntr_read(r->c.rcntr_read);
	return ret;
}

static int f_run_cntr(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0);
	struct ft_op op = { 0 };

	ft_fill(a, 3 * 256, 9);
	for (int i = 0; i < 3; i++) {
		F_TRY(f_write(r, &op, a + i * 256, 256, d->addr + i * 256,
			      d->key));
		F_TRY(f_wait(r, &op, "fi_write"));
	}
	for (int i = 0; i < 2; i++) {
		F_TRY(f_read(r, &op, f_local(r, 1), 256, d->addr, d->key));
		F_TRY(f_wait(r, &op, "fi_read"));
	}
	return 0;
}

static int f_cntr_is(struct rma *r, struct fid_cntr *cn, uint64_t want,
		     const char *what)
{
	uint64_t deadline = ft_deadline(&r->c), v;

	while ((v = fi_cntr_read(cn)) < want && ft_now_ns() < deadline)
		ft_progress(&r->c);
	if (v != want)
		return f_fail("%s counter: %ld, want %ld", what, (long)v,
			      (long)want);
	return 0;
}

static int f_check_cntr(struct rma *r, struct fstate *st,
			const struct fdesc *d)
{
	int ret = f_cntr_is(r, r->c.rcntr_write, st->w0 + 3, "FI_REMOTE_WRITE");

	(void)d;
	if (!ret)
		ret = f_cntr_is(r, r->c.rcntr_read, st->r0 + 2,
				"FI_REMOTE_READ");
	return ret ? ret : f_target_is(r, 0, st->fill, 0, 768, 9);
}

/* -- an MR's own counter -- */

static int f_setup_mr_cntr(struct rma *r, struct fstate *st, struct fdesc *d)
{
	struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
				   .wait_obj = FI_WAIT_UNSPEC };
	int ret;

	st->fill = 0x55;
	memset(f_area(r, 0), st->fill, F_AREA);
	memset(f_area(r, 1), st->fill, F_AREA);
	ret = fi_cntr_open(r->c.domain, &ca, &st->cntr, NULL);
	if (ret) {
		ft_perr("fi_cntr_open", ret);
		return ret;
	}
	d->len = d->len2 = 4096;
	ret = f_reg(r, st, 0, 0, 4096, FI_REMOTE_READ | FI_REMOTE_WRITE,
		    st->cntr, &d->key, &d->addr);
	if (!ret)
		ret = f_reg(r, st, 1, 0, 4096,
			    FI_REMOTE_READ | FI_REMOTE_WRITE, NULL, &d->key2,
			    &d->addr2);
	return ret;
}

static int f_run_mr_cntr(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0);
	struct ft_op op = { 0 };

	ft_fill(a, 4 * 100, 10);
	for (int i = 0; i < 4; i++) {
		F_TRY(f_write(r, &op, a + i * 100, 100, d->addr + i * 100,
			      d->key));
		F_TRY(f_wait(r, &op, "fi_write"));
	}
	for (int i = 0; i < 2; i++) {
		F_TRY(f_write(r, &op, a, 100, d->addr2, d->key2));
		F_TRY(f_wait(r, &op, "fi_write (other MR)"));
	}
	F_TRY(f_read(r, &op, f_local(r, 1), 100, d->addr, d->key));
	return f_wait(r, &op, "fi_read");
}

static int f_check_mr_cntr(struct rma *r, struct fstate *st,
			   const struct fdesc *d)
{
	(void)d;
	/* writes into this MR only; reads not asked for (FI_REMOTE_WRITE) */
	return f_cntr_is(r, st->cntr, 4, "MR FI_REMOTE_WRITE");
}

/* -- errors: each must fail and leave the target as it was -- */

static int f_check_untouched(struct rma *r, struct fstate *st,
			     const struct fdesc *d)
{
	int ret = f_target_is(r, 0, st->fill, 0, 0, 0);

	(void)d;
	return ret ? ret : f_target_is(r, 1, st->fill, 0, 0, 0);
}

static int f_setup_small(struct rma *r, struct fstate *st, struct fdesc *d,
			 uint64_t acc1, uint64_t acc2)
{
	int ret;

	st->fill = 0x66;
	memset(f_area(r, 0), st->fill, F_AREA);
	memset(f_area(r, 1), st->fill, F_AREA);
	d->len = d->len2 = 4096;
	ret = f_reg(r, st, 0, 0, 4096, acc1, NULL, &d->key, &d->addr);
	if (!ret && acc2)
		ret = f_reg(r, st, 1, 0, 4096, acc2, NULL, &d->key2,
			    &d->addr2);
	return ret;
}

static int f_setup_badkey(struct rma *r, struct fstate *st, struct fdesc *d)
{
	return f_setup_small(r, st, d, FI_REMOTE_READ | FI_REMOTE_WRITE, 0);
}

static int f_run_badkey(struct rma *r, const struct fdesc *d)
{
	uint64_t bad = d->key + 0x1000;
	struct ft_op op = { 0 };

	memset(f_local(r, 0), 0x99, 256);
	F_TRY(f_write(r, &op, f_local(r, 0), 256, d->addr, bad));
	F_TRY(f_expect_err(r, &op, FI_EKEYREJECTED, UET_RC_BAD_MKEY,
			   "write with an unknown key"));
	F_TRY(f_read(r, &op, f_local(r, 1), 256, d->addr, bad));
	return f_expect_err(r, &op, FI_EKEYREJECTED, UET_RC_BAD_MKEY,
			    "read with an unknown key");
}

static int f_run_range(struct rma *r, const struct fdesc *d)
{
	struct ft_op op = { 0 };

	memset(f_local(r, 0), 0x99, 512);
	/* straddles the end: nothing of it may land, not even the part
	 * inside the region */
	F_TRY(f_write(r, &op, f_local(r, 0), 512, d->addr + 4096 - 100,
		      d->key));
	F_TRY(f_expect_err(r, &op, FI_EFAULT, UET_RC_BAD_ADDR,
			   "write across the end of the region"));
	F_TRY(f_write(r, &op, f_local(r, 0), 16, d->addr + (1u << 20),
		      d->key));
	F_TRY(f_expect_err(r, &op, FI_EFAULT, UET_RC_BAD_ADDR,
			   "write far beyond the region"));
	F_TRY(f_read(r, &op, f_local(r, 1), 512, d->addr + 4000, d->key));
	return f_expect_err(r, &op, FI_EFAULT, UET_RC_BAD_ADDR,
			    "read across the end of the region");
}

static int f_setup_perm(struct rma *r, struct fstate *st, struct fdesc *d)
{
	/* region 1 read-only, region 2 write-only */
	return f_setup_small(r, st, d, FI_REMOTE_READ, FI_REMOTE_WRITE);
}

static int f_run_perm(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct ft_op op = { 0 };

	memset(a, 0x99, 256);
	F_TRY(f_write(r, &op, a, 256, d->addr, d->key));
	F_TRY(f_expect_err(r, &op, FI_EACCES, UET_RC_PERM_VIOLATION,
			   "write into a FI_REMOTE_READ-only region"));
	F_TRY(f_read(r, &op, b, 256, d->addr2, d->key2));
	F_TRY(f_expect_err(r, &op, FI_EACCES, UET_RC_PERM_VIOLATION,
			   "read from a FI_REMOTE_WRITE-only region"));
	/* and what each allows still works */
	memset(b, 0, 256);
	F_TRY(f_read(r, &op, b, 256, d->addr, d->key));
	F_TRY(f_wait(r, &op, "read from the read-only region"));
	for (int i = 0; i < 256; i++)
		if (b[i] != 0x66)
			return f_fail("%s: byte %ld is 0x%lx", "read-only data",
				      i, b[i]);
	ft_fill(a, 256, 11);
	F_TRY(f_write(r, &op, a, 256, d->addr2 + 256, d->key2));
	return f_wait(r, &op, "write into the write-only region");
}

static int f_check_perm(struct rma *r, struct fstate *st,
			const struct fdesc *d)
{
	int ret = f_target_is(r, 0, st->fill, 0, 0, 0);

	(void)d;
	return ret ? ret : f_target_is(r, 1, st->fill, 256, 256, 11);
}

static int f_setup_closed(struct rma *r, struct fstate *st, struct fdesc *d)
{
	int ret = f_setup_small(r, st, d, FI_REMOTE_READ | FI_REMOTE_WRITE, 0);

	/* gone before the client's requests can be served (we progress
	 * only after this returns) */
	ft_mr_close(st->mr[0]);
	st->mr[0] = NULL;
	return ret;
}

static int f_run_closed(struct rma *r, const struct fdesc *d)
{
	struct ft_op op = { 0 };

	memset(f_local(r, 0), 0x99, 128);
	F_TRY(f_write(r, &op, f_local(r, 0), 128, d->addr, d->key));
	return f_expect_err(r, &op, FI_EKEYREJECTED, UET_RC_BAD_MKEY,
			    "write into a closed region");
}

/* -- two regions, each written from its start: fabtests' fi_multi_mr,
 * which writes to address 0 whatever the mr_mode -- */

static int f_setup_two(struct rma *r, struct fstate *st, struct fdesc *d)
{
	return f_setup_small(r, st, d, FI_REMOTE_READ | FI_REMOTE_WRITE,
			     FI_REMOTE_READ | FI_REMOTE_WRITE);
}

static int f_run_two(struct rma *r, const struct fdesc *d)
{
	uint8_t *a = f_local(r, 0), *b = f_local(r, 1);
	struct ft_op op = { 0 };

	ft_fill(a, 4096, 21);
	ft_fill(b, 4096, 22);
	F_TRY(f_write(r, &op, a, 4096, d->addr, d->key));
	F_TRY(f_wait(r, &op, "fi_write to the first region's start"));
	F_TRY(f_write(r, &op, b, 4096, d->addr2, d->key2));
	return f_wait(r, &op, "fi_write to the second region's start");
}

static int f_check_two(struct rma *r, struct fstate *st,
		       const struct fdesc *d)
{
	int ret = f_target_is(r, 0, st->fill, 0, 4096, 21);

	(void)d;
	return ret ? ret : f_target_is(r, 1, st->fill, 0, 4096, 22);
}

/* -- the start of a region as the other mr_mode would name it (its
 * virtual address under offsets, 0 under FI_MR_VIRT_ADDR): an error
 * completion, not a wait -- */

static int f_setup_other(struct rma *r, struct fstate *st, struct fdesc *d)
{
	int ret = f_setup_small(r, st, d, FI_REMOTE_READ | FI_REMOTE_WRITE, 0);
	uint64_t va = (uint64_t)(uintptr_t)f_area(r, 0);

	d->addr2 = d->addr == va ? 0 : va;
	return ret;
}

static int f_run_other(struct rma *r, const struct fdesc *d)
{
	struct ft_op op = { 0 };

	memset(f_local(r, 0), 0x99, 64);
	F_TRY(f_write(r, &op, f_local(r, 0), 64, d->addr2, d->key));
	F_TRY(f_expect_err(r, &op, FI_EFAULT, UET_RC_BAD_ADDR,
			   "write addressed as the other mr_mode would"));
	F_TRY(f_read(r, &op, f_local(r, 1), 64, d->addr2, d->key));
	return f_expect_err(r, &op, FI_EFAULT, UET_RC_BAD_ADDR,
			    "read addressed as the other mr_mode would");
}

static const struct fcase f_cases[] = {
	{ "write_read", 0, f_setup_rw, f_run_write_read, f_check_write_read },
	{ "writev_readv", 0, f_setup_rw, f_run_vec, f_check_vec },
	{ "writemsg_readmsg_1MiB", 0, f_setup_rw, f_run_msg_big,
	  f_check_msg_big },
	{ "inject_write_fenced_read", FI_FENCE, f_setup_rw, f_run_inject,
	  f_check_inject },
	{ "fence_write_then_read", FI_FENCE, f_setup_rw, f_run_fence,
	  f_check_fence },
	{ "fence_read_then_write", FI_FENCE, f_setup_rw, f_run_fence_war,
	  f_check_fence_war },
	{ "writedata_remote_cq", 0, f_setup_rw, f_run_writedata,
	  f_check_writedata },
	{ "inject_writedata", 0, f_setup_rw, f_run_injectdata,
	  f_check_injectdata },
	{ "delivery_complete", 0, f_setup_rw, f_run_delivery,
	  f_check_delivery },
	{ "remote_counters_ep", FI_RMA_EVENT, f_setup_cntr, f_run_cntr,
	  f_check_cntr },
	{ "remote_counter_mr", FI_RMA_EVENT, f_setup_mr_cntr, f_run_mr_cntr,
	  f_check_mr_cntr },
	{ "err_bad_key", 0, f_setup_badkey, f_run_badkey, f_check_untouched },
	{ "err_out_of_range", 0, f_setup_badkey, f_run_range,
	  f_check_untouched },
	{ "err_no_permission", 0, f_setup_perm, f_run_perm, f_check_perm },
	{ "err_closed_region", 0, f_setup_closed, f_run_closed,
	  f_check_untouched },
	{ "two_regions_from_their_start", 0, f_setup_two, f_run_two,
	  f_check_two },
	{ "err_other_addressing", 0, f_setup_other, f_run_other,
	  f_check_untouched },
};
#define F_NCASES (sizeof(f_cases) / sizeof(f_cases[0]))

static int f_send_desc(struct ft_ctx *c, const struct fdesc *d)
{
	const uint64_t *v = &d->key;
	int ret = 0;

	for (int i = 0; i < FDESC_N && !ret; i++)
		ret = ft_oob_send_u64(c, v[i]);
	return ret;
}

static int f_recv_desc(struct ft_ctx *c, struct fdesc *d)
{
	uint64_t *v = &d->key;
	int ret = 0;

	for (int i = 0; i < FDESC_N && !ret; i++)
		ret = ft_oob_recv_u64_progress(c, &v[i]);
	return ret;
}

static int func_run(struct rma *r)
{
	struct ft_ctx *c = &r->c;
	bool client = ft_is_client(c);
	unsigned npass = 0, nfail = 0, nskip = 0;
	int ret = 0;

	c->on_remote = rma_on_remote;
	for (size_t i = 0; i < F_NCASES; i++) {
		const struct fcase *fc = &f_cases[i];
		struct fstate st = { 0 };
		struct fdesc d = { 0 };
		uint64_t mine = 0, theirs = 0;

		if ((fc->need & c->caps) != fc->need ||
		    ((fc->need & FI_RMA_EVENT) && !c->rcntr_write)) {
			printf("SKIP %s (needs %s)\n", fc->name,
			       fi_tostr(&fc->need, FI_TYPE_CAPS));
			nskip++;
			continue;
		}
		r->nrx = 0;
		if (client) {
			ret = f_recv_desc(c, &d);
			if (ret)
				break;
			mine = d.arg ? 1 : fc->run(r, &d) ? 1 : 0;
			ret = ft_oob_send_u64(c, mine);
			if (!ret)
				ret = ft_oob_recv_u64_progress(c, &theirs);
		} else {
			if (fc->setup(r, &st, &d))
				d.arg = 1;	/* setup failed: tell the client */
			ret = f_send_desc(c, &d);
			if (!ret)
				ret = ft_oob_recv_u64_progress(c, &theirs);
			if (!ret)
				mine = d.arg ? 1 : fc->check(r, &st, &d) ?
				       1 : 0;
			if (!ret)
				ret = ft_oob_send_u64(c, mine);
			ft_mr_close(st.mr[0]);
			ft_mr_close(st.mr[1]);
			if (st.cntr)
				fi_close(&st.cntr->fid);
		}
		if (ret)
			break;
		if (mine || theirs) {
			printf("FAIL %s (%s)\n", fc->name, mine && theirs ?
			       "both sides" : mine ? "this side" :
			       "the other side");
			nfail++;
		} else {
			printf("PASS %s\n", fc->name);
			npass++;
		}
		fflush(stdout);
	}
	c->on_remote = NULL;
	if (ret)
		return ret;
	printf("# %u passed, %u failed, %u skipped (%s)\n", npass, nfail,
	       nskip, client ? "initiator" : "target");
	return nfail ? -FI_EIO : 0;
}

/* ------------------------------------------------------------------ */

static int rma_run(struct rma *r)
{
	struct ft_ctx *c = &r->c;
	size_t maxmsg = c->info->ep_attr->max_msg_size, size, s;
	uint64_t i, n = r->p[P_NSIZES];
	uint64_t test = r->p[P_TEST];
	int ret;

	r->region = 8;
	for (i = 0; i < n; i++) {
		size = r->p[P_SIZES + i];
		s = test == T_BW ? size * bw_window(r, size) : size;
		if (size <= maxmsg && s > r->region)
			r->region = s;
	}
	/* bw: two sets at the target; lat: our two patterns and the
	 * landing area; func: two areas each side */
	r->buflen = test == T_FUNC ? 2 * F_AREA :
		    test == T_LAT ? 3 * r->region : 2 * r->region;
	r->buf = ft_alloc(r->buflen);
	if (!r->buf)
		return -FI_ENOMEM;
	memset(r->buf, 0, r->buflen);
	if (test == T_BW) {
		r->expect = ft_alloc(r->region);
		if (!r->expect)
			return -FI_ENOMEM;
	}
	ret = ft_mr_reg_rma(c, r->buf, r->buflen,
			    FI_READ | FI_WRITE | FI_REMOTE_READ |
			    FI_REMOTE_WRITE, &r->mr, &r->desc, &r->key);
	if (!ret)
		ret = rma_xchg_region(r, r->buf);
	if (ret)
		return ret;

	printf("# ft_rma: provider %s, fabric %s, domain %s, %s %s, mr_mode "
	       "%s, %s\n", c->info->fabric_attr->prov_name,
	       c->info->fabric_attr->name, c->info->domain_attr->name,
	       test_names[test], test == T_FUNC ? "" : op_names[r->p[P_OP]],
	       fi_tostr(&c->info->domain_attr->mr_mode, FI_TYPE_MR_MODE),
	       ft_is_client(c) ? "client (initiator)" : "server (target)");
	if (test == T_FUNC)
		return func_run(r);
	if (test == T_LAT && r->p[P_OP] == O_WRITE)
		printf("# writes seen arriving by %s\n", c->rcntr_write ?
		       "the FI_REMOTE_WRITE counter" : "watching the memory");
	if (ft_is_client(c)) {
		if (test == T_BW)
			printf("%10s %8s %6s %10s %12s %10s\n", "bytes",
			       "msgs", "window", "ms", "MB/s", "Kmsg/s");
		else
			printf("%10s %8s %10s %10s\n", "bytes", "iters",
			       "usec", "MB/s");
	}
	c->on_remote = rma_on_remote;
	for (i = 0; i < n; i++) {
		size = r->p[P_SIZES + i];
		if (size > maxmsg) {
			printf("# %zu bytes: above max_msg_size %zu, skipped\n",
			       size, maxmsg);
			continue;
		}
		if (test == T_LAT)
			ret = lat_size(r, size);
		else if (ft_is_client(c))
			ret = bw_client_size(r, size, i == 0);
		else
			ret = bw_server_size(r, size, i == 0);
		if (ret) {
			fprintf(stderr, "ft_rma: failed at %zu bytes\n", size);
			return ret;
		}
	}
	c->on_remote = NULL;
	return ft_oob_sync(c);
}

int main(int argc, char **argv)
{
	struct rma *r = calloc(1, sizeof(*r));
	bool lat_write;
	uint64_t need;
	int ret;

	if (!r)
		return EXIT_FAILURE;
	g_rma = r;
	ft_ctx_init(&r->c);
	r->p[P_WINDOW] = 64;
	r->p[P_ITERS] = 0;
	ft_parse_sizes_param("ft_rma", "all", &r->p[P_NSIZES], &r->p[P_SIZES]);

	if (argc == 2 && !strcmp(argv[1], "-l")) {
		for (size_t i = 0; i < F_NCASES; i++)
			printf("%s\n", f_cases[i].name);
		free(r);
		return EXIT_SUCCESS;
	}
	ret = ft_parse_args(&r->c.opts, argc, argv, "o:t:M:S:w:I:Z:b", rma_opt,
			    r);
	if (ret) {
		rma_usage();
		free(r);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (!r->p[P_ITERS])
		r->p[P_ITERS] = r->p[P_TEST] == T_LAT ? 1000 : 100;
	if (r->c.opts.ep_type != FI_EP_RDM) {
		fprintf(stderr, "ft_rma: needs a reliable endpoint (-e rdm)\n");
		free(r);
		return EXIT_FAILURE;
	}
	ret = ft_oob_start(&r->c);
	if (!ret)
		ret = ft_oob_share(&r->c, r->p, P_COUNT);
	if (!ret) {
		switch (r->p[P_MODE]) {
		case M_SCALABLE:
			r->c.mr_mode_set = true;
			r->c.mr_mode = FI_MR_LOCAL;
			break;
		case M_ENDPOINT:
			r->c.force_mr_endpoint = true;
			break;
		}
		/* func tests them; write latency sees writes arrive by
		 * the FI_REMOTE_WRITE counter where there is one */
		lat_write = r->p[P_TEST] == T_LAT && r->p[P_OP] == O_WRITE;
		r->c.want_rma_cntrs = r->p[P_TEST] == T_FUNC || lat_write;
		need = FI_RMA | FI_READ | FI_WRITE | FI_REMOTE_READ |
		       FI_REMOTE_WRITE;
		ret = ft_getinfo(&r->c, need, r->p[P_TEST] == T_FUNC ?
				 FI_RMA_EVENT | FI_FENCE :
				 lat_write ? FI_RMA_EVENT : 0);
	}
	if (!ret)
		ret = ft_open(&r->c);
	if (!ret)
		ret = ft_oob_xchg_names(&r->c);
	if (!ret)
		ret = rma_run(r);

	ft_mr_close(r->mr);
	ft_close(&r->c);
	free(r->buf);
	free(r->expect);
	free(r);
	if (ret)
		fprintf(stderr, "ft_rma: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
