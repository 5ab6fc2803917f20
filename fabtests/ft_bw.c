/*
 * ft_bw: unidirectional streaming bandwidth, client -> server, with a
 * window of outstanding sends and posted receives. The server posts a
 * window, acknowledges it with a small message, and the client sends it;
 * the server checks every message while the next window is on the wire
 * (two receive buffer sets). Each message carries its sequence number in
 * its first 8 bytes, and the rest is the sender slot's pattern.
 * After each size's line the client prints what the timed windows cost
 * in CPU (user + system, getrusage, every thread of each process):
 *   # cpu BYTES CLIENT_US SERVER_US   (microseconds per message)
 * so that a speedup that burns more CPU shows as such.
 */
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BW_TAG		0x6277ull
#define BW_ACK_TAG	0x6261ull
#define BW_BIG		(64u * 1024)
#define BW_BUDGET	(16u << 20)	/* bytes in flight per buffer set */
#define BW_MAX_WINDOW	1024

enum {
	P_TAGGED,
	P_WINDOW,
	P_ITERS,
	P_CORRUPT,
	P_NSIZES,
	P_SIZES,
	P_COUNT = P_SIZES + FT_MAX_SIZES
};

struct bw {
	struct ft_ctx c;
	uint64_t p[P_COUNT];
	size_t region;			/* bytes of one buffer set */
	uint8_t *set[2];		/* client: set[0] only */
	uint8_t *expect;		/* server: every slot's pattern */
	struct fid_mr *mr[2];
	void *desc[2];
	uint64_t ack[2];		/* ack send / receive buffers */
	struct fid_mr *ack_mr;
	void *ack_desc;
	struct ft_op ops[2][BW_MAX_WINDOW];
	uint64_t nsent;			/* messages sent, for -Z */
};

static void bw_usage(void)
{
	fprintf(stderr,
		"Usage: ft_bw [options]          (server: receives)\n"
		"       ft_bw [options] HOST     (client: sends)\n"
		"Streaming bandwidth client -> server; every message is checked.\n"
		"The server takes the client's -m/-S/-w/-I/-Z.\n"
		"  -m MODE     msg (default) or tagged\n"
		"  -S SIZES    all (1:16m) | list 1,64,4k | range 1:1m[:step] (all)\n"
		"  -w N        window: messages in flight (64, at most 1024; fewer\n"
		"              for big sizes so a window stays within 16 MiB)\n"
		"  -I N        windows per size up to 64 KiB (100); larger sizes move\n"
		"              the same bytes as 64 KiB would, at least 2 windows;\n"
		"              plus one untimed warm-up window (small sizes, first size)\n"
		"  -Z K        corrupt one byte of the K-th message (tests the check)\n");
	ft_usage_common();
}

