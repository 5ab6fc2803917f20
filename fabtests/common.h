/*
 * Shared helpers of the uet fabtests: option parsing, fabric setup through
 * the public libfabric API only, an out-of-band (OOB) TCP channel for the
 * endpoint-name rendezvous, completion dispatch, data patterns and timing.
 *
 * The programs run unchanged over any provider (uet, tcp, udp;ofi_rxd).
 */
#ifndef FT_COMMON_H
#define FT_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_tagged.h>

#define FT_MAX_SIZES	64
#define FT_MAX_CQS	4
#define FT_NAME_MAX	256

/* Options every program understands (see ft_usage_common()). */
struct ft_opts {
	const char *prov;		/* -p: fi_info provider name */
	enum fi_ep_type ep_type;	/* -e rdm|dgram */
	const char *src_addr;		/* -s: local node, resolved with FI_SOURCE */
	const char *domain;		/* -D: domain name */
	const char *oob_bind;		/* -B: server's OOB listen address */
	int oob_port;			/* -P: OOB TCP port, 0 = any free one */
	const char *port_file;		/* -f: where the server publishes its port */
	const char *server;		/* positional: client mode, server's host */
	int timeout_s;			/* -T: give up waiting after this long */
	bool force_mr;			/* -L: register buffers even without FI_MR_LOCAL */
	uint32_t tclass;		/* -C: tx_attr->tclass, FI_TC_UNSPEC if none */
	bool verbose;			/* -v */
};

/*
 * One posted operation. The provider may use the fi_context2 as scratch
 * space (FI_CONTEXT/FI_CONTEXT2 modes), so it comes first and the struct
 * must stay alive until its completion is read.
 */
struct ft_op {
	struct fi_context2 fctx;
	bool done;
	int err;			/* 0, or the positive FI_E* of an error entry */
	int prov_errno;
	size_t olen;			/* overflow length of an FI_ETRUNC entry */
	struct fi_cq_tagged_entry comp;	/* flags, len, buf, data, tag */
	char errstr[160];
	unsigned ncomp;			/* completions seen (FI_MULTI_RECV: many) */
	/* Called for every completion, after the fields above are set. */
	void (*on_comp)(struct ft_op *op);
	void *user;			/* owner's data */
	uint64_t id;			/* owner's number */
};

struct ft_ctx {
	struct ft_opts opts;
	struct fi_info *info;
	struct fid_fabric *fabric;
	struct fid_domain *domain;
	struct fid_av *av;
	struct fid_cq *cq;
	struct fid_ep *ep;
	struct fid_cq *cqs[FT_MAX_CQS];	/* every CQ we opened, polled together */
	int ncqs;
	uint64_t caps;			/* what the endpoint was opened with */
	bool need_mr;			/* FI_MR_LOCAL or -L */
	bool ordered;			/* FI_ORDER_SAS on tx and rx */
	size_t min_multi_recv;		/* set on the ep before fi_enable if > 0 */
	int oob_fd;
	fi_addr_t peer;
	uint64_t stray;			/* completions without an ft_op */
	/* Optional: polled while waiting; true = the peer gave up. */
	bool (*abort_check)(struct ft_ctx *c);
	/* One-sided tests (ft_rma, ft_atomic). */
	bool mr_mode_set;		/* use mr_mode below in the hints */
	int mr_mode;			/* FI_MR_* the program supports */
	bool force_mr_endpoint;		/* add FI_MR_ENDPOINT before fi_domain */
	bool want_rma_cntrs;		/* bind the two below (FI_RMA_EVENT) */
	struct fid_cntr *rcntr_write;	/* FI_REMOTE_WRITE events */
	struct fid_cntr *rcntr_read;	/* FI_REMOTE_READ events */
	/* Optional: CQ entries without an operation context, i.e. remote
	 * CQ data of an RMA write at its target; else counted as stray. */
	void (*on_remote)(struct ft_ctx *c, const struct fi_cq_tagged_entry *e);
};

/* Program-specific option callback: return 0, or -1 on a bad value. */
typedef int (*ft_opt_cb)(void *arg, int opt, const char *optarg);

extern const char *ft_prog;

void ft_opts_init(struct ft_opts *o);
void ft_ctx_init(struct ft_ctx *c);
void ft_usage_common(void);
/* 0: run; 1: help printed; -1: error printed. */
int ft_parse_args(struct ft_opts *o, int argc, char **argv,
		  const char *prog_optstr, ft_opt_cb cb, void *arg);
bool ft_is_client(const struct ft_ctx *c);

