/*
 * Shared helpers of the uet fabtests; public libfabric API only.
 */
#define _GNU_SOURCE
#include "common.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sched.h>
#include <stdarg.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *ft_prog = "ft";

#define FT_COMMON_OPTS	"p:e:s:D:B:P:f:T:LC:vh"
#define FT_CQ_BATCH	16
#define FT_HUGE		(2u << 20)	/* a huge page, where there are */
/* Empty polls before giving the CPU away. One: a busy-polling wait that
 * keeps the CPU while its peer process waits for it (more runnable
 * processes than CPUs, or both on one CPU) stretches every round trip to
 * a scheduler slice; sched_yield costs a system call when nobody else
 * wants the CPU. */
#define FT_IDLE_YIELD	1

/* ------------------------------------------------------------------ */
/* options */

void ft_opts_init(struct ft_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ep_type = FI_EP_RDM;
	o->oob_bind = "127.0.0.1";
	o->timeout_s = 30;
}

void ft_ctx_init(struct ft_ctx *c)
{
	/* Keep table lines and error lines in the order they happened. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(c, 0, sizeof(*c));
	ft_opts_init(&c->opts);
	c->oob_fd = -1;
	c->peer = FI_ADDR_UNSPEC;
}

void ft_usage_common(void)
{
	fprintf(stderr,
		"Roles: without HOST the program is the server; with HOST it is the\n"
		"client and reaches the server's out-of-band TCP port on HOST.\n"
		"Common options:\n"
		"  -p PROV     provider, as fi_info names it (uet, tcp, 'udp;ofi_rxd')\n"
		"  -e TYPE     endpoint type: rdm (default) or dgram\n"
		"  -s ADDR     local address of the fabric endpoint (FI_SOURCE), e.g. 127.0.0.1\n"
		"  -D NAME     domain name (e.g. lo)\n"
		"  -B ADDR     server: out-of-band listen address (127.0.0.1)\n"
		"  -P PORT     out-of-band TCP port (server: 0 = any free port, the default)\n"
		"  -f FILE     server: write the out-of-band port to FILE;\n"
		"              client: read it from FILE (waits for it)\n"
		"  -T SECS     give up waiting for a peer or a completion after SECS (30)\n"
		"  -L          register buffers even if the provider does not need FI_MR_LOCAL\n"
		"  -C CLASS    traffic class asked for (tx_attr->tclass): best_effort,\n"
		"              low_latency, dedicated_access, bulk_data, scavenger,\n"
		"              network_ctrl, or dscp:N (fi_tc_dscp_set)\n"
		"  -v          verbose\n"
		"  -h          this help\n");
}

/* -C: a label of fi_endpoint.3's "Traffic Class", or dscp:N. */
static int ft_parse_tclass(const char *s, uint32_t *tc)
{
	static const struct { const char *name; uint32_t tc; } names[] = {
		{ "best_effort", FI_TC_BEST_EFFORT },
		{ "low_latency", FI_TC_LOW_LATENCY },
		{ "dedicated_access", FI_TC_DEDICATED_ACCESS },
		{ "bulk_data", FI_TC_BULK_DATA },
		{ "scavenger", FI_TC_SCAVENGER },
		{ "network_ctrl", FI_TC_NETWORK_CTRL },
	};
	char *end;
	long v;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!strcmp(s, names[i].name)) {
			*tc = names[i].tc;
			return 0;
		}
	}
	if (strncmp(s, "dscp:", 5))
		return -1;
	v = strtol(s + 5, &end, 10);
	if (end == s + 5 || *end || v < 0 || v > 63)
		return -1;
	*tc = fi_tc_dscp_set((uint8_t)v);
	return 0;
}

int ft_parse_args(struct ft_opts *o, int argc, char **argv,
		  const char *prog_optstr, ft_opt_cb cb, void *arg)
{
	char optstr[128];
	int opt;

	ft_prog = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
	snprintf(optstr, sizeof(optstr), "%s%s", FT_COMMON_OPTS,
		 prog_optstr ? prog_optstr : "");
	while ((opt = getopt(argc, argv, optstr)) != -1) {
		switch (opt) {
		case 'p':
			o->prov = optarg;
			break;
		case 'e':
			if (!strcmp(optarg, "rdm")) {
				o->ep_type = FI_EP_RDM;
			} else if (!strcmp(optarg, "dgram")) {
				o->ep_type = FI_EP_DGRAM;
			} else {
				fprintf(stderr, "%s: -e %s: use rdm or dgram\n",
					ft_prog, optarg);
				return -1;
			}
			break;
		case 's':
			o->src_addr = optarg;
			break;
		case 'D':
			o->domain = optarg;
			break;
		case 'B':
			o->oob_bind = optarg;
			break;
		case 'P':
			o->oob_port = atoi(optarg);
			if (o->oob_port < 0 || o->oob_port > 65535) {
				fprintf(stderr, "%s: -P %s: bad port\n",
					ft_prog, optarg);
				return -1;
			}
			break;
		case 'f':
			o->port_file = optarg;
			break;
		case 'T':
			o->timeout_s = atoi(optarg);
			if (o->timeout_s <= 0) {
				fprintf(stderr, "%s: -T %s: bad timeout\n",
					ft_prog, optarg);
				return -1;
			}
			break;
		case 'L':
			o->force_mr = true;
			break;
		case 'C':
			if (ft_parse_tclass(optarg, &o->tclass)) {
				fprintf(stderr, "%s: -C %s: not a traffic "
					"class\n", ft_prog, optarg);
				return -1;
			}
			break;
		case 'v':
			o->verbose = true;
			break;
		case 'h':
			return 1;
		case '?':
			return -1;
		default:
			if (!cb || cb(arg, opt, optarg))
				return -1;
			break;
		}
	}
	if (optind < argc)
		o->server = argv[optind++];
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", ft_prog,
			argv[optind]);
		return -1;
	}
	return 0;
}

