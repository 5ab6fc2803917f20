/*
 * pp_median: the ping-pong of Debian's fi_pingpong -e rdm (FI_MSG, separate
 * send and receive CQs without wait objects, fi_inject below the inject
 * size, else fi_send and wait for its completion, a receive re-posted after
 * each message), timed per round trip. Prints percentiles of the one-way
 * time: on a busy host one preemption adds milliseconds to an average but
 * leaves the median alone. Any provider; names are exchanged in files.
 *
 *   pp_median -p PROV -d DIR [-S SIZES] [-I ITERS] [-W WARMUP] [-T SEC]
 *   pp_median ... -c        the client: prints one line per size
 *
 * SIZES is a comma-separated list (default 64,256,1024,4096). The server
 * writes DIR/server.name, the client DIR/client.name, each waits for the
 * other's. Output, per size:
 *   SIZE median P10 P90 mean  (usec one-way, ITERS round trips)
 * Build: cc -O2 -o pp_median pp_median.c -lfabric
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>

#define MAX_SIZES	16
#define NAME_MAX_LEN	256

struct pp {
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *txcq, *rxcq;
	struct fid_ep *ep;
	struct fid_mr *mr;
	void *desc;
	fi_addr_t peer;
	uint8_t *sbuf, *rbuf;
	size_t bufsize;
	struct fi_context2 sctx, rctx;
	double timeout;			/* usec without a completion: give up */
};

static double now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static void die(const char *what, long ret)
{
	fprintf(stderr, "pp_median: %s: %s (%ld)\n", what,
		ret < 0 ? fi_strerror((int)-ret) : "failed", ret);
	exit(1);
}

static void check(const char *what, long ret)
{
	if (ret)
		die(what, ret);
}

/* One completion from cq. */
static void wait_comp(struct pp *pp, struct fid_cq *cq)
{
	double end = now_us() + pp->timeout;
	struct fi_cq_err_entry err;
	struct fi_cq_entry e;
	ssize_t ret;

	for (;;) {
		ret = fi_cq_read(cq, &e, 1);
		if (ret == 1)
			return;
		if (ret == -FI_EAVAIL) {
			memset(&err, 0, sizeof(err));
			fi_cq_readerr(cq, &err, 0);
			fprintf(stderr, "pp_median: completion error: %s\n",
				fi_strerror(err.err));
			exit(1);
		}
		if (ret != -FI_EAGAIN)
			die("fi_cq_read", ret);
		if (now_us() > end)
			die("no completion in time", -FI_ETIMEDOUT);
	}
}

static void post_recv(struct pp *pp)
{
	ssize_t ret;

	while ((ret = fi_recv(pp->ep, pp->rbuf, pp->bufsize, pp->desc,
			      FI_ADDR_UNSPEC, &pp->rctx)) == -FI_EAGAIN)
		fi_cq_read(pp->rxcq, NULL, 0);
	check("fi_recv", ret);
}

static void send_one(struct pp *pp, size_t size)
{
	ssize_t ret;

	if (size < pp->info->tx_attr->inject_size) {
		while ((ret = fi_inject(pp->ep, pp->sbuf, size,
					pp->peer)) == -FI_EAGAIN)
			fi_cq_read(pp->txcq, NULL, 0);
		check("fi_inject", ret);
		return;
	}
	while ((ret = fi_send(pp->ep, pp->sbuf, size, pp->desc, pp->peer,
			      &pp->sctx)) == -FI_EAGAIN)
		fi_cq_read(pp->txcq, NULL, 0);
	check("fi_send", ret);
	wait_comp(pp, pp->txcq);
}

static void open_all(struct pp *pp, const char *prov, size_t maxsize)
{
	struct fi_info *hints = fi_allocinfo();
	struct fi_cq_attr cq = { .format = FI_CQ_FORMAT_CONTEXT,
				 .wait_obj = FI_WAIT_NONE };
	struct fi_av_attr av = { .type = FI_AV_UNSPEC };

	if (!hints)
		die("fi_allocinfo", -FI_ENOMEM);
	hints->ep_attr->type = FI_EP_RDM;
	hints->caps = FI_MSG;
	hints->mode = FI_CONTEXT | FI_CONTEXT2;
	hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				      FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	hints->fabric_attr->prov_name = strdup(prov);
	check("fi_getinfo", fi_getinfo(FI_VERSION(1, 17), NULL, NULL, 0,
				       hints, &pp->info));
	fi_freeinfo(hints);
	check("fi_fabric", fi_fabric(pp->info->fabric_attr, &pp->fabric,
				     NULL));
	check("fi_domain", fi_domain(pp->fabric, pp->info, &pp->domain,
				     NULL));
	cq.size = pp->info->tx_attr->size;
	check("fi_cq_open", fi_cq_open(pp->domain, &cq, &pp->txcq, NULL));
	cq.size = pp->info->rx_attr->size;
	check("fi_cq_open", fi_cq_open(pp->domain, &cq, &pp->rxcq, NULL));
	if (pp->info->domain_attr->av_type != FI_AV_UNSPEC)
		av.type = pp->info->domain_attr->av_type;
	check("fi_av_open", fi_av_open(pp->domain, &av, &pp->av, NULL));
	check("fi_endpoint", fi_endpoint(pp->domain, pp->info, &pp->ep,
					 NULL));
	check("fi_ep_bind", fi_ep_bind(pp->ep, &pp->av->fid, 0));
	check("fi_ep_bind", fi_ep_bind(pp->ep, &pp->txcq->fid, FI_TRANSMIT));
	check("fi_ep_bind", fi_ep_bind(pp->ep, &pp->rxcq->fid, FI_RECV));
	check("fi_enable", fi_enable(pp->ep));
	pp->bufsize = maxsize < 64 ? 64 : maxsize;
	pp->sbuf = calloc(2, pp->bufsize);
	if (!pp->sbuf)
		die("calloc", -FI_ENOMEM);
	pp->rbuf = pp->sbuf + pp->bufsize;
	if (pp->info->domain_attr->mr_mode & FI_MR_LOCAL) {
		check("fi_mr_reg", fi_mr_reg(pp->domain, pp->sbuf,
					     2 * pp->bufsize,
					     FI_SEND | FI_RECV, 0, 0, 0,
					     &pp->mr, NULL));
		pp->desc = fi_mr_desc(pp->mr);
	}
}

