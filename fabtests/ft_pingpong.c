/*
 * ft_pingpong: ping-pong latency over FI_MSG or FI_TAGGED, every message's
 * content checked. The client drives; the server follows the client's
 * parameters, which it receives out of band.
 */
#include "common.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PP_TAG		0x7070ull

/* -m: what the pings and pongs are. */
enum { PP_MSG, PP_TAGGED, PP_MIXED };
#define PP_BIG		(64u * 1024)	/* above this, iterations shrink */

enum {
	P_MODE,
	P_ITERS,
	P_WARMUP,
	P_CORRUPT,
	P_NSIZES,
	P_SIZES,
	P_COUNT = P_SIZES + FT_MAX_SIZES
};

struct pp {
	struct ft_ctx c;
	uint64_t p[P_COUNT];
	uint8_t *sbuf, *rbuf;
	void *sdesc, *rdesc;
	struct fid_mr *smr, *rmr;
	uint64_t nsent;			/* client messages, for -Z */
	uint64_t check_ns;		/* time spent filling and checking */
};

static void pp_usage(void)
{
	fprintf(stderr,
		"Usage: ft_pingpong [options]          (server)\n"
		"       ft_pingpong [options] HOST     (client)\n"
		"Ping-pong latency; every message is checked. The server takes\n"
		"the client's -m/-S/-I/-W/-Z.\n"
		"  -m MODE     msg (default), tagged, or mixed (untagged pings,\n"
		"              tagged pongs)\n"
		"  -S SIZES    all (1:16m) | list 1,64,4k | range 1:1m[:step] (all)\n"
		"  -I N        iterations per size up to 64 KiB (1000); larger sizes\n"
		"              run N*64KiB/size, at least min(N, 10)\n"
		"  -W N        warm-up iterations (10), scaled down like -I\n"
		"  -Z K        corrupt one byte of the client's K-th message (tests the check)\n");
	ft_usage_common();
}