bool ft_is_client(const struct ft_ctx *c)
{
	return c->opts.server != NULL;
}

void ft_perr(const char *what, int ret)
{
	fprintf(stderr, "%s: %s: %s (%d)\n", ft_prog, what,
		fi_strerror(ret < 0 ? -ret : ret), ret);
}

void ft_log(const struct ft_ctx *c, const char *fmt, ...)
{
	va_list ap;

	if (!c->opts.verbose)
		return;
	fprintf(stderr, "%s[%d]: ", ft_prog, (int)getpid());
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* ------------------------------------------------------------------ */
/* time */

uint64_t ft_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ft_cpu_print(size_t size, uint64_t client_us, uint64_t server_us,
		  uint64_t msgs)
{
	printf("# cpu %zu %.3f %.3f\n", size, (double)client_us / (double)msgs,
	       (double)server_us / (double)msgs);
}

uint64_t ft_cpu_us(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (uint64_t)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 +
	       (uint64_t)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
}

uint64_t ft_deadline(const struct ft_ctx *c)
{
	return ft_now_ns() + (uint64_t)c->opts.timeout_s * 1000000000ull;
}

/* ------------------------------------------------------------------ */
/* fabric setup */

static struct fi_info *ft_hints(const struct ft_ctx *c, uint64_t caps)
{
	struct fi_info *h = fi_allocinfo();

	if (!h)
		return NULL;
	h->ep_attr->type = c->opts.ep_type;
	h->caps = caps;
	/* We always pass a struct fi_context2 as the operation context. */
	h->mode = FI_CONTEXT | FI_CONTEXT2;
	/* Local registration is handled (ft_mr_reg); remote keys unused. */
	h->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR |
				  FI_MR_ALLOCATED | FI_MR_PROV_KEY;
	if (c->mr_mode_set)
		h->domain_attr->mr_mode = c->mr_mode;
	if (c->opts.prov)
		h->fabric_attr->prov_name = strdup(c->opts.prov);
	if (c->opts.domain)
		h->domain_attr->name = strdup(c->opts.domain);
	h->tx_attr->tclass = c->opts.tclass;
	return h;
}

static int ft_getinfo_once(const struct ft_ctx *c, struct fi_info *hints,
			   struct fi_info **info)
{
	const char *node = c->opts.src_addr;

	return fi_getinfo(FI_VERSION(FI_MAJOR_VERSION, FI_MINOR_VERSION),
			  node, NULL, node ? FI_SOURCE : 0, hints, info);
}

int ft_getinfo(struct ft_ctx *c, uint64_t need_caps, uint64_t opt_caps)
{
	struct fi_info *hints, *probe = NULL;
	uint64_t adv, order = 0;
	int ret;

	/* Pass 1: no caps asked, so the entry shows everything offered. */
	hints = ft_hints(c, 0);
	if (!hints)
		return -FI_ENOMEM;
	ret = ft_getinfo_once(c, hints, &probe);
	fi_freeinfo(hints);
	if (ret) {
		fprintf(stderr, "%s: no %s endpoint from provider '%s'%s%s\n",
			ft_prog, c->opts.ep_type == FI_EP_RDM ? "FI_EP_RDM" :
			"FI_EP_DGRAM", c->opts.prov ? c->opts.prov : "(any)",
			c->opts.src_addr ? " at " : "",
			c->opts.src_addr ? c->opts.src_addr : "");
		ft_perr("fi_getinfo", ret);
		return ret;
	}
	adv = probe->caps;
	if ((probe->tx_attr->msg_order & FI_ORDER_SAS) &&
	    (probe->rx_attr->msg_order & FI_ORDER_SAS))
		order = FI_ORDER_SAS;
	fi_freeinfo(probe);

	if ((adv & need_caps) != need_caps) {
		fprintf(stderr, "%s: provider '%s' lacks capabilities %s\n",
			ft_prog, c->opts.prov ? c->opts.prov : "(any)",
			fi_tostr(&(uint64_t){ need_caps & ~adv }, FI_TYPE_CAPS));
		return -FI_ENODATA;
	}

	/* Pass 2: what we need plus what we may use. */
	hints = ft_hints(c, need_caps | (opt_caps & adv));
	if (!hints)
		return -FI_ENOMEM;
	hints->tx_attr->msg_order = order;
	hints->rx_attr->msg_order = order;
	ret = ft_getinfo_once(c, hints, &c->info);
	fi_freeinfo(hints);
	if (ret) {
		ft_perr("fi_getinfo (with capabilities)", ret);
		return ret;
	}
	c->caps = c->info->caps;
	if (c->force_mr_endpoint)
		c->info->domain_attr->mr_mode |= FI_MR_ENDPOINT;
	c->need_mr = c->opts.force_mr ||
		     (c->info->domain_attr->mr_mode & FI_MR_LOCAL);
	c->ordered = (c->info->tx_attr->msg_order & FI_ORDER_SAS) &&
		     (c->info->rx_attr->msg_order & FI_ORDER_SAS);
	return 0;
}

static int ft_cq_open(struct ft_ctx *c, struct fid_cq **cq)
{
	struct fi_cq_attr attr = {
		.format = FI_CQ_FORMAT_TAGGED,
		.wait_obj = FI_WAIT_NONE,
		.size = 1024,
	};
	int ret;

	if (c->ncqs == FT_MAX_CQS)
		return -FI_ENOSPC;
	ret = fi_cq_open(c->domain, &attr, cq, NULL);
	if (ret) {
		ft_perr("fi_cq_open", ret);
		return ret;
	}
	c->cqs[c->ncqs++] = *cq;
	return 0;
}

static int ft_ep_setup(struct ft_ctx *c, struct fid_ep *ep, struct fid_cq *cq)
{
	int ret;

	ret = fi_ep_bind(ep, &c->av->fid, 0);
	if (ret) {
		ft_perr("fi_ep_bind(av)", ret);
		return ret;
	}
	ret = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV);
	if (ret) {
		ft_perr("fi_ep_bind(cq)", ret);
		return ret;
	}
	if (c->want_rma_cntrs && (c->caps & FI_RMA_EVENT) && ep == c->ep) {
		struct fi_cntr_attr ca = { .events = FI_CNTR_EVENTS_COMP,
					   .wait_obj = FI_WAIT_UNSPEC };

		ret = fi_cntr_open(c->domain, &ca, &c->rcntr_write, NULL);
		if (!ret)
			ret = fi_cntr_open(c->domain, &ca, &c->rcntr_read,
					   NULL);
		if (!ret)
			ret = fi_ep_bind(ep, &c->rcntr_write->fid,
					 FI_REMOTE_WRITE);
		if (!ret)
			ret = fi_ep_bind(ep, &c->rcntr_read->fid,
					 FI_REMOTE_READ);
		if (ret) {
			ft_perr("remote counters", ret);
			return ret;
		}
	}
	if (c->min_multi_recv && (c->caps & FI_MULTI_RECV)) {
		ret = fi_setopt(&ep->fid, FI_OPT_ENDPOINT,
				FI_OPT_MIN_MULTI_RECV, &c->min_multi_recv,
				sizeof(c->min_multi_recv));
		if (ret) {
			ft_perr("fi_setopt(FI_OPT_MIN_MULTI_RECV)", ret);
			return ret;
		}
	}
	ret = fi_enable(ep);
	if (ret) {
		ft_perr("fi_enable", ret);
		return ret;
	}
	return 0;
}