static int bw_opt(void *arg, int opt, const char *optarg)
{
	struct bw *bw = arg;

	switch (opt) {
	case 'm':
		if (strcmp(optarg, "msg") && strcmp(optarg, "tagged"))
			return -1;
		bw->p[P_TAGGED] = !strcmp(optarg, "tagged");
		return 0;
	case 'S':
		return ft_parse_sizes_param("ft_bw", optarg, &bw->p[P_NSIZES],
					    &bw->p[P_SIZES]);
	case 'w':
		bw->p[P_WINDOW] = strtoull(optarg, NULL, 0);
		return bw->p[P_WINDOW] && bw->p[P_WINDOW] <= BW_MAX_WINDOW ?
		       0 : -1;
	case 'I':
		bw->p[P_ITERS] = strtoull(optarg, NULL, 0);
		return bw->p[P_ITERS] ? 0 : -1;
	case 'Z':
		bw->p[P_CORRUPT] = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

static uint64_t bw_window(const struct bw *bw, size_t size)
{
	uint64_t w = BW_BUDGET / size;

	if (w > bw->p[P_WINDOW])
		w = bw->p[P_WINDOW];
	return w ? w : 1;
}

/* Windows for one size: small sizes I windows, big ones the same bytes. */
static uint64_t bw_windows(const struct bw *bw, size_t size, uint64_t win)
{
	uint64_t msgs = bw->p[P_ITERS] * bw->p[P_WINDOW], n;

	if (size > BW_BIG)
		msgs = msgs * BW_BIG / size;
	n = (msgs + win - 1) / win;
	return n < 2 ? 2 : n;
}

static uint64_t bw_seed(size_t size, uint64_t slot)
{
	return ft_mix64(size * 7919u + slot + 1);
}

/* Tiny messages have no room for a sequence number: one pattern for all. */
static uint64_t bw_slot_seed(size_t size, uint64_t slot)
{
	return bw_seed(size, size < 8 ? 0 : slot);
}

static int bw_ack_send(struct bw *bw, uint64_t v)
{
	struct ft_ctx *c = &bw->c;
	struct ft_op op = { 0 };
	ssize_t ret;

	bw->ack[0] = v;
	if (bw->p[P_TAGGED])
		ret = FT_POST(c, fi_tsend(c->ep, &bw->ack[0], 8, bw->ack_desc,
					  c->peer, BW_ACK_TAG, &op));
	else
		ret = FT_POST(c, fi_send(c->ep, &bw->ack[0], 8, bw->ack_desc,
					 c->peer, &op));
	if (ret) {
		ft_perr("ack send", (int)ret);
		return (int)ret;
	}
	ret = ft_wait_op(c, &op);
	return ret ? (int)ret : ft_op_check(&op, "ack send completion");
}

static int bw_ack_post(struct bw *bw, struct ft_op *op)
{
	struct ft_ctx *c = &bw->c;
	ssize_t ret;

	ft_op_reset(op);
	if (bw->p[P_TAGGED])
		ret = FT_POST(c, fi_trecv(c->ep, &bw->ack[1], 8, bw->ack_desc,
					  FI_ADDR_UNSPEC, BW_ACK_TAG, 0, op));
	else
		ret = FT_POST(c, fi_recv(c->ep, &bw->ack[1], 8, bw->ack_desc,
					 FI_ADDR_UNSPEC, op));
	if (ret)
		ft_perr("ack receive", (int)ret);
	return (int)ret;
}

static int bw_ack_wait(struct bw *bw, struct ft_op *op, uint64_t want)
{
	int ret = ft_wait_op(&bw->c, op);

	if (!ret)
		ret = ft_op_check(op, "ack receive completion");
	if (!ret && (op->comp.len != 8 || bw->ack[1] != want)) {
		fprintf(stderr, "ft_bw: ack %" PRIu64 " (%zu bytes), want %"
			PRIu64 "\n", bw->ack[1], op->comp.len, want);
		ret = -FI_EIO;
	}
	return ret;
}

static int bw_wait_all(struct bw *bw, struct ft_op *ops, uint64_t n,
		       const char *what)
{
	uint64_t i;
	int ret;

	for (i = 0; i < n; i++) {
		ret = ft_wait_op(&bw->c, &ops[i]);
		if (!ret)
			ret = ft_op_check(&ops[i], what);
		if (ret)
			return ret;
	}
	return 0;
}

static int bw_post_window(struct bw *bw, int set, size_t size, uint64_t win)
{
	struct ft_ctx *c = &bw->c;
	struct ft_op *op;
	uint64_t i;
	ssize_t ret;

	for (i = 0; i < win; i++) {
		op = &bw->ops[set][i];
		ft_op_reset(op);
		op->id = i;
		if (bw->p[P_TAGGED])
			ret = FT_POST(c, fi_trecv(c->ep, bw->set[set] + i * size,
						  size, bw->desc[set],
						  FI_ADDR_UNSPEC, BW_TAG, 0,
						  op));
		else
			ret = FT_POST(c, fi_recv(c->ep, bw->set[set] + i * size,
						 size, bw->desc[set],
						 FI_ADDR_UNSPEC, op));
		if (ret) {
			ft_perr("receive", (int)ret);
			return (int)ret;
		}
	}
	return 0;
}

/* Server: check window w, which sits in buffer set w % 2. */
static int bw_check_window(struct bw *bw, int set, size_t size, uint64_t win,
			   uint64_t w)
{
	uint8_t seen[BW_MAX_WINDOW] = { 0 };
	struct ft_op *op;
	uint64_t i, seq, slot;
	const uint8_t *buf, *exp;
	size_t hdr = size < 8 ? 0 : 8;

	for (i = 0; i < win; i++) {
		op = &bw->ops[set][i];
		buf = bw->set[set] + i * size;
		if (op->comp.len != size) {
			fprintf(stderr, "ft_bw: %zu bytes: got a %zu-byte "
				"message\n", size, op->comp.len);
			return -FI_EIO;
		}
		slot = 0;
		if (hdr) {
			memcpy(&seq, buf, 8);
			slot = seq % win;
			if (seq / win != w || seen[slot]++) {
				fprintf(stderr, "ft_bw: %zu bytes window %"
					PRIu64 ": unexpected or repeated "
					"sequence %" PRIu64 "\n", size, w, seq);
				return -FI_EIO;
			}
		}
		exp = bw->expect + slot * size;
		if (memcmp(buf + hdr, exp + hdr, size - hdr)) {
			ssize_t off = hdr;

			while (buf[off] == exp[off])
				off++;
			fprintf(stderr, "ft_bw: data mismatch: %zu bytes window %"
				PRIu64 " slot %" PRIu64 " offset %zd\n", size,
				w, slot, off);
			return -FI_EIO;
		}
	}
	return 0;
}

/*
 * A warm-up window, not timed, comes first for small sizes and for the
 * first size of the run (which pays for connection setup, if any).
 */
static uint64_t bw_warmup(size_t size, bool first)
{
	return first || size <= BW_BIG;
}

static int bw_server_size(struct bw *bw, size_t size, bool first)
{
	uint64_t win = bw_window(bw, size), warm = bw_warmup(size, first);
	uint64_t nw = bw_windows(bw, size, win) + warm;
	uint64_t w, s, status, cpu = 0;
	int ret, bad = 0;

	for (s = 0; s < win; s++)
		ft_fill(bw->expect + s * size, size, bw_slot_seed(size, s));
	ret = ft_oob_sync(&bw->c);
	if (!ret)
		ret = bw_post_window(bw, 0, size, win);
	if (!ret)
		ret = bw_ack_send(bw, 0);
	for (w = 0; !ret && w < nw; w++) {
		if (w == warm)
			cpu = ft_cpu_us();
		ret = bw_wait_all(bw, bw->ops[w % 2], win, "receive");
		if (ret)
			break;
		if (w + 1 < nw) {
			ret = bw_post_window(bw, (w + 1) % 2, size, win);
			if (!ret)
				ret = bw_ack_send(bw, w + 1);
		} else {
			ret = bw_ack_send(bw, nw);	/* all arrived */
		}
		/* Checked while the next window is on the wire. */
		if (!ret && !bad)
			bad = bw_check_window(bw, w % 2, size, win, w);
	}
	if (ret)
		return ret;
	/* the verdict in bit 0, the CPU the timed windows took above it */
	cpu = ft_cpu_us() - cpu;
	ret = ft_oob_swap(&bw->c, (cpu << 1) | (bad ? 1 : 0), &status);
	return ret ? ret : bad;
}

static int bw_client_size(struct bw *bw, size_t size, bool first)
{
	struct ft_ctx *c = &bw->c;
	uint64_t win = bw_window(bw, size), warm = bw_warmup(size, first);
	uint64_t nw = bw_windows(bw, size, win) + warm;
	uint64_t w, i, seq, status, start = 0, ns, cpu = 0;
	struct ft_op ack = { 0 };
	uint8_t *buf, *flip = NULL;
	ssize_t ret;

	for (i = 0; i < win; i++)
		ft_fill(bw->set[0] + i * size, size, bw_slot_seed(size, i));
	ret = bw_ack_post(bw, &ack);
	if (!ret)
		ret = ft_oob_sync(c);
	if (ret)
		return (int)ret;
	for (w = 0; w < nw; w++) {
		ret = bw_ack_wait(bw, &ack, w);
		if (!ret)
			ret = bw_ack_post(bw, &ack);
		if (ret)
			return (int)ret;
		if (w == warm) {
			start = ft_now_ns();
			cpu = ft_cpu_us();
		}
		for (i = 0; i < win; i++) {
			buf = bw->set[0] + i * size;
			seq = w * win + i;
			if (size >= 8)
				memcpy(buf, &seq, 8);
			if (++bw->nsent == bw->p[P_CORRUPT]) {
				flip = buf + size - 1;
				*flip ^= 0x10;
				fprintf(stderr, "ft_bw: corrupting message %"
					PRIu64 " on purpose (-Z)\n", bw->nsent);
			}
			ft_op_reset(&bw->ops[0][i]);
			if (bw->p[P_TAGGED])
				ret = FT_POST(c, fi_tsend(c->ep, buf, size,
							  bw->desc[0], c->peer,
							  BW_TAG,
							  &bw->ops[0][i]));
			else
				ret = FT_POST(c, fi_send(c->ep, buf, size,
							 bw->desc[0], c->peer,
							 &bw->ops[0][i]));
			if (ret) {
				ft_perr("send", (int)ret);
				return (int)ret;
			}
		}
		ret = bw_wait_all(bw, bw->ops[0], win, "send");
		if (ret)
			return (int)ret;
		if (flip) {
			*flip ^= 0x10;	/* the slot serves later windows */
			flip = NULL;
		}
	}
	ret = bw_ack_wait(bw, &ack, nw);
	ns = ft_now_ns() - start;
	cpu = ft_cpu_us() - cpu;
	if (!ret)
		ret = ft_oob_swap(c, 0, &status);
	if (ret)
		return (int)ret;
	if (status & 1) {
		fprintf(stderr, "ft_bw: the server found bad data at %zu "
			"bytes\n", size);
		return -FI_EIO;
	}
	nw -= warm;
	printf("%10zu %8" PRIu64 " %6" PRIu64 " %10.2f %12.2f %10.2f\n", size,
	       nw * win, win, ns / 1e6,
	       (double)(nw * win) * (double)size / (ns / 1e3),
	       (double)(nw * win) / (ns / 1e6));
	ft_cpu_print(size, cpu, status >> 1, nw * win);
	fflush(stdout);
	return 0;
}

static int bw_run(struct bw *bw)
{
	struct ft_ctx *c = &bw->c;
	size_t maxmsg = c->info->ep_attr->max_msg_size, size, r;
	uint64_t i, n = bw->p[P_NSIZES];
	int s, nsets = ft_is_client(c) ? 1 : 2, ret;

	bw->region = 8;
	for (i = 0; i < n; i++) {
		size = bw->p[P_SIZES + i];
		r = size * bw_window(bw, size);
		if (size <= maxmsg && r > bw->region)
			bw->region = r;
	}
	for (s = 0; s < nsets; s++) {
		bw->set[s] = ft_alloc(bw->region);
		if (!bw->set[s])
			return -FI_ENOMEM;
		ret = ft_mr_reg(c, bw->set[s], bw->region, &bw->mr[s],
				&bw->desc[s]);
		if (ret)
			return ret;
	}
	if (!ft_is_client(c)) {
		bw->expect = ft_alloc(bw->region);
		if (!bw->expect)
			return -FI_ENOMEM;
	}
	ret = ft_mr_reg(c, bw->ack, sizeof(bw->ack), &bw->ack_mr,
			&bw->ack_desc);
	if (ret)
		return ret;

	printf("# ft_bw: provider %s, fabric %s, domain %s, %s, %s\n",
	       c->info->fabric_attr->prov_name, c->info->fabric_attr->name,
	       c->info->domain_attr->name, bw->p[P_TAGGED] ? "tagged" : "msg",
	       ft_is_client(c) ? "client (sender)" : "server (receiver)");
	if (ft_is_client(c))
		printf("%10s %8s %6s %10s %12s %10s\n", "bytes", "msgs",
		       "window", "ms", "MB/s", "Kmsg/s");
	for (i = 0; i < n; i++) {
		size = bw->p[P_SIZES + i];
		if (size > maxmsg) {
			printf("# %zu bytes: above max_msg_size %zu, skipped\n",
			       size, maxmsg);
			continue;
		}
		ret = ft_is_client(c) ? bw_client_size(bw, size, i == 0) :
					bw_server_size(bw, size, i == 0);
		if (ret) {
			fprintf(stderr, "ft_bw: failed at %zu bytes\n", size);
			return ret;
		}
	}
	return ft_oob_sync(c);
}

int main(int argc, char **argv)
{
	struct bw *bw = calloc(1, sizeof(*bw));
	int i, ret;

	if (!bw)
		return EXIT_FAILURE;
	ft_ctx_init(&bw->c);
	bw->p[P_WINDOW] = 64;
	bw->p[P_ITERS] = 100;
	ft_parse_sizes_param("ft_bw", "all", &bw->p[P_NSIZES], &bw->p[P_SIZES]);

	ret = ft_parse_args(&bw->c.opts, argc, argv, "m:S:w:I:Z:", bw_opt, bw);
	if (ret) {
		bw_usage();
		free(bw);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (bw->c.opts.ep_type != FI_EP_RDM) {
		fprintf(stderr, "ft_bw: needs a reliable endpoint (-e rdm)\n");
		free(bw);
		return EXIT_FAILURE;
	}
	ret = ft_oob_start(&bw->c);
	if (!ret)
		ret = ft_oob_share(&bw->c, bw->p, P_COUNT);
	if (!ret)
		ret = ft_getinfo(&bw->c, bw->p[P_TAGGED] ? FI_TAGGED : FI_MSG, 0);
	if (!ret)
		ret = ft_open(&bw->c);
	if (!ret)
		ret = ft_oob_xchg_names(&bw->c);
	if (!ret)
		ret = bw_run(bw);

	for (i = 0; i < 2; i++)
		ft_mr_close(bw->mr[i]);
	ft_mr_close(bw->ack_mr);
	ft_close(&bw->c);
	free(bw->set[0]);
	free(bw->set[1]);
	free(bw->expect);
	free(bw);
	if (ret)
		fprintf(stderr, "ft_bw: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