static int pp_opt(void *arg, int opt, const char *optarg)
{
	struct pp *pp = arg;

	switch (opt) {
	case 'm':
		if (!strcmp(optarg, "msg"))
			pp->p[P_MODE] = PP_MSG;
		else if (!strcmp(optarg, "tagged"))
			pp->p[P_MODE] = PP_TAGGED;
		else if (!strcmp(optarg, "mixed"))
			pp->p[P_MODE] = PP_MIXED;
		else
			return -1;
		return 0;
	case 'S':
		return ft_parse_sizes_param("ft_pingpong", optarg, &pp->p[P_NSIZES],
					    &pp->p[P_SIZES]);
	case 'I':
		pp->p[P_ITERS] = strtoull(optarg, NULL, 0);
		return pp->p[P_ITERS] ? 0 : -1;
	case 'W':
		pp->p[P_WARMUP] = strtoull(optarg, NULL, 0);
		return 0;
	case 'Z':
		pp->p[P_CORRUPT] = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

static uint64_t pp_scale(uint64_t n, uint64_t size, uint64_t floor)
{
	uint64_t v;

	if (size <= PP_BIG)
		return n;
	v = n * PP_BIG / size;
	if (floor > n)
		floor = n;
	return v > floor ? v : floor;
}

static uint64_t pp_seed(uint64_t size, int64_t iter, int dir)
{
	return ft_mix64(size * 1000003u + (uint64_t)iter) ^ (uint64_t)dir;
}

/* Are the messages this side sends (or receives) tagged? Mixed: the
 * client's pings are untagged, the server's pongs tagged. */
static bool pp_tagged(const struct pp *pp, bool sending)
{
	if (pp->p[P_MODE] != PP_MIXED)
		return pp->p[P_MODE] == PP_TAGGED;
	return ft_is_client(&pp->c) != sending;
}

static int pp_post_recv(struct pp *pp, struct ft_op *op, size_t size)
{
	struct ft_ctx *c = &pp->c;
	bool tagged = pp_tagged(pp, false);
	ssize_t ret;

	ft_op_reset(op);
	if (tagged)
		ret = FT_POST(c, fi_trecv(c->ep, pp->rbuf, size, pp->rdesc,
					  FI_ADDR_UNSPEC, PP_TAG, 0, op));
	else
		ret = FT_POST(c, fi_recv(c->ep, pp->rbuf, size, pp->rdesc,
					 FI_ADDR_UNSPEC, op));
	if (ret)
		ft_perr(tagged ? "fi_trecv" : "fi_recv", (int)ret);
	return (int)ret;
}

static int pp_send(struct pp *pp, size_t size, int64_t iter)
{
	struct ft_ctx *c = &pp->c;
	struct ft_op op = { 0 };
	uint64_t t0 = ft_now_ns();
	bool tagged = pp_tagged(pp, true);
	ssize_t ret;

	ft_fill(pp->sbuf, size, pp_seed(size, iter, ft_is_client(c)));
	if (ft_is_client(c) && ++pp->nsent == pp->p[P_CORRUPT]) {
		pp->sbuf[size / 2] ^= 0x20;
		fprintf(stderr, "ft_pingpong: corrupting message %" PRIu64
			" on purpose (-Z)\n", pp->nsent);
	}
	pp->check_ns += ft_now_ns() - t0;
	if (tagged)
		ret = FT_POST(c, fi_tsend(c->ep, pp->sbuf, size, pp->sdesc,
					  c->peer, PP_TAG, &op));
	else
		ret = FT_POST(c, fi_send(c->ep, pp->sbuf, size, pp->sdesc,
					 c->peer, &op));
	if (ret) {
		ft_perr(tagged ? "fi_tsend" : "fi_send", (int)ret);
		return (int)ret;
	}
	ret = ft_wait_op(c, &op);
	return ret ? (int)ret : ft_op_check(&op, "send completion");
}

static int pp_wait_recv(struct pp *pp, struct ft_op *op, size_t size,
			int64_t iter)
{
	struct ft_ctx *c = &pp->c;
	uint64_t t0;
	ssize_t bad;
	int ret;

	ret = ft_wait_op(c, op);
	if (ret)
		return ret;
	ret = ft_op_check(op, "receive completion");
	if (ret)
		return ret;
	if (op->comp.len != size) {
		fprintf(stderr, "ft_pingpong: size %zu iteration %" PRId64
			": received %zu bytes\n", size, iter, op->comp.len);
		return -FI_EIO;
	}
	if (pp_tagged(pp, false) && op->comp.tag != PP_TAG) {
		fprintf(stderr, "ft_pingpong: tag 0x%" PRIx64 ", want 0x%llx\n",
			op->comp.tag, PP_TAG);
		return -FI_EIO;
	}
	t0 = ft_now_ns();
	bad = ft_check(pp->rbuf, size, pp_seed(size, iter, !ft_is_client(c)));
	pp->check_ns += ft_now_ns() - t0;
	if (bad >= 0) {
		fprintf(stderr, "ft_pingpong: data mismatch: size %zu iteration "
			"%" PRId64 " offset %zd\n", size, iter, bad);
		return -FI_EIO;
	}
	return 0;
}

/* One size: warm-up iterations have negative numbers. */
static int pp_run_size(struct pp *pp, size_t size)
{
	struct ft_ctx *c = &pp->c;
	int64_t iters = (int64_t)pp_scale(pp->p[P_ITERS], size, 10);
	int64_t warm = (int64_t)pp_scale(pp->p[P_WARMUP], size, 1);
	struct ft_op rop = { 0 };
	uint64_t start = 0, ns;
	int64_t i;
	int ret;

	if (!pp->p[P_WARMUP])
		warm = 0;
	ret = ft_oob_sync(c);
	if (ret)
		return ret;
	for (i = -warm; i < iters; i++) {
		if (i == 0) {
			start = ft_now_ns();
			pp->check_ns = 0;
		}
		ret = pp_post_recv(pp, &rop, size);
		if (ret)
			return ret;
		if (ft_is_client(c)) {
			ret = pp_send(pp, size, i);
			if (!ret)
				ret = pp_wait_recv(pp, &rop, size, i);
		} else {
			ret = pp_wait_recv(pp, &rop, size, i);
			if (!ret)
				ret = pp_send(pp, size, i);
		}
		if (ret)
			return ret;
	}
	ns = ft_now_ns() - start - pp->check_ns;
	if (ft_is_client(c))
		printf("%10zu %8" PRId64 " %12.2f %12.2f\n", size, iters,
		       ns / 1e3 / (2.0 * (double)iters),
		       2.0 * (double)iters * (double)size / (ns / 1e3));
	fflush(stdout);
	return 0;
}

static int pp_run(struct pp *pp)
{
	struct ft_ctx *c = &pp->c;
	size_t max = 1, maxmsg = c->info->ep_attr->max_msg_size, size;
	uint64_t i, n = pp->p[P_NSIZES];
	int ret;

	for (i = 0; i < n; i++)
		if (pp->p[P_SIZES + i] > max && pp->p[P_SIZES + i] <= maxmsg)
			max = pp->p[P_SIZES + i];
	pp->sbuf = ft_alloc(max);
	pp->rbuf = ft_alloc(max);
	if (!pp->sbuf || !pp->rbuf)
		return -FI_ENOMEM;
	ret = ft_mr_reg(c, pp->sbuf, max, &pp->smr, &pp->sdesc);
	if (!ret)
		ret = ft_mr_reg(c, pp->rbuf, max, &pp->rmr, &pp->rdesc);
	if (ret)
		return ret;

	printf("# ft_pingpong: provider %s, fabric %s, domain %s, ep %s, %s, "
	       "%s\n", c->info->fabric_attr->prov_name,
	       c->info->fabric_attr->name, c->info->domain_attr->name,
	       c->opts.ep_type == FI_EP_RDM ? "rdm" : "dgram",
	       pp->p[P_MODE] == PP_MIXED ? "mixed" :
	       pp->p[P_MODE] == PP_TAGGED ? "tagged" : "msg",
	       ft_is_client(c) ? "client" : "server");
	if (ft_is_client(c))
		printf("# one-way latency, pattern fill/check time excluded\n"
		       "%10s %8s %12s %12s\n", "bytes", "iters", "usec/xfer",
		       "MB/s");
	for (i = 0; i < n; i++) {
		size = pp->p[P_SIZES + i];
		if (size > maxmsg) {
			printf("# %zu bytes: above max_msg_size %zu, skipped\n",
			       size, maxmsg);
			continue;
		}
		ret = pp_run_size(pp, size);
		if (ret) {
			fprintf(stderr, "ft_pingpong: failed at %zu bytes\n",
				size);
			return ret;
		}
	}
	/* Neither side tears down while the other may still need it. */
	return ft_oob_sync(c);
}

int main(int argc, char **argv)
{
	struct pp pp = { 0 };
	int ret;

	ft_ctx_init(&pp.c);
	pp.p[P_ITERS] = 1000;
	pp.p[P_WARMUP] = 10;
	ft_parse_sizes_param("ft_pingpong", "all", &pp.p[P_NSIZES], &pp.p[P_SIZES]);

	ret = ft_parse_args(&pp.c.opts, argc, argv, "m:S:I:W:Z:", pp_opt, &pp);
	if (ret) {
		pp_usage();
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	ret = ft_oob_start(&pp.c);
	if (!ret)
		ret = ft_oob_share(&pp.c, pp.p, P_COUNT);
	if (!ret)
		ret = ft_getinfo(&pp.c, pp.p[P_MODE] == PP_MIXED ?
				 FI_MSG | FI_TAGGED : pp.p[P_MODE] == PP_TAGGED ?
				 FI_TAGGED : FI_MSG, 0);
	if (!ret)
		ret = ft_open(&pp.c);
	if (!ret)
		ret = ft_oob_xchg_names(&pp.c);
	if (!ret)
		ret = pp_run(&pp);

	ft_mr_close(pp.smr);
	ft_mr_close(pp.rmr);
	ft_close(&pp.c);
	free(pp.sbuf);
	free(pp.rbuf);
	if (ret)
		fprintf(stderr, "ft_pingpong: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