int ft_open(struct ft_ctx *c)
{
	struct fi_av_attr av_attr = { .count = 64 };
	int ret;

	ret = fi_fabric(c->info->fabric_attr, &c->fabric, NULL);
	if (ret) {
		ft_perr("fi_fabric", ret);
		return ret;
	}
	ret = fi_domain(c->fabric, c->info, &c->domain, NULL);
	if (ret) {
		ft_perr("fi_domain", ret);
		return ret;
	}
	av_attr.type = c->info->domain_attr->av_type;
	if (av_attr.type == FI_AV_UNSPEC)
		av_attr.type = FI_AV_TABLE;
	ret = fi_av_open(c->domain, &av_attr, &c->av, NULL);
	if (ret) {
		ft_perr("fi_av_open", ret);
		return ret;
	}
	ret = ft_cq_open(c, &c->cq);
	if (ret)
		return ret;
	ret = fi_endpoint(c->domain, c->info, &c->ep, NULL);
	if (ret) {
		ft_perr("fi_endpoint", ret);
		return ret;
	}
	ret = ft_ep_setup(c, c->ep, c->cq);
	if (ret)
		return ret;
	ft_log(c, "provider %s, fabric %s, domain %s\n",
	       c->info->fabric_attr->prov_name, c->info->fabric_attr->name,
	       c->info->domain_attr->name);
	return 0;
}

/* Extra endpoints are closed by ft_close() through these. */
static struct fid_ep *ft_extra_eps[FT_MAX_CQS];
static int ft_nextra;

