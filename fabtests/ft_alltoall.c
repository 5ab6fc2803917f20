/*
 * ft_alltoall: N processes, each sending M messages of varying sizes to
 * every other one. Every message says who sent it to whom, its sequence
 * number, length and payload checksum; the receiver checks all of it and
 * the payload pattern, counts every message exactly once and, when the
 * provider promises FI_ORDER_SAS, that each sender's messages matched the
 * receives in posting order.
 *
 * Processes find each other through a directory: each writes its
 * endpoint name there (hex), then reads everybody's. Without -r the
 * program is its own launcher: it forks the N ranks and collects them.
 */
#define _GNU_SOURCE
#include "common.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define A2A_MAGIC	0x41324131u	/* "A2A1" */
#define A2A_HDR		24
#define A2A_TAG		0xa2a0000ull	/* | sender rank */
#define A2A_RANK_MASK	0xffffull
#define A2A_MAX_PROCS	256
#define A2A_DEF_TOTAL	100000

struct a2a_opts {
	int nprocs;
	uint64_t per_pair;		/* -M; 0: from -N */
	uint64_t total;			/* -N */
	size_t max_size;		/* -x */
	bool tagged;
	int window;			/* sends in flight */
	int rx_depth;			/* receives posted */
	int rank;			/* -r, -1: launcher */
	const char *dir;
	uint64_t corrupt;		/* -Z */
};

struct a2a_slot {
	struct ft_op op;		/* first: completions come back here */
	uint8_t *buf;
	bool busy;
	bool is_recv;
	uint64_t post_no;		/* receive posting order */
};

struct a2a {
	struct ft_ctx c;
	struct a2a_opts o;
	int n, rank;
	uint64_t m;			/* messages per ordered pair */
	fi_addr_t *addr;
	struct a2a_slot *tx, *rx;
	uint8_t *txmem, *rxmem;
	struct fid_mr *txmr, *rxmr;
	void *txdesc, *rxdesc;
	uint64_t next_post;
	uint8_t *seen;			/* [src * m + seq] */
	uint64_t *pos;			/* [src * m + seq]: receive posting number */
	uint64_t to_send, posted, sent, to_recv, recvd, bytes;
	int bad;
};

/* ------------------------------------------------------------------ */
/* message content */

static void a2a_put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static uint32_t a2a_get32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static uint64_t a2a_key(uint64_t src, uint64_t dst, uint64_t seq)
{
	return ft_mix64(src << 48 | dst << 32 | seq);
}

/* Mostly small, some medium, a few up to max_size (rendezvous paths). */
static size_t a2a_len(const struct a2a_opts *o, int src, int dst, uint64_t seq)
{
	uint64_t h = a2a_key((uint64_t)src, (uint64_t)dst, seq) ^ 0x5a5a;
	size_t span, len;

	h = ft_mix64(h);
	switch (h % 20) {
	case 0: case 1: case 2: case 3: case 4:
	case 5: case 6: case 7: case 8: case 9:
		span = 256;
		break;
	case 10: case 11: case 12: case 13: case 14: case 15:
		span = 4096;
		break;
	case 16: case 17: case 18:
		span = 16384;
		break;
	default:
		span = o->max_size;
		break;
	}
	if (span > o->max_size)
		span = o->max_size;
	len = A2A_HDR + (size_t)((h >> 8) % (span - A2A_HDR + 1));
	return len;
}

static void a2a_build(struct a2a *a, uint8_t *buf, int dst, uint64_t seq,
		      size_t len)
{
	uint8_t *pl = buf + A2A_HDR;

	ft_fill(pl, len - A2A_HDR, a2a_key((uint64_t)a->rank, (uint64_t)dst,
					   seq));
	a2a_put32(buf, A2A_MAGIC);
	a2a_put32(buf + 4, (uint32_t)a->rank);
	a2a_put32(buf + 8, (uint32_t)dst);
	a2a_put32(buf + 12, (uint32_t)seq);
	a2a_put32(buf + 16, (uint32_t)len);
	a2a_put32(buf + 20, ft_csum(pl, len - A2A_HDR));
}

