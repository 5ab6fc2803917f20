/*
 * ft_incast: N clients, each its own process and endpoint, stream into
 * one server endpoint at the same moment, the traffic pattern that fills
 * a switch queue in front of a receiver. Every client sends B bytes in
 * messages of S bytes with W sends in flight; the server checks every
 * byte of every message and reports each client's goodput and completion
 * time, the aggregate, and Jain's fairness index over the clients.
 *
 * Rendezvous: client r reaches the server's out-of-band TCP socket on
 * port P+r (-P P) or through the port file FILE.r (-f FILE); the server
 * listens for the clients one after the other, swaps endpoint names with
 * each, and starts them all together once every one is in.
 *
 * A message starts with a 24-byte header (magic and rank, sequence
 * number, length, big-endian); the rest is ft_fill()'s pattern for that
 * (rank, sequence), so a message delivered twice, to the wrong place or
 * from a stale buffer fails the check.
 */
#define _GNU_SOURCE
#include "common.h"

#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define INC_MAGIC	0x494e4331ull		/* "INC1" */
#define INC_HDR		24
#define INC_TAG		0x1c40000ull		/* | client rank */
#define INC_RANK_MASK	0xffffull
#define INC_MAX_CLIENTS	64			/* ft_open's AV holds 64 */
#define INC_MAX_WINDOW	512
#define INC_MAX_RX	512			/* CQ of 1024 entries */
#define INC_RX_BUDGET	(64u << 20)		/* bytes of posted receives */
#define INC_GO		0x474full
#define INC_SEC		1000000000ull

/* What a client tells the server; all but P_RANK must agree. */
enum {
	P_RANK,
	P_CLIENTS,
	P_BYTES,
	P_SIZE,
	P_WINDOW,
	P_TAGGED,
	P_CORRUPT,
	P_COUNT
};

struct inc_slot {
	struct ft_op op;		/* first: completions come back here */
	uint8_t *buf;
	bool busy;
	uint64_t built;			/* client: 1 + the sequence it holds */
};

/* The server's view of one client. */
struct inc_peer {
	int fd;				/* its out-of-band socket */
	fi_addr_t addr;
	uint64_t msgs, bytes;
	uint64_t done_ns;		/* its last message, from the start */
	uint64_t bytes_at_first;	/* when the first client finished */
	uint64_t client_ns;		/* its own send time, as it measured */
	uint8_t *seen;			/* [seq] */
};

struct inc {
	struct ft_ctx c;
	uint64_t p[P_COUNT];
	uint64_t nmsgs;			/* per client */
	int rx_depth;			/* -R, server */
	struct inc_slot *slot;
	int nslots;
	uint8_t *mem;
	uint8_t *expect;		/* server: one message's pattern */
	struct fid_mr *mr;
	void *desc;
	/* Slots completed, not yet handled: a ring of nslots, enough as a
	 * slot completes again only after it was taken and reposted. */
	int *ready;
	int rhead, nready;
	/* server */
	struct inc_peer *peer;
	uint64_t posted, got, start;
	int finished;
	/* client */
	uint64_t sent, done;
};

/* ------------------------------------------------------------------ */
/* options */

static void inc_usage(void)
{
	fprintf(stderr,
		"Usage: ft_incast [options] -n N                  (server: receives)\n"
		"       ft_incast [options] -n N -r RANK HOST     (client RANK: sends)\n"
		"N clients stream into one server at once; every byte is checked.\n"
		"The server takes the clients' -b/-S/-w/-m/-Z (they must agree).\n"
		"  -n N        clients (4, at most 64)\n"
		"  -r RANK     client: which one, 0..N-1 (0)\n"
		"  -b BYTES    bytes each client sends (64m), rounded up to whole\n"
		"              messages\n"
		"  -S BYTES    message size (64k, at least 24)\n"
		"  -w N        client: sends in flight (16, at most 512)\n"
		"  -R N        server: receives posted (2 x N x window, at most 512\n"
		"              and 64 MiB)\n"
		"  -m MODE     msg (default) or tagged (the tag carries the rank)\n"
		"  -Z K        client 0 corrupts its K-th message (tests the check)\n"
		"  -P PORT     client r uses out-of-band port PORT+r\n"
		"  -f FILE     client r uses the port file FILE.r (the server writes\n"
		"              them one by one, as it gets to each client)\n"
		"The server prints one line per client (bytes, messages, completion\n"
		"time at the server and at the client, MB/s), the aggregate MB/s and\n"
		"Jain's index over the clients' MB/s and over their bytes received\n"
		"when the first client finished.\n");
	ft_usage_common();
}