int ft_ep_open(struct ft_ctx *c, struct fid_ep **ep, struct fid_cq **cq)
{
	int ret;

	if (ft_nextra == FT_MAX_CQS)
		return -FI_ENOSPC;
	ret = ft_cq_open(c, cq);
	if (ret)
		return ret;
	ret = fi_endpoint(c->domain, c->info, ep, NULL);
	if (ret) {
		ft_perr("fi_endpoint", ret);
		return ret;
	}
	ft_extra_eps[ft_nextra++] = *ep;
	return ft_ep_setup(c, *ep, *cq);
}

static void ft_close_fid(struct fid *fid, const char *what)
{
	int ret;

	if (!fid)
		return;
	ret = fi_close(fid);
	if (ret)
		ft_perr(what, ret);
}

void ft_close(struct ft_ctx *c)
{
	int i;

	for (i = 0; i < ft_nextra; i++)
		ft_close_fid(&ft_extra_eps[i]->fid, "fi_close(ep)");
	ft_nextra = 0;
	if (c->ep)
		ft_close_fid(&c->ep->fid, "fi_close(ep)");
	if (c->rcntr_write)
		ft_close_fid(&c->rcntr_write->fid, "fi_close(cntr)");
	if (c->rcntr_read)
		ft_close_fid(&c->rcntr_read->fid, "fi_close(cntr)");
	c->rcntr_write = c->rcntr_read = NULL;
	for (i = 0; i < c->ncqs; i++)
		ft_close_fid(&c->cqs[i]->fid, "fi_close(cq)");
	if (c->av)
		ft_close_fid(&c->av->fid, "fi_close(av)");
	if (c->domain)
		ft_close_fid(&c->domain->fid, "fi_close(domain)");
	if (c->fabric)
		ft_close_fid(&c->fabric->fid, "fi_close(fabric)");
	if (c->info)
		fi_freeinfo(c->info);
	if (c->oob_fd >= 0)
		close(c->oob_fd);
	c->ep = NULL;
	c->ncqs = 0;
	c->av = NULL;
	c->domain = NULL;
	c->fabric = NULL;
	c->info = NULL;
	c->oob_fd = -1;
}

int ft_getname(struct fid_ep *ep, uint8_t *name, size_t *len)
{
	int ret;

	*len = FT_NAME_MAX;
	ret = fi_getname(&ep->fid, name, len);
	if (ret)
		ft_perr("fi_getname", ret);
	return ret;
}

int ft_av_insert(struct ft_ctx *c, const void *name, fi_addr_t *addr)
{
	int ret;

	ret = fi_av_insert(c->av, name, 1, addr, 0, NULL);
	if (ret != 1) {
		ft_perr("fi_av_insert", ret < 0 ? ret : -FI_EINVAL);
		return ret < 0 ? ret : -FI_EINVAL;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* out-of-band channel */

static int ft_poll_fd(int fd, short events, uint64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = events };
	uint64_t now;
	int ret;

	for (;;) {
		now = ft_now_ns();
		if (now >= deadline)
			return -FI_ETIMEDOUT;
		ret = poll(&p, 1, (int)((deadline - now) / 1000000) + 1);
		if (ret > 0)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
	}
}

static int ft_write_port_file(const char *file, int port)
{
	char tmp[4096];
	FILE *f;

	/* Written aside and renamed, so a reader never sees half a file. */
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", file, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "%d\n", port);
	if (fclose(f) || rename(tmp, file)) {
		unlink(tmp);
		return -errno;
	}
	return 0;
}

static int ft_read_port_file(struct ft_ctx *c, const char *file)
{
	uint64_t deadline = ft_deadline(c);
	int port = -1;
	FILE *f;

	while (!(f = fopen(file, "r"))) {
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "%s: no port file %s after %d s\n",
				ft_prog, file, c->opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
		usleep(5000);
	}
	if (fscanf(f, "%d", &port) != 1 || port <= 0 || port > 65535)
		port = -1;
	fclose(f);
	if (port < 0) {
		fprintf(stderr, "%s: bad port file %s\n", ft_prog, file);
		return -FI_EINVAL;
	}
	return port;
}

static int ft_oob_listen(struct ft_ctx *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE };
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	struct addrinfo *ai;
	char port[16], host[NI_MAXHOST], serv[NI_MAXSERV];
	int fd, ret, one = 1;

	snprintf(port, sizeof(port), "%d", c->opts.oob_port);
	ret = getaddrinfo(c->opts.oob_bind, port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", ft_prog, c->opts.oob_bind,
			gai_strerror(ret));
		return -FI_EINVAL;
	}
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		freeaddrinfo(ai);
		return -errno;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) || listen(fd, 4) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		fprintf(stderr, "%s: out-of-band listen on %s:%s: %s\n",
			ft_prog, c->opts.oob_bind, port, strerror(errno));
		freeaddrinfo(ai);
		close(fd);
		return ret;
	}
	freeaddrinfo(ai);
	getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv,
		    sizeof(serv), NI_NUMERICHOST | NI_NUMERICSERV);
	if (c->opts.port_file) {
		ret = ft_write_port_file(c->opts.port_file, atoi(serv));
		if (ret) {
			fprintf(stderr, "%s: cannot write %s: %s\n", ft_prog,
				c->opts.port_file, strerror(-ret));
			close(fd);
			return ret;
		}
	}
	fprintf(stderr, "%s: server waiting on %s port %s\n", ft_prog, host,
		serv);
	return fd;
}