/* ------------------------------------------------------------------ */
/* rendezvous directory */

static int a2a_write_file(const char *dir, const char *name, const char *text)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fputs(text, f);
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

static bool a2a_file_exists(const char *dir, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	return access(path, F_OK) == 0;
}

static int a2a_publish(struct a2a *a)
{
	uint8_t name[FT_NAME_MAX];
	char hex[2 * FT_NAME_MAX + 2], fname[32];
	size_t len, i;
	int ret;

	ret = ft_getname(a->c.ep, name, &len);
	if (ret)
		return ret;
	for (i = 0; i < len; i++)
		sprintf(hex + 2 * i, "%02x", name[i]);
	hex[2 * len] = '\n';
	hex[2 * len + 1] = '\0';
	snprintf(fname, sizeof(fname), "ep.%d", a->rank);
	ret = a2a_write_file(a->o.dir, fname, hex);
	if (ret)
		fprintf(stderr, "%s: cannot write %s/%s: %s\n", ft_prog,
			a->o.dir, fname, strerror(-ret));
	return ret;
}

static int a2a_read_name(struct a2a *a, int r, fi_addr_t *addr)
{
	uint8_t name[FT_NAME_MAX];
	char path[4096], hex[2 * FT_NAME_MAX + 2];
	size_t len, i;
	unsigned v;
	FILE *f;

	snprintf(path, sizeof(path), "%s/ep.%d", a->o.dir, r);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (!fgets(hex, sizeof(hex), f))
		hex[0] = '\0';
	fclose(f);
	len = strcspn(hex, "\n") / 2;
	for (i = 0; i < len; i++) {
		if (sscanf(hex + 2 * i, "%2x", &v) != 1)
			return -FI_EINVAL;
		name[i] = (uint8_t)v;
	}
	if (!len) {
		fprintf(stderr, "%s: empty name in %s\n", ft_prog, path);
		return -FI_EINVAL;
	}
	return ft_av_insert(&a->c, name, addr);
}