/* Publish our name as DIR/me.name, read DIR/other.name. */
static void exchange(struct pp *pp, const char *dir, bool client,
		     int timeout_s)
{
	char name[NAME_MAX_LEN], peer[NAME_MAX_LEN];
	char path[4096], tmp[4096 + 8];
	size_t len = sizeof(name), plen = 0;
	double end = now_us() + timeout_s * 1e6;
	FILE *f;

	check("fi_getname", fi_getname(&pp->ep->fid, name, &len));
	snprintf(path, sizeof(path), "%s/%s.name", dir,
		 client ? "client" : "server");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "wb");
	if (!f || fwrite(name, 1, len, f) != len || fclose(f) ||
	    rename(tmp, path))
		die(path, -FI_EIO);
	snprintf(path, sizeof(path), "%s/%s.name", dir,
		 client ? "server" : "client");
	while (!plen) {
		f = fopen(path, "rb");
		if (f) {
			plen = fread(peer, 1, sizeof(peer), f);
			fclose(f);
		}
		if (!plen && now_us() > end)
			die(path, -FI_ETIMEDOUT);
		if (!plen)
			usleep(10000);
	}
	if (fi_av_insert(pp->av, peer, 1, &pp->peer, 0, NULL) != 1)
		die("fi_av_insert", -FI_EINVAL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* iters timed round trips after warmup untimed ones; t gets one-way usec. */
static void run_size(struct pp *pp, bool client, size_t size, int warmup,
		     int iters, double *t)
{
	for (int i = -warmup; i < iters; i++) {
		double t0 = now_us();

		if (client) {
			send_one(pp, size);
			wait_comp(pp, pp->rxcq);
			post_recv(pp);
		} else {
			wait_comp(pp, pp->rxcq);
			post_recv(pp);
			send_one(pp, size);
		}
		if (i >= 0)
			t[i] = (now_us() - t0) / 2;
	}
}

static int parse_sizes(const char *s, size_t *sizes)
{
	int n = 0;
	char *end;

	while (*s && n < MAX_SIZES) {
		errno = 0;
		sizes[n] = strtoul(s, &end, 10);
		if (errno || end == s || !sizes[n])
			return -1;
		n++;
		s = *end == ',' ? end + 1 : end;
		if (*end && *end != ',')
			return -1;
	}
	return *s ? -1 : n;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: pp_median -p PROV -d DIR [-S 64,256,...] [-I ITERS] "
		"[-W WARMUP] [-T SEC] [-c]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *prov = NULL, *dir = NULL, *sizestr = "64,256,1024,4096";
	int iters = 5000, warmup = 100, timeout_s = 60, nsizes, opt;
	size_t sizes[MAX_SIZES], maxsize = 0;
	struct pp pp;
	bool client = false;
	double *t;

	while ((opt = getopt(argc, argv, "p:d:S:I:W:T:c")) != -1) {
		switch (opt) {
		case 'p': prov = optarg; break;
		case 'd': dir = optarg; break;
		case 'S': sizestr = optarg; break;
		case 'I': iters = atoi(optarg); break;
		case 'W': warmup = atoi(optarg); break;
		case 'T': timeout_s = atoi(optarg); break;
		case 'c': client = true; break;
		default: usage();
		}
	}
	nsizes = parse_sizes(sizestr, sizes);
	if (!prov || !dir || nsizes <= 0 || iters < 1 || warmup < 0 ||
	    timeout_s < 1)
		usage();
	for (int i = 0; i < nsizes; i++)
		if (sizes[i] > maxsize)
			maxsize = sizes[i];
	t = calloc((size_t)iters, sizeof(*t));
	if (!t)
		die("calloc", -FI_ENOMEM);
	memset(&pp, 0, sizeof(pp));
	open_all(&pp, prov, maxsize);
	exchange(&pp, dir, client, timeout_s);
	pp.timeout = timeout_s * 1e6;
	post_recv(&pp);
	for (int k = 0; k < nsizes; k++) {
		double sum = 0;

		run_size(&pp, client, sizes[k], warmup, iters, t);
		if (!client)
			continue;
		for (int i = 0; i < iters; i++)
			sum += t[i];
		qsort(t, (size_t)iters, sizeof(*t), cmp_double);
		printf("%zu %.2f %.2f %.2f %.2f\n", sizes[k], t[iters / 2],
		       t[iters / 10], t[iters * 9 / 10], sum / iters);
		fflush(stdout);
	}
	/* The last answer's acknowledgement is the server's to receive:
	 * keep progressing a moment before closing. */
	for (double end = now_us() + 200000; now_us() < end;) {
		fi_cq_read(pp.txcq, NULL, 0);
		fi_cq_read(pp.rxcq, NULL, 0);
	}
	fi_close(&pp.ep->fid);
	if (pp.mr)
		fi_close(&pp.mr->fid);
	fi_close(&pp.rxcq->fid);
	fi_close(&pp.txcq->fid);
	fi_close(&pp.av->fid);
	fi_close(&pp.domain->fid);
	fi_close(&pp.fabric->fid);
	fi_freeinfo(pp.info);
	free(pp.sbuf);
	free(t);
	return 0;
}