static int ft_oob_accept(struct ft_ctx *c)
{
	int lfd, fd, ret;

	lfd = ft_oob_listen(c);
	if (lfd < 0)
		return lfd;
	ret = ft_poll_fd(lfd, POLLIN, ft_deadline(c));
	if (ret) {
		fprintf(stderr, "%s: no client within %d s\n", ft_prog,
			c->opts.timeout_s);
		close(lfd);
		return ret;
	}
	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	ret = -errno;
	close(lfd);
	if (fd < 0) {
		fprintf(stderr, "%s: accept: %s\n", ft_prog, strerror(-ret));
		return ret;
	}
	return fd;
}

static int ft_oob_connect(struct ft_ctx *c)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM };
	uint64_t deadline = ft_deadline(c);
	struct addrinfo *ai, *a;
	char port[16];
	int fd = -1, ret, p = c->opts.oob_port;

	if (c->opts.port_file) {
		p = ft_read_port_file(c, c->opts.port_file);
		if (p < 0)
			return p;
	}
	if (!p) {
		fprintf(stderr, "%s: the client needs -P PORT or -f FILE\n",
			ft_prog);
		return -FI_EINVAL;
	}
	snprintf(port, sizeof(port), "%d", p);
	ret = getaddrinfo(c->opts.server, port, &hints, &ai);
	if (ret) {
		fprintf(stderr, "%s: %s: %s\n", ft_prog, c->opts.server,
			gai_strerror(ret));
		return -FI_EINVAL;
	}
	/* The server may not listen yet: retry until the deadline. */
	for (;;) {
		ret = -ECONNREFUSED;
		for (a = ai; a; a = a->ai_next) {
			fd = socket(a->ai_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
			if (fd < 0)
				continue;
			if (!connect(fd, a->ai_addr, a->ai_addrlen))
				break;
			ret = -errno;
			close(fd);
		}
		if (a) {
			ret = fd;
			break;
		}
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "%s: connect %s port %s: %s\n", ft_prog,
				c->opts.server, port, strerror(-ret));
			break;
		}
		usleep(10000);
	}
	freeaddrinfo(ai);
	return ret;
}

int ft_oob_start(struct ft_ctx *c)
{
	int fd, one = 1;

	fd = ft_is_client(c) ? ft_oob_connect(c) : ft_oob_accept(c);
	if (fd < 0)
		return fd;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->oob_fd = fd;
	return 0;
}