static int inc_opt(void *arg, int opt, const char *optarg)
{
	struct inc *s = arg;
	size_t v;

	switch (opt) {
	case 'n':
		s->p[P_CLIENTS] = strtoull(optarg, NULL, 0);
		return s->p[P_CLIENTS] >= 1 &&
		       s->p[P_CLIENTS] <= INC_MAX_CLIENTS ? 0 : -1;
	case 'r':
		s->p[P_RANK] = strtoull(optarg, NULL, 0);
		return 0;
	case 'b':
		if (ft_parse_size(optarg, &v) || !v)
			return -1;
		s->p[P_BYTES] = v;
		return 0;
	case 'S':
		if (ft_parse_size(optarg, &v) || v < INC_HDR)
			return -1;
		s->p[P_SIZE] = v;
		return 0;
	case 'w':
		s->p[P_WINDOW] = strtoull(optarg, NULL, 0);
		return s->p[P_WINDOW] && s->p[P_WINDOW] <= INC_MAX_WINDOW ?
		       0 : -1;
	case 'R':
		s->rx_depth = atoi(optarg);
		return s->rx_depth > 0 && s->rx_depth <= INC_MAX_RX ? 0 : -1;
	case 'm':
		if (strcmp(optarg, "msg") && strcmp(optarg, "tagged"))
			return -1;
		s->p[P_TAGGED] = !strcmp(optarg, "tagged");
		return 0;
	case 'Z':
		s->p[P_CORRUPT] = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

/* ------------------------------------------------------------------ */
/* messages */

static uint64_t inc_seed(uint64_t rank, uint64_t seq)
{
	return ft_mix64(rank << 48 ^ seq ^ INC_MAGIC);
}

static void inc_build(const struct inc *s, uint8_t *buf, uint64_t seq)
{
	uint64_t rank = s->p[P_RANK];
	size_t len = s->p[P_SIZE];

	ft_put_be64(buf, INC_MAGIC << 32 | rank);
	ft_put_be64(buf + 8, seq);
	ft_put_be64(buf + 16, len);
	ft_fill(buf + INC_HDR, len - INC_HDR, inc_seed(rank, seq));
}

/*
 * -1 if buf holds the pattern, else the first wrong offset. Filling the
 * expected bytes and comparing is several times faster than ft_check()
 * (10 against 75 us for 64 KiB), which then only locates a difference.
 */
static ssize_t inc_compare(const struct inc *s, const uint8_t *buf,
			   size_t len, uint64_t seed)
{
	ft_fill(s->expect, len, seed);
	if (!memcmp(buf, s->expect, len))
		return -1;
	return ft_check(buf, len, seed);
}

/* Server: the client a message came from, or -1 (said why) if it is bad. */
static int inc_check(struct inc *s, const struct inc_slot *sl)
{
	const uint8_t *b = sl->buf;
	size_t len = sl->op.comp.len, want = s->p[P_SIZE];
	uint64_t w0, rank, seq;
	ssize_t off;

	if (sl->op.err) {
		fprintf(stderr, "%s: receive failed: %s\n", ft_prog,
			sl->op.errstr);
		return -1;
	}
	if (len != want) {
		fprintf(stderr, "%s: a %zu-byte message, want %zu\n", ft_prog,
			len, want);
		return -1;
	}
	w0 = ft_get_be64(b);
	rank = w0 & 0xffffffffull;
	seq = ft_get_be64(b + 8);
	if (w0 >> 32 != INC_MAGIC || rank >= s->p[P_CLIENTS] ||
	    seq >= s->nmsgs || ft_get_be64(b + 16) != len) {
		fprintf(stderr, "%s: bad header: magic %08" PRIx64 " rank %"
			PRIu64 " seq %" PRIu64 " len %" PRIu64 "\n", ft_prog,
			w0 >> 32, rank, seq, ft_get_be64(b + 16));
		return -1;
	}
	if (s->p[P_TAGGED] && sl->op.comp.tag != (INC_TAG | rank)) {
		fprintf(stderr, "%s: client %" PRIu64 " seq %" PRIu64 ": tag 0x%"
			PRIx64 "\n", ft_prog, rank, seq, sl->op.comp.tag);
		return -1;
	}
	off = inc_compare(s, b + INC_HDR, len - INC_HDR, inc_seed(rank, seq));
	if (off >= 0) {
		fprintf(stderr, "%s: client %" PRIu64 " seq %" PRIu64 ": data "
			"differs at offset %zd\n", ft_prog, rank, seq,
			off + INC_HDR);
		return -1;
	}
	if (s->peer[rank].seen[seq]++) {
		fprintf(stderr, "%s: client %" PRIu64 " seq %" PRIu64 ": "
			"received twice\n", ft_prog, rank, seq);
		return -1;
	}
	return (int)rank;
}

/* ------------------------------------------------------------------ */
/* buffers and completions */

static void inc_on_comp(struct ft_op *op)
{
	struct inc *s = op->user;

	s->ready[(s->rhead + s->nready++) % s->nslots] = (int)op->id;
}

static struct inc_slot *inc_pop(struct inc *s)
{
	struct inc_slot *sl = &s->slot[s->ready[s->rhead]];

	s->rhead = (s->rhead + 1) % s->nslots;
	s->nready--;
	return sl;
}

static int inc_slots(struct inc *s, int n)
{
	size_t size = s->p[P_SIZE];
	int i;

	s->nslots = n;
	s->slot = calloc((size_t)n, sizeof(*s->slot));
	s->ready = calloc((size_t)n, sizeof(*s->ready));
	s->mem = ft_alloc((size_t)n * size);
	if (!s->slot || !s->ready || !s->mem)
		return -FI_ENOMEM;
	for (i = 0; i < n; i++) {
		s->slot[i].buf = s->mem + (size_t)i * size;
		s->slot[i].op.on_comp = inc_on_comp;
		s->slot[i].op.user = s;
		s->slot[i].op.id = (uint64_t)i;
	}
	return ft_mr_reg(&s->c, s->mem, (size_t)n * size, &s->mr, &s->desc);
}

/* An out-of-band socket at end of file: that process has exited. */
static bool inc_fd_closed(int fd)
{
	char b;

	return fd >= 0 && recv(fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/* ------------------------------------------------------------------ */
/* server */

/* Client k's rendezvous: port P+k, or the port file FILE.k. */
static void inc_oob_target(const struct ft_opts *fo, uint64_t k,
			   struct ft_opts *o, char *file, size_t flen)
{
	*o = *fo;
	if (fo->oob_port)
		o->oob_port = fo->oob_port + (int)k;
	if (fo->port_file) {
		snprintf(file, flen, "%s.%" PRIu64, fo->port_file, k);
		o->port_file = file;
	}
}

static int inc_agree(struct inc *s, const uint64_t *v, uint64_t k)
{
	static const char *const what[P_COUNT] = {
		"rank", "-n", "-b", "-S", "-w", "-m", "-Z",
	};
	int i;

	if (v[P_RANK] != k) {
		fprintf(stderr, "%s: client on rendezvous %" PRIu64 " says it "
			"is rank %" PRIu64 "\n", ft_prog, k, v[P_RANK]);
		return -FI_EINVAL;
	}
	for (i = P_CLIENTS; i < P_COUNT; i++) {
		if (i == P_CORRUPT || v[i] == s->p[i] || (!k && i != P_CLIENTS))
			continue;
		fprintf(stderr, "%s: client %" PRIu64 " has %s %" PRIu64
			", %s %" PRIu64 "\n", ft_prog, k, what[i], v[i],
			k ? "client 0" : "the server", s->p[i]);
		return -FI_EINVAL;
	}
	if (!k)
		memcpy(s->p, v, sizeof(s->p));
	s->p[P_RANK] = 0;
	return 0;
}

/* Every client, one after the other: its socket, then its parameters. */
static int inc_accept_all(struct inc *s)
{
	struct ft_opts saved = s->c.opts;
	uint64_t k, n = s->p[P_CLIENTS], v[P_COUNT];
	char file[4096];
	int ret = 0;

	if (n > 1 && !saved.oob_port && !saved.port_file) {
		fprintf(stderr, "%s: %" PRIu64 " clients need -P PORT or -f "
			"FILE\n", ft_prog, n);
		return -FI_EINVAL;
	}
	/* A port file of an earlier run would send a client to a dead port. */
	for (k = 0; saved.port_file && k < n; k++) {
		inc_oob_target(&saved, k, &s->c.opts, file, sizeof(file));
		unlink(file);
	}
	for (k = 0; k < n && !ret; k++) {
		inc_oob_target(&saved, k, &s->c.opts, file, sizeof(file));
		ret = ft_oob_start(&s->c);
		if (saved.port_file)
			unlink(file);	/* used up */
		if (!ret)
			ret = ft_oob_share(&s->c, v, P_COUNT);
		s->peer[k].fd = s->c.oob_fd;
		s->c.oob_fd = -1;
		if (!ret)
			ret = inc_agree(s, v, k);
	}
	s->c.opts = saved;
	return ret;
}

/* The common out-of-band calls talk to c.oob_fd: point it at client k. */
static void inc_use_peer(struct inc *s, uint64_t k)
{
	s->c.oob_fd = s->peer[k].fd;
}

static int inc_post_recv(struct inc *s, struct inc_slot *sl)
{
	struct ft_ctx *c = &s->c;
	size_t size = s->p[P_SIZE];
	ssize_t ret;

	ft_op_reset(&sl->op);
	if (s->p[P_TAGGED])
		ret = FT_POST(c, fi_trecv(c->ep, sl->buf, size, s->desc,
					  FI_ADDR_UNSPEC, INC_TAG,
					  INC_RANK_MASK, &sl->op));
	else
		ret = FT_POST(c, fi_recv(c->ep, sl->buf, size, s->desc,
					 FI_ADDR_UNSPEC, &sl->op));
	if (ret) {
		ft_perr("receive", (int)ret);
		return (int)ret;
	}
	sl->busy = true;
	s->posted++;
	return 0;
}

/* When the first client is done, how far every other one had got. */
static void inc_first_done(struct inc *s)
{
	uint64_t k;

	for (k = 0; k < s->p[P_CLIENTS]; k++)
		s->peer[k].bytes_at_first = s->peer[k].bytes;
}

static int inc_take(struct inc *s, struct inc_slot *sl, uint64_t now)
{
	struct inc_peer *p;
	int rank;

	sl->busy = false;
	rank = inc_check(s, sl);
	if (rank < 0)
		return -FI_EIO;
	p = &s->peer[rank];
	p->msgs++;
	p->bytes += sl->op.comp.len;
	s->got++;
	if (p->msgs == s->nmsgs) {
		p->done_ns = now - s->start;
		if (!s->finished++)
			inc_first_done(s);
	}
	if (s->posted < s->nmsgs * s->p[P_CLIENTS])
		return inc_post_recv(s, sl);
	return 0;
}

static void inc_report_missing(const struct inc *s)
{
	uint64_t k;

	fprintf(stderr, "%s: received %" PRIu64 " of %" PRIu64 " messages:",
		ft_prog, s->got, s->nmsgs * s->p[P_CLIENTS]);
	for (k = 0; k < s->p[P_CLIENTS]; k++)
		fprintf(stderr, " client %" PRIu64 " %" PRIu64, k,
			s->peer[k].msgs);
	fprintf(stderr, "\n");
}

/* Some client's out-of-band socket closed: it gave up (or crashed). */
static bool inc_client_gone(const struct inc *s)
{
	uint64_t k;

	for (k = 0; k < s->p[P_CLIENTS]; k++) {
		if (inc_fd_closed(s->peer[k].fd)) {
			fprintf(stderr, "%s: client %" PRIu64 " exited before "
				"it was done\n", ft_prog, k);
			return true;
		}
	}
	return false;
}

/* Every message of every client, each checked as it comes. */
static int inc_receive_all(struct inc *s)
{
	uint64_t total = s->nmsgs * s->p[P_CLIENTS], last;
	uint64_t limit = (uint64_t)s->c.opts.timeout_s * INC_SEC;
	unsigned idle = 0;
	int ret;

	last = ft_now_ns();
	while (s->got < total) {
		ret = ft_progress(&s->c);
		if (ret < 0)
			return ret;
		if (!s->nready) {
			sched_yield();
			if (++idle % 256)
				continue;
			if (inc_client_gone(s))
				return -FI_ECONNRESET;
			if (ft_now_ns() - last > limit) {
				fprintf(stderr, "%s: nothing for %d s\n",
					ft_prog, s->c.opts.timeout_s);
				inc_report_missing(s);
				return -FI_ETIMEDOUT;
			}
			continue;
		}
		last = ft_now_ns();
		idle = 0;
		/* The engine runs only inside progress calls (ACKs, RCCC
		 * credit): one between checks, not one per batch. */
		while (s->nready) {
			ret = inc_take(s, inc_pop(s), ft_now_ns());
			if (!ret)
				ret = ft_progress(&s->c);
			if (ret < 0)
				return ret;
		}
	}
	return 0;
}

static double inc_jain(const double *x, uint64_t n)
{
	double sum = 0, sq = 0;
	uint64_t i;

	for (i = 0; i < n; i++) {
		sum += x[i];
		sq += x[i] * x[i];
	}
	return sq > 0 ? sum * sum / ((double)n * sq) : 0;
}

static void inc_print(const struct inc *s)
{
	uint64_t k, n = s->p[P_CLIENTS], last = 0, bytes = 0;
	double gp[INC_MAX_CLIENTS], first[INC_MAX_CLIENTS], first_ms = 1e300;

	printf("%6s %12s %8s %10s %10s %10s\n", "client", "bytes", "msgs",
	       "done_ms", "client_ms", "MB/s");
	for (k = 0; k < n; k++) {
		const struct inc_peer *p = &s->peer[k];

		gp[k] = (double)p->bytes / (p->done_ns / 1e3);
		first[k] = (double)p->bytes_at_first;
		if (p->done_ns > last)
			last = p->done_ns;
		if (p->done_ns / 1e6 < first_ms)
			first_ms = p->done_ns / 1e6;
		bytes += p->bytes;
		printf("%6" PRIu64 " %12" PRIu64 " %8" PRIu64 " %10.2f %10.2f "
		       "%10.2f\n", k, p->bytes, p->msgs, p->done_ns / 1e6,
		       p->client_ns / 1e6, gp[k]);
	}
	printf("# aggregate: %.2f MB/s (%" PRIu64 " bytes in %.2f ms); jain "
	       "%.4f over MB/s, %.4f over bytes when the first client "
	       "finished (%.2f ms)\n", (double)bytes / (last / 1e3), bytes,
	       last / 1e6, inc_jain(gp, n), inc_jain(first, n), first_ms);
	printf("# verified: %" PRIu64 " messages, %" PRIu64 " bytes, every "
	       "byte checked\n", s->got, bytes);
}

/* The clients' own times, then each one hears that its data was good. */
static int inc_server_finish(struct inc *s)
{
	uint64_t k;
	int ret = 0;

	for (k = 0; k < s->p[P_CLIENTS] && !ret; k++) {
		inc_use_peer(s, k);
		ret = ft_oob_recv_u64(&s->c, &s->peer[k].client_ns);
		if (!ret)
			ret = ft_oob_send_u64(&s->c, 0);
	}
	s->c.oob_fd = -1;
	return ret;
}

static int inc_server(struct inc *s)
{
	struct ft_ctx *c = &s->c;
	uint64_t k, n = s->p[P_CLIENTS], total;
	int ret, i, depth;

	s->peer = calloc(n, sizeof(*s->peer));
	if (!s->peer)
		return -FI_ENOMEM;
	for (k = 0; k < n; k++)
		s->peer[k].fd = -1;
	ret = inc_accept_all(s);
	if (!ret)
		ret = ft_getinfo(c, s->p[P_TAGGED] ? FI_TAGGED : FI_MSG, 0);
	if (!ret)
		ret = ft_open(c);
	for (k = 0; !ret && k < n; k++) {
		inc_use_peer(s, k);
		ret = ft_oob_xchg_names(c);
		s->peer[k].addr = c->peer;
	}
	c->oob_fd = -1;
	if (ret)
		return ret;
	s->nmsgs = (s->p[P_BYTES] + s->p[P_SIZE] - 1) / s->p[P_SIZE];
	total = s->nmsgs * n;
	depth = s->rx_depth;
	if (!depth) {
		depth = (int)(2 * n * s->p[P_WINDOW]);
		if (depth > INC_MAX_RX)
			depth = INC_MAX_RX;
		if ((uint64_t)depth * s->p[P_SIZE] > INC_RX_BUDGET)
			depth = (int)(INC_RX_BUDGET / s->p[P_SIZE]);
		if (depth < 1)
			depth = 1;
	}
	if ((uint64_t)depth > total)
		depth = (int)total;
	for (k = 0; k < n; k++) {
		s->peer[k].seen = calloc(s->nmsgs, 1);
		if (!s->peer[k].seen)
			return -FI_ENOMEM;
	}
	ret = inc_slots(s, depth);
	s->expect = ft_alloc(s->p[P_SIZE]);
	if (!ret && !s->expect)
		ret = -FI_ENOMEM;
	for (i = 0; !ret && i < depth; i++)
		ret = inc_post_recv(s, &s->slot[i]);
	if (ret)
		return ret;

	printf("# ft_incast: provider %s, domain %s, %" PRIu64 " clients x %"
	       PRIu64 " bytes (%" PRIu64 " messages of %" PRIu64 " bytes), "
	       "window %" PRIu64 ", %d receives posted, %s\n",
	       c->info->fabric_attr->prov_name, c->info->domain_attr->name,
	       n, s->nmsgs * s->p[P_SIZE], s->nmsgs, s->p[P_SIZE],
	       s->p[P_WINDOW], depth, s->p[P_TAGGED] ? "tagged" : "msg");
	/* Everyone is ready: start them as close together as we can. */
	s->start = ft_now_ns();
	for (k = 0; !ret && k < n; k++) {
		inc_use_peer(s, k);
		ret = ft_oob_send_u64(c, INC_GO);
	}
	c->oob_fd = -1;
	if (!ret)
		ret = inc_receive_all(s);
	if (!ret)
		ret = inc_server_finish(s);
	if (!ret)
		inc_print(s);
	return ret;
}

/* ------------------------------------------------------------------ */
/* client */

static void inc_corrupt(struct inc *s, uint8_t *buf, uint64_t seq)
{
	if (s->p[P_RANK] || seq + 1 != s->p[P_CORRUPT])
		return;
	buf[s->p[P_SIZE] - 1] ^= 0x10;
	fprintf(stderr, "%s: corrupting message %" PRIu64 " on purpose "
		"(-Z)\n", ft_prog, s->p[P_CORRUPT]);
}

/* 1: posted, 0: the provider is busy (try later), < 0: error. */
static int inc_post_send(struct inc *s, struct inc_slot *sl)
{
	struct ft_ctx *c = &s->c;
	size_t size = s->p[P_SIZE];
	ssize_t ret;

	/* Built once: a send the provider refused keeps its content. */
	if (sl->built != s->sent + 1) {
		inc_build(s, sl->buf, s->sent);
		inc_corrupt(s, sl->buf, s->sent);
		sl->built = s->sent + 1;
	}
	ft_op_reset(&sl->op);
	if (s->p[P_TAGGED])
		ret = fi_tsend(c->ep, sl->buf, size, s->desc, c->peer,
			       INC_TAG | s->p[P_RANK], &sl->op);
	else
		ret = fi_send(c->ep, sl->buf, size, s->desc, c->peer,
			      &sl->op);
	if (ret == -FI_EAGAIN)
		return 0;
	if (ret) {
		ft_perr("send", (int)ret);
		return (int)ret;
	}
	sl->busy = true;
	s->sent++;
	return 1;
}

static int inc_send_done(struct inc *s)
{
	struct inc_slot *sl;

	while (s->nready) {
		sl = inc_pop(s);
		if (sl->op.err) {
			fprintf(stderr, "%s: send failed: %s\n", ft_prog,
				sl->op.errstr);
			return -FI_EIO;
		}
		sl->busy = false;
		s->done++;
	}
	return 0;
}

static int inc_send_all(struct inc *s)
{
	uint64_t limit = (uint64_t)s->c.opts.timeout_s * INC_SEC;
	uint64_t last = ft_now_ns();
	unsigned idle = 0;
	int i, ret;

	while (s->done < s->nmsgs) {
		for (i = 0; i < s->nslots && s->sent < s->nmsgs; i++) {
			if (s->slot[i].busy)
				continue;
			ret = inc_post_send(s, &s->slot[i]);
			if (ret < 0)
				return ret;
			if (!ret)
				break;
		}
		ret = ft_progress(&s->c);
		if (ret < 0)
			return ret;
		if (s->nready) {
			ret = inc_send_done(s);
			if (ret)
				return ret;
			last = ft_now_ns();
			idle = 0;
			continue;
		}
		sched_yield();
		if (++idle % 256)
			continue;
		if (inc_fd_closed(s->c.oob_fd)) {
			fprintf(stderr, "%s: the server exited (see its "
				"output)\n", ft_prog);
			return -FI_ECONNRESET;
		}
		if (ft_now_ns() - last > limit) {
			fprintf(stderr, "%s: no send completed for %d s: %"
				PRIu64 " of %" PRIu64 " done\n", ft_prog,
				s->c.opts.timeout_s, s->done, s->nmsgs);
			return -FI_ETIMEDOUT;
		}
	}
	return 0;
}

static int inc_client(struct inc *s)
{
	struct ft_ctx *c = &s->c;
	uint64_t go, status, t0, ns;
	char file[4096];
	int ret;

	if (s->p[P_RANK] >= s->p[P_CLIENTS]) {
		fprintf(stderr, "%s: -r %" PRIu64 " with -n %" PRIu64 "\n",
			ft_prog, s->p[P_RANK], s->p[P_CLIENTS]);
		return -FI_EINVAL;
	}
	inc_oob_target(&c->opts, s->p[P_RANK], &c->opts, file, sizeof(file));
	ret = ft_oob_start(c);
	if (!ret)
		ret = ft_oob_share(c, s->p, P_COUNT);
	if (!ret)
		ret = ft_getinfo(c, s->p[P_TAGGED] ? FI_TAGGED : FI_MSG, 0);
	if (!ret)
		ret = ft_open(c);
	if (!ret)
		ret = ft_oob_xchg_names(c);
	s->nmsgs = (s->p[P_BYTES] + s->p[P_SIZE] - 1) / s->p[P_SIZE];
	if (!ret)
		ret = inc_slots(s, (int)(s->p[P_WINDOW] < s->nmsgs ?
					 s->p[P_WINDOW] : s->nmsgs));
	if (!ret)
		ret = ft_oob_recv_u64(c, &go);
	if (ret)
		return ret;
	if (go != INC_GO) {
		fprintf(stderr, "%s: the server said %" PRIu64 ", not go\n",
			ft_prog, go);
		return -FI_EIO;
	}
	t0 = ft_now_ns();
	ret = inc_send_all(s);
	ns = ft_now_ns() - t0;
	if (!ret)
		ret = ft_oob_send_u64(c, ns);
	if (!ret)
		ret = ft_oob_recv_u64(c, &status);
	if (ret)
		return ret;
	printf("# ft_incast client %" PRIu64 ": %" PRIu64 " bytes in %" PRIu64
	       " messages, %.2f ms, %.2f MB/s, %s\n", s->p[P_RANK],
	       s->nmsgs * s->p[P_SIZE], s->nmsgs, ns / 1e6,
	       (double)(s->nmsgs * s->p[P_SIZE]) / (ns / 1e3),
	       status ? "the server found bad data" : "verified by the server");
	return status ? -FI_EIO : 0;
}

int main(int argc, char **argv)
{
	struct inc *s = calloc(1, sizeof(*s));
	uint64_t k;
	int ret;

	if (!s)
		return EXIT_FAILURE;
	ft_ctx_init(&s->c);
	s->p[P_CLIENTS] = 4;
	s->p[P_BYTES] = 64u << 20;
	s->p[P_SIZE] = 64u << 10;
	s->p[P_WINDOW] = 16;
	ret = ft_parse_args(&s->c.opts, argc, argv, "n:r:b:S:w:R:m:Z:",
			    inc_opt, s);
	if (ret) {
		inc_usage();
		free(s);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (s->c.opts.ep_type != FI_EP_RDM) {
		fprintf(stderr, "ft_incast: needs a reliable endpoint (-e rdm)\n");
		free(s);
		return EXIT_FAILURE;
	}
	ret = ft_is_client(&s->c) ? inc_client(s) : inc_server(s);

	ft_mr_close(s->mr);
	ft_close(&s->c);
	for (k = 0; s->peer && k < s->p[P_CLIENTS]; k++) {
		if (s->peer[k].fd >= 0)
			close(s->peer[k].fd);
		free(s->peer[k].seen);
	}
	free(s->peer);
	free(s->slot);
	free(s->ready);
	free(s->mem);
	free(s->expect);
	free(s);
	if (ret)
		fprintf(stderr, "ft_incast: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