/* Errors: "prog: what: fi_strerror (ret)" on stderr. */
void ft_perr(const char *what, int ret);
void ft_log(const struct ft_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * Pick the provider entry: required caps must be advertised, optional ones
 * are requested only when advertised; FI_ORDER_SAS likewise.
 */
int ft_getinfo(struct ft_ctx *c, uint64_t need_caps, uint64_t opt_caps);
/* fabric, domain, av, cq, ep (bound and enabled). */
int ft_open(struct ft_ctx *c);
/* A further endpoint on the same domain and av, with its own CQ. */
int ft_ep_open(struct ft_ctx *c, struct fid_ep **ep, struct fid_cq **cq);
void ft_close(struct ft_ctx *c);

int ft_getname(struct fid_ep *ep, uint8_t *name, size_t *len);
int ft_av_insert(struct ft_ctx *c, const void *name, fi_addr_t *addr);

/* Out-of-band TCP channel between the server and the client. */
int ft_oob_start(struct ft_ctx *c);
int ft_oob_send(struct ft_ctx *c, const void *buf, size_t len);
int ft_oob_recv(struct ft_ctx *c, void *buf, size_t len);
int ft_oob_sync(struct ft_ctx *c);
/* The client's values replace the server's. */
int ft_oob_share(struct ft_ctx *c, uint64_t *vals, size_t n);
int ft_oob_send_u64(struct ft_ctx *c, uint64_t v);
int ft_oob_recv_u64(struct ft_ctx *c, uint64_t *v);
/* Swap one value each way. */
int ft_oob_swap(struct ft_ctx *c, uint64_t mine, uint64_t *theirs);
/* Send our name, insert the peer's as c->peer. */
int ft_oob_xchg_names(struct ft_ctx *c);
int ft_oob_send_name(struct ft_ctx *c, struct fid_ep *ep);
int ft_oob_recv_name(struct ft_ctx *c, fi_addr_t *addr);

/* Local registration when the provider needs it (else mr = desc = NULL). */
int ft_mr_reg(struct ft_ctx *c, void *buf, size_t len, struct fid_mr **mr,
	      void **desc);
void ft_mr_close(struct fid_mr *mr);
/*
 * A region peers may access (access: FI_REMOTE_READ/WRITE, plus FI_READ/
 * FI_WRITE for local use), whatever the mr_mode: an application key from
 * a counter unless FI_MR_PROV_KEY, bound to the endpoint and enabled
 * under FI_MR_ENDPOINT. *key is what the peer must use, *desc is NULL
 * unless FI_MR_LOCAL.
 */
int ft_mr_reg_rma(struct ft_ctx *c, void *buf, size_t len, uint64_t access,
		  struct fid_mr **mr, void **desc, uint64_t *key);
/* The address a peer names buf by: virtual under FI_MR_VIRT_ADDR, else
 * the offset from base (the start of buf's region). */
uint64_t ft_rma_addr(const struct ft_ctx *c, const void *base,
		     const void *buf);
/* Receive len bytes out of band while running ft_progress (the target
 * of one-sided operations must progress to serve them). */
int ft_oob_recv_progress(struct ft_ctx *c, void *buf, size_t len);
int ft_oob_recv_u64_progress(struct ft_ctx *c, uint64_t *v);

void ft_op_reset(struct ft_op *op);
/* Read what is there on every CQ; returns entries handled or -errno. */
int ft_progress(struct ft_ctx *c);
/* Until op completes (successfully or not) or -T passes (-FI_ETIMEDOUT). */
int ft_wait_op(struct ft_ctx *c, struct ft_op *op);
/* Print "what: <error>" for a failed op and return -op->err; 0 if fine. */
int ft_op_check(const struct ft_op *op, const char *what);
/* Run ft_progress for about ms milliseconds. */
int ft_spin(struct ft_ctx *c, int ms);
/* Post with retry: runs progress while the call returns -FI_EAGAIN. */
#define FT_POST(c, call) ({						\
	ssize_t ft_ret__;						\
	uint64_t ft_end__ = ft_deadline(c);				\
	while ((ft_ret__ = (call)) == -FI_EAGAIN) {			\
		if (ft_progress(c) < 0 || ft_now_ns() > ft_end__)	\
			break;						\
	}								\
	ft_ret__;							\
})

uint64_t ft_now_ns(void);
/* CPU microseconds (user + system) this process has used, all threads. */
uint64_t ft_cpu_us(void);
/* The line the compare scripts read: "# cpu SIZE CLIENT SERVER", each
 * side's CPU microseconds per message over msgs messages. */
void ft_cpu_print(size_t size, uint64_t client_us, uint64_t server_us,
		  uint64_t msgs);
uint64_t ft_deadline(const struct ft_ctx *c);

/* Deterministic content: the same (seed, len) always gives the same bytes. */
void ft_fill(void *buf, size_t len, uint64_t seed);
/* -1 if buf holds ft_fill(seed) content, else the first wrong offset. */
ssize_t ft_check(const void *buf, size_t len, uint64_t seed);
uint32_t ft_csum(const void *buf, size_t len);
uint64_t ft_mix64(uint64_t x);

/* "all", "1,64,4k", "1:1m" (powers of two), "64k:16m:4" (step x4). */
int ft_parse_sizes(const char *s, size_t *sizes, int max);
/* ft_parse_sizes into a parameter block: *n = count, sizes[0..n-1].
 * Returns 0, or -1 (with a message naming prog) for a bad spec. */
int ft_parse_sizes_param(const char *prog, const char *spec, uint64_t *n,
			 uint64_t *sizes);
int ft_parse_size(const char *s, size_t *out);
void *ft_alloc(size_t len);

void ft_put_be64(uint8_t *p, uint64_t v);
uint64_t ft_get_be64(const uint8_t *p);

#endif /* FT_COMMON_H */