int ft_oob_send(struct ft_ctx *c, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	ssize_t n;

	while (len) {
		n = send(c->oob_fd, p, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: out-of-band send: %s\n", ft_prog,
				n < 0 ? strerror(errno) : "closed");
			return -FI_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * Wait for out-of-band data. Once the endpoint is open we keep driving the
 * fabric meanwhile: under manual progress the peer may need us (ACKs,
 * retransmissions, rendezvous reads) to get where it will answer.
 */
static int ft_oob_wait(struct ft_ctx *c, uint64_t deadline)
{
	int ret;

	if (!c->ncqs)
		return ft_poll_fd(c->oob_fd, POLLIN, deadline);
	for (;;) {
		struct pollfd p = { .fd = c->oob_fd, .events = POLLIN };

		ret = poll(&p, 1, 0);
		if (ret > 0)
			return 0;
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ft_now_ns() > deadline)
			return -FI_ETIMEDOUT;
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		if (!ret)
			sched_yield();
	}
}

int ft_oob_recv(struct ft_ctx *c, void *buf, size_t len)
{
	uint64_t deadline = ft_deadline(c);
	uint8_t *p = buf;
	ssize_t n;
	int ret;

	while (len) {
		ret = ft_oob_wait(c, deadline);
		if (ret) {
			if (ret == -FI_ETIMEDOUT)
				fprintf(stderr, "%s: peer silent for %d s\n",
					ft_prog, c->opts.timeout_s);
			return ret;
		}
		n = recv(c->oob_fd, p, len, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "%s: out-of-band recv: %s\n", ft_prog,
				n < 0 ? strerror(errno) : "peer closed");
			return -FI_EIO;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int ft_oob_recv_progress(struct ft_ctx *c, void *buf, size_t len)
{
	uint64_t deadline = ft_deadline(c);
	struct pollfd p = { .fd = c->oob_fd, .events = POLLIN };
	unsigned idle = 0;
	int ret;

	for (;;) {
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		if (ret)
			continue;
		if (!(++idle % FT_IDLE_YIELD))
			sched_yield();
		if (idle % 16)
			continue;
		ret = poll(&p, 1, 0);
		if (ret > 0)
			return ft_oob_recv(c, buf, len);
		if (ret < 0 && errno != EINTR)
			return -errno;
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "%s: peer silent for %d s\n", ft_prog,
				c->opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
	}
}

int ft_oob_recv_u64_progress(struct ft_ctx *c, uint64_t *v)
{
	uint8_t b[8];
	int ret = ft_oob_recv_progress(c, b, sizeof(b));

	if (!ret)
		*v = ft_get_be64(b);
	return ret;
}

int ft_oob_sync(struct ft_ctx *c)
{
	uint64_t v;

	return ft_oob_swap(c, 0x5359, &v);
}

int ft_oob_send_u64(struct ft_ctx *c, uint64_t v)
{
	uint8_t b[8];

	ft_put_be64(b, v);
	return ft_oob_send(c, b, sizeof(b));
}

int ft_oob_recv_u64(struct ft_ctx *c, uint64_t *v)
{
	uint8_t b[8];
	int ret;

	ret = ft_oob_recv(c, b, sizeof(b));
	if (!ret)
		*v = ft_get_be64(b);
	return ret;
}

int ft_oob_swap(struct ft_ctx *c, uint64_t mine, uint64_t *theirs)
{
	int ret = ft_oob_send_u64(c, mine);

	return ret ? ret : ft_oob_recv_u64(c, theirs);
}

int ft_oob_share(struct ft_ctx *c, uint64_t *vals, size_t n)
{
	uint8_t b[8];
	size_t i;
	int ret;

	for (i = 0; i < n; i++) {
		if (ft_is_client(c)) {
			ft_put_be64(b, vals[i]);
			ret = ft_oob_send(c, b, sizeof(b));
		} else {
			ret = ft_oob_recv(c, b, sizeof(b));
			vals[i] = ft_get_be64(b);
		}
		if (ret)
			return ret;
	}
	return 0;
}

int ft_oob_send_name(struct ft_ctx *c, struct fid_ep *ep)
{
	uint8_t name[FT_NAME_MAX], len8[8];
	size_t len;
	int ret;

	ret = ft_getname(ep, name, &len);
	if (ret)
		return ret;
	ft_put_be64(len8, len);
	ret = ft_oob_send(c, len8, sizeof(len8));
	return ret ? ret : ft_oob_send(c, name, len);
}

int ft_oob_recv_name(struct ft_ctx *c, fi_addr_t *addr)
{
	uint8_t name[FT_NAME_MAX], len8[8];
	uint64_t len;
	int ret;

	ret = ft_oob_recv(c, len8, sizeof(len8));
	if (ret)
		return ret;
	len = ft_get_be64(len8);
	if (!len || len > sizeof(name)) {
		fprintf(stderr, "%s: peer sent a %" PRIu64 "-byte name\n",
			ft_prog, len);
		return -FI_EINVAL;
	}
	ret = ft_oob_recv(c, name, len);
	return ret ? ret : ft_av_insert(c, name, addr);
}

int ft_oob_xchg_names(struct ft_ctx *c)
{
	int ret;

	/* Names are small: both sides may send first without blocking. */
	ret = ft_oob_send_name(c, c->ep);
	return ret ? ret : ft_oob_recv_name(c, &c->peer);
}

/* ------------------------------------------------------------------ */
/* memory registration */

int ft_mr_reg(struct ft_ctx *c, void *buf, size_t len, struct fid_mr **mr,
	      void **desc)
{
	static uint64_t key = 1;
	int ret;

	*mr = NULL;
	*desc = NULL;
	if (!c->need_mr)
		return 0;
	ret = fi_mr_reg(c->domain, buf, len, FI_SEND | FI_RECV, 0, key++, 0,
			mr, NULL);
	if (ret) {
		ft_perr("fi_mr_reg", ret);
		return ret;
	}
	*desc = fi_mr_desc(*mr);
	return 0;
}

void ft_mr_close(struct fid_mr *mr)
{
	if (mr)
		ft_close_fid(&mr->fid, "fi_close(mr)");
}

int ft_mr_reg_rma(struct ft_ctx *c, void *buf, size_t len, uint64_t access,
		  struct fid_mr **mr, void **desc, uint64_t *key)
{
	/* distinct from ft_mr_reg's keys; both sides may use the same */
	static uint64_t next_key = 0x10000;
	uint64_t mode = c->info->domain_attr->mr_mode;
	int ret;

	*mr = NULL;
	*desc = NULL;
	ret = fi_mr_reg(c->domain, buf, len, access, 0, next_key++, 0, mr,
			NULL);
	if (ret) {
		ft_perr("fi_mr_reg", ret);
		return ret;
	}
	if (mode & FI_MR_ENDPOINT) {
		ret = fi_mr_bind(*mr, &c->ep->fid, 0);
		if (!ret)
			ret = fi_mr_enable(*mr);
		if (ret) {
			ft_perr("fi_mr_bind/fi_mr_enable", ret);
			ft_mr_close(*mr);
			*mr = NULL;
			return ret;
		}
	}
	*key = fi_mr_key(*mr);
	if (*key == FI_KEY_NOTAVAIL) {
		fprintf(stderr, "%s: fi_mr_key: no key (FI_MR_RAW?)\n",
			ft_prog);
		ft_mr_close(*mr);
		*mr = NULL;
		return -FI_ENOKEY;
	}
	if (c->need_mr)
		*desc = fi_mr_desc(*mr);
	return 0;
}

uint64_t ft_rma_addr(const struct ft_ctx *c, const void *base,
		     const void *buf)
{
	int mode = c->info->domain_attr->mr_mode;

	if (mode == FI_MR_BASIC || (mode != FI_MR_SCALABLE &&
				    (mode & FI_MR_VIRT_ADDR)))
		return (uint64_t)(uintptr_t)buf;
	return (uint64_t)((const char *)buf - (const char *)base);
}

/* ------------------------------------------------------------------ */
/* completions */

void ft_op_reset(struct ft_op *op)
{
	void (*on_comp)(struct ft_op *) = op->on_comp;
	void *user = op->user;
	uint64_t id = op->id;

	memset(op, 0, sizeof(*op));
	op->on_comp = on_comp;
	op->user = user;
	op->id = id;
}

static int ft_cq_error(struct ft_ctx *c, struct fid_cq *cq)
{
	struct fi_cq_err_entry e = { 0 };
	struct ft_op *op;
	char pbuf[96];
	ssize_t ret;

	ret = fi_cq_readerr(cq, &e, 0);
	if (ret == -FI_EAGAIN)
		return 0;
	if (ret < 0) {
		ft_perr("fi_cq_readerr", (int)ret);
		return (int)ret;
	}
	op = e.op_context;
	if (!op) {
		fprintf(stderr, "%s: error completion without context: %s\n",
			ft_prog, fi_strerror(e.err));
		c->stray++;
		return 1;
	}
	op->done = true;
	op->err = e.err ? e.err : FI_EOTHER;
	op->prov_errno = e.prov_errno;
	op->olen = e.olen;
	op->comp.op_context = e.op_context;
	op->comp.flags = e.flags;
	op->comp.len = e.len;
	op->comp.buf = e.buf;
	op->comp.data = e.data;
	op->comp.tag = e.tag;
	pbuf[0] = '\0';
	if (e.prov_errno)
		fi_cq_strerror(cq, e.prov_errno, e.err_data, pbuf,
			       sizeof(pbuf));
	snprintf(op->errstr, sizeof(op->errstr), "%s (err %d%s%s)",
		 fi_strerror(op->err), op->err, pbuf[0] ? ", provider: " : "",
		 pbuf);
	op->ncomp++;
	if (op->on_comp)
		op->on_comp(op);
	return 1;
}

int ft_progress(struct ft_ctx *c)
{
	struct fi_cq_tagged_entry ent[FT_CQ_BATCH];
	struct ft_op *op;
	int i, n, total = 0;
	ssize_t ret;

	for (n = 0; n < c->ncqs; n++) {
		for (;;) {
			ret = fi_cq_read(c->cqs[n], ent, FT_CQ_BATCH);
			if (ret == -FI_EAGAIN)
				break;
			if (ret == -FI_EAVAIL) {
				ret = ft_cq_error(c, c->cqs[n]);
				if (ret < 0)
					return (int)ret;
				total += (int)ret;
				continue;
			}
			if (ret < 0) {
				ft_perr("fi_cq_read", (int)ret);
				return (int)ret;
			}
			for (i = 0; i < ret; i++) {
				op = ent[i].op_context;
				if (!op && c->on_remote) {
					c->on_remote(c, &ent[i]);
					continue;
				}
				if (!op) {
					c->stray++;
					continue;
				}
				op->comp = ent[i];
				op->err = 0;
				op->done = true;
				op->ncomp++;
				if (op->on_comp)
					op->on_comp(op);
			}
			total += (int)ret;
			if (ret < FT_CQ_BATCH)
				break;
		}
	}
	return total;
}

/* The out-of-band peer closed its socket: it has exited (or failed). */
static bool ft_oob_peer_gone(const struct ft_ctx *c)
{
	char b;

	if (c->oob_fd < 0)
		return false;
	return recv(c->oob_fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

int ft_wait_op(struct ft_ctx *c, struct ft_op *op)
{
	uint64_t deadline = 0;
	unsigned idle = 0;
	int ret;

	while (!op->done) {
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		if (ret > 0) {
			idle = 0;
			continue;
		}
		if (++idle % FT_IDLE_YIELD)
			continue;
		sched_yield();
		if (!(idle % (FT_IDLE_YIELD * 64))) {
			if (ft_oob_peer_gone(c)) {
				fprintf(stderr, "%s: peer exited while we wait "
					"for a completion\n", ft_prog);
				return -FI_ECONNRESET;
			}
			if (c->abort_check && c->abort_check(c))
				return -FI_ECANCELED;
		}
		/* Read the clock only now and then: it is not free. */
		if (!deadline)
			deadline = ft_deadline(c);
		else if (ft_now_ns() > deadline) {
			fprintf(stderr, "%s: no completion within %d s\n",
				ft_prog, c->opts.timeout_s);
			return -FI_ETIMEDOUT;
		}
	}
	return 0;
}

int ft_op_check(const struct ft_op *op, const char *what)
{
	if (!op->err)
		return 0;
	fprintf(stderr, "%s: %s: %s\n", ft_prog, what, op->errstr);
	return -op->err;
}

int ft_spin(struct ft_ctx *c, int ms)
{
	uint64_t end = ft_now_ns() + (uint64_t)ms * 1000000ull;
	int ret;

	while (ft_now_ns() < end) {
		ret = ft_progress(c);
		if (ret < 0)
			return ret;
		if (!ret)
			sched_yield();
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* data */

/* splitmix64's output function: a cheap, well-mixed 64-bit hash. */
uint64_t ft_mix64(uint64_t x)
{
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#define FT_GOLDEN 0x9e3779b97f4a7c15ull

void ft_fill(void *buf, size_t len, uint64_t seed)
{
	uint8_t *p = buf;
	uint64_t x = ft_mix64(seed ^ len), z;
	size_t i;

	for (i = 0; i + 8 <= len; i += 8) {
		x += FT_GOLDEN;
		z = ft_mix64(x);
		memcpy(p + i, &z, 8);
	}
	if (i < len) {
		x += FT_GOLDEN;
		z = ft_mix64(x);
		memcpy(p + i, &z, len - i);
	}
}

ssize_t ft_check(const void *buf, size_t len, uint64_t seed)
{
	const uint8_t *p = buf;
	uint64_t x = ft_mix64(seed ^ len), z;
	size_t i, j, n;

	for (i = 0; i < len; i += 8) {
		x += FT_GOLDEN;
		z = ft_mix64(x);
		n = len - i < 8 ? len - i : 8;
		if (memcmp(p + i, &z, n)) {
			for (j = 0; j < n; j++)
				if (p[i + j] != ((uint8_t *)&z)[j])
					return (ssize_t)(i + j);
		}
	}
	return -1;
}

/* FNV-1a, 32 bits. */
uint32_t ft_csum(const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= p[i];
		h *= 16777619u;
	}
	return h;
}

int ft_parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s)
		return -1;
	switch (*end) {
	case 'k': case 'K':
		v <<= 10;
		end++;
		break;
	case 'm': case 'M':
		v <<= 20;
		end++;
		break;
	case 'g': case 'G':
		v <<= 30;
		end++;
		break;
	default:
		break;
	}
	if (*end)
		return -1;
	*out = (size_t)v;
	return 0;
}

int ft_parse_sizes_param(const char *prog, const char *spec, uint64_t *n,
			 uint64_t *sizes)
{
	size_t v[FT_MAX_SIZES];
	int i, cnt = ft_parse_sizes(spec, v, FT_MAX_SIZES);

	if (cnt <= 0) {
		fprintf(stderr, "%s: bad -S %s\n", prog, spec);
		return -1;
	}
	*n = (uint64_t)cnt;
	for (i = 0; i < cnt; i++)
		sizes[i] = v[i];
	return 0;
}

int ft_parse_sizes(const char *s, size_t *sizes, int max)
{
	char buf[512], *tok, *save = NULL, *c1, *c2;
	size_t lo, hi, step, v;
	int n = 0;

	if (!strcmp(s, "all"))
		s = "1:16m";
	snprintf(buf, sizeof(buf), "%s", s);
	for (tok = strtok_r(buf, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		c1 = strchr(tok, ':');
		if (!c1) {
			if (ft_parse_size(tok, &v) || n == max)
				return -1;
			sizes[n++] = v;
			continue;
		}
		*c1++ = '\0';
		step = 2;
		c2 = strchr(c1, ':');
		if (c2) {
			*c2++ = '\0';
			if (ft_parse_size(c2, &step) || step < 2)
				return -1;
		}
		if (ft_parse_size(tok, &lo) || ft_parse_size(c1, &hi) ||
		    !lo || lo > hi)
			return -1;
		for (v = lo; v <= hi; v *= step) {
			if (n == max)
				return -1;
			sizes[n++] = v;
		}
	}
	return n;
}

void *ft_alloc(size_t len)
{
	size_t align = len >= FT_HUGE ? FT_HUGE : 4096;
	void *p = NULL;

	if (posix_memalign(&p, align, len ? len : 1))
		return NULL;
#ifdef MADV_HUGEPAGE
	/* Touching a GiB 4 KiB page by page costs seconds on a VM; huge
	 * pages, where the kernel has them, fault a fraction of that. */
	if (align == FT_HUGE)
		(void)madvise(p, len, MADV_HUGEPAGE);
#endif
	memset(p, 0, len);
	return p;
}

void ft_put_be64(uint8_t *p, uint64_t v)
{
	int i;

	for (i = 7; i >= 0; i--) {
		p[i] = (uint8_t)v;
		v >>= 8;
	}
}

uint64_t ft_get_be64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 0; i < 8; i++)
		v = (v << 8) | p[i];
	return v;
}