/* Everybody's name, in rank order: addr[r] reaches rank r. */
static int a2a_gather(struct a2a *a)
{
	uint64_t deadline = ft_deadline(&a->c);
	char fname[32];
	int r, ret;

	for (r = 0; r < a->n; r++) {
		snprintf(fname, sizeof(fname), "ep.%d", r);
		while (!a2a_file_exists(a->o.dir, fname)) {
			if (ft_now_ns() > deadline) {
				fprintf(stderr, "%s: rank %d never published "
					"its name\n", ft_prog, r);
				return -FI_ETIMEDOUT;
			}
			usleep(2000);
		}
		ret = a2a_read_name(a, r, &a->addr[r]);
		if (ret)
			return ret;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* traffic */

static int a2a_post_recv(struct a2a *a, struct a2a_slot *s)
{
	struct ft_ctx *c = &a->c;
	ssize_t ret;

	ft_op_reset(&s->op);
	s->post_no = a->next_post++;
	if (a->o.tagged)
		ret = FT_POST(c, fi_trecv(c->ep, s->buf, a->o.max_size,
					  a->rxdesc, FI_ADDR_UNSPEC, A2A_TAG,
					  A2A_RANK_MASK, &s->op));
	else
		ret = FT_POST(c, fi_recv(c->ep, s->buf, a->o.max_size,
					 a->rxdesc, FI_ADDR_UNSPEC, &s->op));
	if (ret)
		ft_perr("receive", (int)ret);
	s->busy = !ret;
	return (int)ret;
}

/* Next message of our schedule: seq-major, peers rank+1, rank+2, ... */
static void a2a_next(const struct a2a *a, uint64_t j, int *dst, uint64_t *seq)
{
	uint64_t k = j % (uint64_t)(a->n - 1);

	*seq = j / (uint64_t)(a->n - 1);
	*dst = (int)((a->rank + 1 + (int)k) % a->n);
}

/* 1: posted, 0: provider busy (try later), < 0: error. */
static int a2a_post_send(struct a2a *a, struct a2a_slot *s)
{
	struct ft_ctx *c = &a->c;
	uint64_t seq;
	size_t len;
	ssize_t ret;
	int dst;

	a2a_next(a, a->posted, &dst, &seq);
	len = a2a_len(&a->o, a->rank, dst, seq);
	a2a_build(a, s->buf, dst, seq, len);
	if (a->rank == 0 && a->posted + 1 == a->o.corrupt) {
		s->buf[len - 1] ^= 0x01;
		fprintf(stderr, "%s: corrupting message %" PRIu64 " on purpose "
			"(-Z)\n", ft_prog, a->o.corrupt);
	}
	ft_op_reset(&s->op);
	if (a->o.tagged)
		ret = fi_tsend(c->ep, s->buf, len, a->txdesc, a->addr[dst],
			       A2A_TAG | (uint64_t)a->rank, &s->op);
	else
		ret = fi_send(c->ep, s->buf, len, a->txdesc, a->addr[dst],
			      &s->op);
	if (ret == -FI_EAGAIN)
		return 0;
	if (ret) {
		ft_perr("send", (int)ret);
		return (int)ret;
	}
	s->busy = true;
	a->posted++;
	a->bytes += len;
	return 1;
}

static int a2a_bad(struct a2a *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int a2a_bad(struct a2a *a, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", ft_prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	a->bad++;
	return -FI_EIO;
}

static int a2a_check(struct a2a *a, struct a2a_slot *s)
{
	const struct fi_cq_tagged_entry *e = &s->op.comp;
	const uint8_t *b = s->buf;
	uint32_t src, dst, seq, len;
	size_t want;
	ssize_t off;

	if (s->op.err)
		return a2a_bad(a, "receive failed: %s", s->op.errstr);
	if (e->len < A2A_HDR)
		return a2a_bad(a, "a %zu-byte message", e->len);
	src = a2a_get32(b + 4);
	dst = a2a_get32(b + 8);
	seq = a2a_get32(b + 12);
	len = a2a_get32(b + 16);
	if (a2a_get32(b) != A2A_MAGIC || dst != (uint32_t)a->rank ||
	    src >= (uint32_t)a->n || src == (uint32_t)a->rank || seq >= a->m)
		return a2a_bad(a, "bad header: magic %08x src %u dst %u seq %u",
			       a2a_get32(b), src, dst, seq);
	want = a2a_len(&a->o, (int)src, a->rank, seq);
	if (len != e->len || len != want)
		return a2a_bad(a, "from %u seq %u: %zu bytes, header says %u, "
			       "want %zu", src, seq, e->len, len, want);
	if (a->o.tagged && e->tag != (A2A_TAG | src))
		return a2a_bad(a, "from %u seq %u: tag 0x%" PRIx64, src, seq,
			       e->tag);
	if (ft_csum(b + A2A_HDR, len - A2A_HDR) != a2a_get32(b + 20))
		return a2a_bad(a, "from %u seq %u: checksum mismatch", src,
			       seq);
	off = ft_check(b + A2A_HDR, len - A2A_HDR,
		       a2a_key(src, (uint64_t)a->rank, seq));
	if (off >= 0)
		return a2a_bad(a, "from %u seq %u: payload differs at %zd", src,
			       seq, off + A2A_HDR);
	if (a->seen[src * a->m + seq]++)
		return a2a_bad(a, "from %u seq %u: received twice", src, seq);
	a->pos[src * a->m + seq] = s->post_no;
	return 0;
}

/* FI_ORDER_SAS: each sender's messages took receives in posting order. */
static int a2a_check_order(struct a2a *a)
{
	uint64_t seq;
	int src;

	for (src = 0; src < a->n; src++) {
		if (src == a->rank)
			continue;
		for (seq = 1; seq < a->m; seq++)
			if (a->pos[src * a->m + seq] <
			    a->pos[src * a->m + seq - 1])
				return a2a_bad(a, "from %d: seq %" PRIu64
					       " matched before seq %" PRIu64
					       " (FI_ORDER_SAS)", src, seq,
					       seq - 1);
	}
	return 0;
}

static void a2a_report_missing(struct a2a *a)
{
	uint64_t seq, miss;
	int src;

	for (src = 0; src < a->n; src++) {
		if (src == a->rank)
			continue;
		for (miss = 0, seq = 0; seq < a->m; seq++)
			miss += !a->seen[src * a->m + seq];
		if (miss)
			fprintf(stderr, "%s: %" PRIu64 " messages from rank %d "
				"missing\n", ft_prog, miss, src);
	}
}

static int a2a_traffic(struct a2a *a)
{
	struct ft_ctx *c = &a->c;
	uint64_t last = ft_now_ns(), limit = (uint64_t)c->opts.timeout_s *
					     1000000000ull;
	unsigned idle = 0;
	int i, ret, got;

	for (i = 0; i < a->o.rx_depth; i++) {
		ret = a2a_post_recv(a, &a->rx[i]);
		if (ret)
			return ret;
	}
	while (a->sent < a->to_send || a->recvd < a->to_recv) {
		for (i = 0; i < a->o.window && a->posted < a->to_send; i++) {
			if (a->tx[i].busy)
				continue;
			ret = a2a_post_send(a, &a->tx[i]);
			if (ret < 0)
				return ret;
			if (!ret)
				break;
		}
		got = ft_progress(c);
		if (got < 0)
			return got;
		for (i = 0; i < a->o.window; i++) {
			if (!a->tx[i].busy || !a->tx[i].op.done)
				continue;
			if (a->tx[i].op.err)
				return a2a_bad(a, "send failed: %s",
					       a->tx[i].op.errstr);
			a->tx[i].busy = false;
			a->sent++;
		}
		for (i = 0; i < a->o.rx_depth; i++) {
			if (!a->rx[i].busy || !a->rx[i].op.done)
				continue;
			a->rx[i].busy = false;
			if (a->recvd == a->to_recv)
				return a2a_bad(a, "a message beyond the %"
					       PRIu64 " expected", a->to_recv);
			ret = a2a_check(a, &a->rx[i]);
			if (ret)
				return ret;
			a->recvd++;
			ret = a2a_post_recv(a, &a->rx[i]);
			if (ret)
				return ret;
		}
		if (got > 0) {
			last = ft_now_ns();
			idle = 0;
		} else if (++idle % 64 == 0) {
			sched_yield();
			if (ft_now_ns() - last > limit) {
				fprintf(stderr, "%s: no progress for %d s: sent "
					"%" PRIu64 "/%" PRIu64 ", received %"
					PRIu64 "/%" PRIu64 "\n", ft_prog,
					c->opts.timeout_s, a->sent, a->to_send,
					a->recvd, a->to_recv);
				a2a_report_missing(a);
				return -FI_ETIMEDOUT;
			}
		}
	}
	return c->ordered ? a2a_check_order(a) : 0;
}

/* Nobody closes while a peer may still need it (ACKs, retransmissions). */
static int a2a_barrier(struct a2a *a)
{
	uint64_t deadline = ft_deadline(&a->c), next = 0;
	char fname[32];
	int r = 0, ret, i;

	snprintf(fname, sizeof(fname), "done.%d", a->rank);
	ret = a2a_write_file(a->o.dir, fname, "done\n");
	if (ret)
		return ret;
	while (r < a->n) {
		ret = ft_progress(&a->c);
		if (ret < 0)
			return ret;
		for (i = 0; i < a->o.rx_depth; i++)
			if (a->rx[i].busy && a->rx[i].op.done)
				return a2a_bad(a, "a message after all %" PRIu64
					       " expected ones", a->to_recv);
		if (ft_now_ns() < next) {
			sched_yield();
			continue;
		}
		next = ft_now_ns() + 2000000;
		snprintf(fname, sizeof(fname), "done.%d", r);
		if (a2a_file_exists(a->o.dir, fname)) {
			r++;
			next = 0;
		} else if (ft_now_ns() > deadline) {
			fprintf(stderr, "%s: rank %d never finished\n", ft_prog,
				r);
			return -FI_ETIMEDOUT;
		}
	}
	return 0;
}

static int a2a_setup(struct a2a *a)
{
	struct ft_ctx *c = &a->c;
	size_t np = (size_t)a->n * a->m;
	int i, ret;

	ret = ft_getinfo(c, a->o.tagged ? FI_TAGGED : FI_MSG, 0);
	if (!ret)
		ret = ft_open(c);
	if (!ret && c->info->ep_attr->max_msg_size < a->o.max_size) {
		fprintf(stderr, "%s: -x %zu above max_msg_size %zu\n", ft_prog,
			a->o.max_size, c->info->ep_attr->max_msg_size);
		ret = -FI_EINVAL;
	}
	if (ret)
		return ret;
	a->addr = calloc((size_t)a->n, sizeof(*a->addr));
	a->tx = calloc((size_t)a->o.window, sizeof(*a->tx));
	a->rx = calloc((size_t)a->o.rx_depth, sizeof(*a->rx));
	a->txmem = ft_alloc((size_t)a->o.window * a->o.max_size);
	a->rxmem = ft_alloc((size_t)a->o.rx_depth * a->o.max_size);
	a->seen = calloc(np, 1);
	a->pos = calloc(np, sizeof(*a->pos));
	if (!a->addr || !a->tx || !a->rx || !a->txmem || !a->rxmem ||
	    !a->seen || !a->pos)
		return -FI_ENOMEM;
	for (i = 0; i < a->o.window; i++)
		a->tx[i].buf = a->txmem + (size_t)i * a->o.max_size;
	for (i = 0; i < a->o.rx_depth; i++) {
		a->rx[i].buf = a->rxmem + (size_t)i * a->o.max_size;
		a->rx[i].is_recv = true;
	}
	ret = ft_mr_reg(c, a->txmem, (size_t)a->o.window * a->o.max_size,
			&a->txmr, &a->txdesc);
	if (!ret)
		ret = ft_mr_reg(c, a->rxmem,
				(size_t)a->o.rx_depth * a->o.max_size,
				&a->rxmr, &a->rxdesc);
	if (!ret)
		ret = a2a_publish(a);
	if (!ret)
		ret = a2a_gather(a);
	return ret;
}

static void a2a_teardown(struct a2a *a)
{
	ft_mr_close(a->txmr);
	ft_mr_close(a->rxmr);
	ft_close(&a->c);
	free(a->addr);
	free(a->tx);
	free(a->rx);
	free(a->txmem);
	free(a->rxmem);
	free(a->seen);
	free(a->pos);
}

static int a2a_worker(const struct ft_opts *fo, const struct a2a_opts *o,
		      uint64_t m)
{
	static char prog[64];
	struct a2a a;
	uint64_t t0 = ft_now_ns(), t1, t2;
	int ret;

	memset(&a, 0, sizeof(a));
	ft_ctx_init(&a.c);
	a.c.opts = *fo;
	a.o = *o;
	a.n = o->nprocs;
	a.rank = o->rank;
	a.m = m;
	a.to_send = a.to_recv = m * (uint64_t)(a.n - 1);
	snprintf(prog, sizeof(prog), "ft_alltoall[%d]", a.rank);
	ft_prog = prog;

	ret = a2a_setup(&a);
	t1 = ft_now_ns();
	if (!ret)
		ret = a2a_traffic(&a);
	t2 = ft_now_ns();
	if (!ret)
		ret = a2a_barrier(&a);
	if (!ret && fo->verbose)
		fprintf(stderr, "%s: sent %" PRIu64 " (%.1f MB), received %"
			PRIu64 "; setup %.2f s, traffic %.2f s, barrier %.2f s"
			"%s\n", ft_prog, a.sent, a.bytes / 1e6, a.recvd,
			(t1 - t0) / 1e9, (t2 - t1) / 1e9,
			(ft_now_ns() - t2) / 1e9,
			a.c.ordered ? ", FI_ORDER_SAS checked" : "");
	a2a_teardown(&a);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */
/* launcher */

static void a2a_cleanup_dir(const char *dir, int n, bool remove_dir)
{
	char path[4096];
	int r;

	for (r = 0; r < n; r++) {
		snprintf(path, sizeof(path), "%s/ep.%d", dir, r);
		unlink(path);
		snprintf(path, sizeof(path), "%s/done.%d", dir, r);
		unlink(path);
	}
	if (remove_dir)
		rmdir(dir);
}

static int a2a_launch(const struct ft_opts *fo, struct a2a_opts *o,
		      uint64_t m)
{
	pid_t pid[A2A_MAX_PROCS];
	char tmpl[4096];
	const char *tmp = getenv("TMPDIR");
	uint64_t t0, msgs = 0, bytes = 0, seq;
	int r, d, st, left, failed = 0, ret;
	bool own_dir = !o->dir;
	pid_t w;

	if (own_dir) {
		snprintf(tmpl, sizeof(tmpl), "%s/ft_alltoall.XXXXXX",
			 tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(tmpl)) {
			perror("ft_alltoall: mkdtemp");
			return EXIT_FAILURE;
		}
		o->dir = tmpl;
	}
	for (r = 0; r < o->nprocs; r++)
		for (d = 0; d < o->nprocs; d++)
			for (seq = 0; d != r && seq < m; seq++) {
				msgs++;
				bytes += a2a_len(o, r, d, seq);
			}
	printf("# ft_alltoall: %d processes, %" PRIu64 " messages each way "
	       "per pair, %" PRIu64 " messages, %.1f MB, sizes %d..%zu B, %s, "
	       "provider %s\n", o->nprocs, m, msgs, bytes / 1e6, A2A_HDR,
	       o->max_size, o->tagged ? "tagged" : "msg",
	       fo->prov ? fo->prov : "(first)");
	fflush(stdout);
	fflush(stderr);
	t0 = ft_now_ns();
	for (r = 0; r < o->nprocs; r++) {
		pid[r] = fork();
		if (pid[r] < 0) {
			perror("ft_alltoall: fork");
			o->nprocs = r;
			failed++;
			break;
		}
		if (!pid[r]) {
			/* Do not outlive the launcher. */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			o->rank = r;
			_exit(a2a_worker(fo, o, m));
		}
	}
	for (left = o->nprocs; left > 0; left--) {
		w = wait(&st);
		if (w < 0)
			break;
		for (r = 0; r < o->nprocs && pid[r] != w; r++)
			;
		if (r == o->nprocs)
			continue;
		pid[r] = 0;
		ret = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (!ret)
			continue;
		fprintf(stderr, "ft_alltoall: rank %d %s %d\n", r,
			WIFEXITED(st) ? "exited with" : "killed by signal",
			WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		if (!failed++) {
			/* The others would only wait for it: stop them. */
			for (d = 0; d < o->nprocs; d++)
				if (pid[d] > 0)
					kill(pid[d], SIGTERM);
		}
	}
	a2a_cleanup_dir(o->dir, o->nprocs, own_dir);
	if (failed) {
		printf("# ft_alltoall: FAIL (%d of %d processes failed)\n",
		       failed, o->nprocs);
		return EXIT_FAILURE;
	}
	printf("# ft_alltoall: PASS, %.2f s, %.0f msg/s, %.1f MB/s aggregate\n",
	       (ft_now_ns() - t0) / 1e9, msgs / ((ft_now_ns() - t0) / 1e9),
	       bytes / 1e6 / ((ft_now_ns() - t0) / 1e9));
	return EXIT_SUCCESS;
}

static void a2a_usage(void)
{
	fprintf(stderr,
		"Usage: ft_alltoall [options]                 (launch all ranks)\n"
		"       ft_alltoall [options] -r RANK -d DIR  (one rank)\n"
		"All-to-all messages between N processes, every message checked.\n"
		"  -n N        processes (8)\n"
		"  -N TOTAL    messages in the whole run (100000); rounded up to\n"
		"              a multiple of N*(N-1)\n"
		"  -M K        messages per ordered pair instead of -N\n"
		"  -x BYTES    largest message (64k); sizes 24 B..BYTES, mostly small\n"
		"  -m MODE     msg (default) or tagged (tag carries the sender)\n"
		"  -w K        sends in flight per process (32)\n"
		"  -R K        receives posted per process (64)\n"
		"  -d DIR      rendezvous directory (launcher: a new temp dir)\n"
		"  -r RANK     run only this rank (with -d and -n; no launcher)\n"
		"  -Z K        rank 0 corrupts its K-th message (tests the check)\n"
		"  (-B, -P, -f and HOST do not apply; -T bounds every wait and\n"
		"   any stretch without progress)\n");
	ft_usage_common();
}

static int a2a_opt(void *arg, int opt, const char *optarg)
{
	struct a2a_opts *o = arg;

	switch (opt) {
	case 'n':
		o->nprocs = atoi(optarg);
		return o->nprocs >= 2 && o->nprocs <= A2A_MAX_PROCS ? 0 : -1;
	case 'N':
		o->total = strtoull(optarg, NULL, 0);
		return o->total ? 0 : -1;
	case 'M':
		o->per_pair = strtoull(optarg, NULL, 0);
		return o->per_pair ? 0 : -1;
	case 'x':
		return ft_parse_size(optarg, &o->max_size) ||
		       o->max_size < A2A_HDR ? -1 : 0;
	case 'm':
		if (strcmp(optarg, "msg") && strcmp(optarg, "tagged"))
			return -1;
		o->tagged = !strcmp(optarg, "tagged");
		return 0;
	case 'w':
		o->window = atoi(optarg);
		return o->window > 0 ? 0 : -1;
	case 'R':
		o->rx_depth = atoi(optarg);
		return o->rx_depth > 0 ? 0 : -1;
	case 'd':
		o->dir = optarg;
		return 0;
	case 'r':
		o->rank = atoi(optarg);
		return o->rank >= 0 ? 0 : -1;
	case 'Z':
		o->corrupt = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct a2a_opts o = {
		.nprocs = 8,
		.total = A2A_DEF_TOTAL,
		.max_size = 64 * 1024,
		.window = 32,
		.rx_depth = 64,
		.rank = -1,
	};
	struct ft_ctx c;
	uint64_t m, pairs;
	int ret;

	ft_ctx_init(&c);
	ret = ft_parse_args(&c.opts, argc, argv, "n:N:M:x:m:w:R:d:r:Z:",
			    a2a_opt, &o);
	if (ret) {
		a2a_usage();
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (c.opts.server || c.opts.ep_type != FI_EP_RDM) {
		fprintf(stderr, "ft_alltoall: takes no HOST and needs -e rdm\n");
		return EXIT_FAILURE;
	}
	if (o.rank >= 0 && (!o.dir || o.rank >= o.nprocs)) {
		fprintf(stderr, "ft_alltoall: -r needs -d DIR and RANK < -n\n");
		return EXIT_FAILURE;
	}
	pairs = (uint64_t)o.nprocs * (uint64_t)(o.nprocs - 1);
	m = o.per_pair ? o.per_pair : (o.total + pairs - 1) / pairs;
	if (m > UINT32_MAX)
		return EXIT_FAILURE;
	if (o.rank >= 0)
		return a2a_worker(&c.opts, &o, m);
	return a2a_launch(&c.opts, &o, m);
}
