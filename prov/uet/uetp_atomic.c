/* fi_ops_atomic and fi_query_atomic.
 *
 * A libfabric atomic is one UET atomic request (docs/choices.md
 * §6.3): a single-packet ATOMIC (base), FETCHING_ATOMIC (fetch) or a
 * FETCHING_ATOMIC with a compare-and-swap opcode (compare), carrying the
 * UET atomic opcode and datatype in the atomic extension header, the
 * mem_key and the remote address. Which op/datatype pairs work, and how
 * many elements fit in one request, is the engine's answer; the
 * libfabric rules of which ops belong to which call (fi_atomic.3) are
 * applied on top, so the *valid calls and fi_query_atomic say exactly
 * what a post would accept.
 */
#include <stdlib.h>
#include <string.h>

#include "uet/err.h"
#include "uet/wire.h"
#include "uetp.h"

int uetp_atomic_op(enum fi_op op)
{
	switch (op) {
	case FI_MIN:		return UET_AMO_MIN;
	case FI_MAX:		return UET_AMO_MAX;
	case FI_SUM:		return UET_AMO_SUM;
	case FI_PROD:		return UET_AMO_PROD;
	case FI_LOR:		return UET_AMO_LOR;
	case FI_LAND:		return UET_AMO_LAND;
	case FI_BOR:		return UET_AMO_BOR;
	case FI_BAND:		return UET_AMO_BAND;
	case FI_LXOR:		return UET_AMO_LXOR;
	case FI_BXOR:		return UET_AMO_BXOR;
	case FI_ATOMIC_READ:	return UET_AMO_READ;
	case FI_ATOMIC_WRITE:	return UET_AMO_WRITE;
	case FI_CSWAP:		return UET_AMO_CSWAP;
	case FI_CSWAP_NE:	return UET_AMO_CSWAP_NE;
	case FI_CSWAP_LE:	return UET_AMO_CSWAP_LE;
	case FI_CSWAP_LT:	return UET_AMO_CSWAP_LT;
	case FI_CSWAP_GE:	return UET_AMO_CSWAP_GE;
	case FI_CSWAP_GT:	return UET_AMO_CSWAP_GT;
	case FI_MSWAP:		return UET_AMO_MSWAP;
	default:		return -1;
	}
}

int uetp_atomic_dt(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8:		return UET_AMO_INT8;
	case FI_UINT8:		return UET_AMO_UINT8;
	case FI_INT16:		return UET_AMO_INT16;
	case FI_UINT16:		return UET_AMO_UINT16;
	case FI_INT32:		return UET_AMO_INT32;
	case FI_UINT32:		return UET_AMO_UINT32;
	case FI_INT64:		return UET_AMO_INT64;
	case FI_UINT64:		return UET_AMO_UINT64;
	case FI_INT128:		return UET_AMO_INT128;
	case FI_UINT128:	return UET_AMO_UINT128;
	case FI_FLOAT:		return UET_AMO_FLOAT;
	case FI_DOUBLE:		return UET_AMO_DOUBLE;
	case FI_FLOAT_COMPLEX:	return UET_AMO_FLOAT_COMPLEX;
	case FI_DOUBLE_COMPLEX:	return UET_AMO_DOUBLE_COMPLEX;
	case FI_LONG_DOUBLE:	return UET_AMO_LONG_DOUBLE;
	case FI_LONG_DOUBLE_COMPLEX: return UET_AMO_LONG_DOUBLE_COMPLEX;
	default:		return -1;
	}
}

size_t uetp_atomic_dt_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8:
	case FI_UINT8:
		return 1;
	case FI_INT16:
	case FI_UINT16:
		return 2;
	case FI_INT32:
	case FI_UINT32:
	case FI_FLOAT:
		return 4;
	case FI_INT64:
	case FI_UINT64:
	case FI_DOUBLE:
	case FI_FLOAT_COMPLEX:
		return 8;
	case FI_INT128:
	case FI_UINT128:
	case FI_DOUBLE_COMPLEX:
		return 16;
	case FI_LONG_DOUBLE:
		return sizeof(long double);
	case FI_LONG_DOUBLE_COMPLEX:
		return 2 * sizeof(long double);
	default:
		return 0;
	}
}

static bool uetp_atomic_args_ok(enum fi_datatype dt, enum fi_op op)
{
	return (unsigned)dt <= FI_UINT128 && (unsigned)op < FI_ATOMIC_OP_LAST;
}

/* fi_atomic.3: which ops each family of calls takes. */
static bool uetp_atomic_op_in_kind(enum fi_op op, unsigned kind)
{
	switch (kind) {
	case UETP_AMO_BASE:
		return (op >= FI_MIN && op <= FI_BXOR) || op == FI_ATOMIC_WRITE;
	case UETP_AMO_FETCH:
		return op >= FI_MIN && op <= FI_ATOMIC_WRITE;
	case UETP_AMO_COMPARE:
		return op >= FI_CSWAP && op <= FI_MSWAP;
	}
	return false;
}

/* ---- the engine's answer ---- */

#define UETP_AMO_NDT	(FI_UINT128 + 1)
#define UETP_AMO_SLOT(kind, op, dt) \
	((((size_t)(kind) - 1) * FI_ATOMIC_OP_LAST + (size_t)(op)) * \
	 UETP_AMO_NDT + (size_t)(dt))

static void uetp_atomic_nop_complete(void *user,
				     const struct uet_completion *c)
{
	(void)user;
	(void)c;
}

static void uetp_atomic_nop_rand(void *user, void *buf, size_t len)
{
	(void)user;
	memset(buf, 0, len);
}

/* What the engine carries depends only on its configuration (the MTU
 * above all), which every endpoint of the domain shares; fi_query_atomic
 * may come before any endpoint exists, so ask a throw-away engine of the
 * same configuration (sans-I/O: it opens nothing) once per domain. */
static int uetp_atomic_table(struct uetp_domain *dom)
{
	struct uet_callbacks cb = {
		.complete = uetp_atomic_nop_complete,
		.rand = uetp_atomic_nop_rand,
	};
	static const uint8_t types[3] = {
		UET_OP_ATOMIC, UET_OP_FETCH_ATOMIC, UET_OP_CMP_ATOMIC,
	};
	struct uet_fep_config cfg;
	struct uet_fep *fep;
	uint32_t *t;

	t = calloc(3 * FI_ATOMIC_OP_LAST * UETP_AMO_NDT, sizeof(*t));
	if (!t)
		return -FI_ENOMEM;
	uet_fep_config_default(&cfg);
	cfg.local = dom->iface.addr;
	cfg.job_id = dom->job_id;
	cfg.mtu = dom->mtu;
	cfg.tx_depth = cfg.rx_depth = 1;
	if (uet_fep_open(&fep, &cfg, &cb, NULL, 0)) {
		free(t);
		return -FI_ENOMEM;
	}
	for (unsigned k = UETP_AMO_BASE; k <= UETP_AMO_COMPARE; k++) {
		for (int op = 0; op < FI_ATOMIC_OP_LAST; op++) {
			int uop = uetp_atomic_op((enum fi_op)op);

			for (int dt = 0; dt < UETP_AMO_NDT; dt++) {
				int udt = uetp_atomic_dt((enum fi_datatype)dt);

				if (uop < 0 || udt < 0)
					continue;
				t[UETP_AMO_SLOT(k, op, dt)] = (uint32_t)
					uet_fep_amo_max(fep, types[k - 1],
							(uint8_t)uop,
							(uint8_t)udt);
			}
		}
	}
	uet_fep_close(fep);
	dom->amo_max = t;
	return 0;
}

size_t uetp_atomic_max_count(struct uetp_domain *dom, enum fi_datatype dt,
			     enum fi_op op, unsigned kind)
{
	size_t n = 0;

	if (!uetp_atomic_args_ok(dt, op) || kind < UETP_AMO_BASE ||
	    kind > UETP_AMO_COMPARE || uetp_atomic_op(op) < 0 ||
	    uetp_atomic_dt(dt) < 0 || !uetp_atomic_op_in_kind(op, kind))
		return 0;
	pthread_mutex_lock(&dom->lock);
	if (dom->amo_max || !uetp_atomic_table(dom))
		n = dom->amo_max[UETP_AMO_SLOT(kind, op, dt)];
	pthread_mutex_unlock(&dom->lock);
	return n;
}

int uetp_atomic_query(struct fid_domain *domain, enum fi_datatype dt,
		      enum fi_op op, struct fi_atomic_attr *attr,
		      uint64_t flags)
{
	struct uetp_domain *dom = uet_container_of(domain, struct uetp_domain,
						    fid);
	unsigned kind = UETP_AMO_BASE;
	size_t n;

	if (flags & ~(uint64_t)(FI_FETCH_ATOMIC | FI_COMPARE_ATOMIC |
				FI_TAGGED))
		return -FI_EBADFLAGS;
	if ((flags & FI_FETCH_ATOMIC) && (flags & FI_COMPARE_ATOMIC))
		return -FI_EINVAL;
	if (!attr || !uetp_atomic_args_ok(dt, op))
		return -FI_EINVAL;
	if (flags & FI_TAGGED)
		return -FI_EOPNOTSUPP;	/* no atomics into tagged buffers */
	if (flags & FI_FETCH_ATOMIC)
		kind = UETP_AMO_FETCH;
	else if (flags & FI_COMPARE_ATOMIC)
		kind = UETP_AMO_COMPARE;
	n = uetp_atomic_max_count(dom, dt, op, kind);
	if (!n)
		return -FI_EOPNOTSUPP;
	attr->count = n;
	attr->size = uetp_atomic_dt_size(dt);
	return 0;
}

/* ---- posting ---- */

/* One atomic call, as the *msg variants see it. */
struct uetp_amo_args {
	unsigned kind;			/* UETP_AMO_* */
	const struct fi_msg_atomic *msg;
	const struct fi_ioc *compare;
	size_t compare_count;
	const struct fi_ioc *result;
	size_t result_count;
	uint64_t flags;
};

/* fi_ioc list -> engine iovs of esize-byte elements; total elements in
 * *n. -FI_EINVAL if too many entries. */
static int uetp_amo_iov(const struct uetp_ep *ep, const struct fi_ioc *ioc,
			size_t count, size_t esize, struct uet_iov *iov,
			size_t *n)
{
	*n = 0;
	if (count > ep->iov_limit || (count && !ioc))
		return -FI_EINVAL;
	for (size_t i = 0; i < count; i++) {
		iov[i].base = ioc[i].addr;
		iov[i].len = ioc[i].count * esize;
		*n += ioc[i].count;
	}
	return 0;
}

static ssize_t uetp_amo_post(struct uetp_ep *ep, const struct uetp_amo_args *a)
{
	const struct fi_msg_atomic *msg = a->msg;
	struct uet_iov iov[UETP_IOV_LIMIT], res[UETP_IOV_LIMIT],
		       cmp[UETP_IOV_LIMIT];
	size_t esize, max, n, nres = 0, ncmp = 0;
	bool no_operand;
	struct uet_op op;
	int ret;

	if (!ep->enabled)
		return -FI_EOPBADSTATE;
	if (!msg || msg->rma_iov_count != UETP_RMA_IOV_LIMIT || !msg->rma_iov)
		return -FI_EINVAL;
	if (!uetp_atomic_args_ok(msg->datatype, msg->op))
		return -FI_EINVAL;
	if (a->flags & FI_REMOTE_CQ_DATA)
		return -FI_EBADFLAGS;	/* UET atomics carry no header data */
	max = uetp_atomic_max_count(ep->domain, msg->datatype, msg->op,
				    a->kind);
	if (!max)
		return -FI_EOPNOTSUPP;
	esize = uetp_atomic_dt_size(msg->datatype);
	/* fi_atomic.3: FI_ATOMIC_READ ignores the source buffer */
	no_operand = msg->op == FI_ATOMIC_READ && !msg->msg_iov;
	ret = uetp_amo_iov(ep, no_operand ? NULL : msg->msg_iov,
			   no_operand ? 0 : msg->iov_count, esize, iov, &n);
	if (!ret && a->kind != UETP_AMO_BASE)
		ret = uetp_amo_iov(ep, a->result, a->result_count, esize,
				   res, &nres);
	if (!ret && a->kind == UETP_AMO_COMPARE)
		ret = uetp_amo_iov(ep, a->compare, a->compare_count, esize,
				   cmp, &ncmp);
	if (ret)
		return ret;
	if (no_operand)
		n = nres;
	if (!n || n != msg->rma_iov[0].count)
		return -FI_EINVAL;	/* local and remote counts differ */
	if ((a->kind != UETP_AMO_BASE && nres != n) ||
	    (a->kind == UETP_AMO_COMPARE && ncmp != n))
		return -FI_EINVAL;
	if (n > max)
		return -FI_EINVAL;	/* more than one request carries */
	if ((a->flags & FI_INJECT) &&
	    (n + ncmp) * esize > ep->inject_size)
		return -FI_EMSGSIZE;

	memset(&op, 0, sizeof(op));
	op.type = a->kind == UETP_AMO_BASE ? UET_OP_ATOMIC :
		  a->kind == UETP_AMO_FETCH ? UET_OP_FETCH_ATOMIC :
		  UET_OP_CMP_ATOMIC;
	op.flags = uetp_post_tx_opf(a->flags);
	op.iov = iov;
	op.iov_count = no_operand ? 0 : msg->iov_count;
	op.cq_data = msg->data;
	op.rkey = msg->rma_iov[0].key;
	op.raddr = msg->rma_iov[0].addr;
	op.amo_op = (uint8_t)uetp_atomic_op(msg->op);
	op.amo_dt = (uint8_t)uetp_atomic_dt(msg->datatype);
	if (a->kind != UETP_AMO_BASE) {
		op.result_iov = res;
		op.result_count = a->result_count;
	}
	if (a->kind == UETP_AMO_COMPARE) {
		op.compare_iov = cmp;
		op.compare_count = a->compare_count;
	}
	ret = uetp_post_peer(ep, msg->addr, &op);
	if (ret)
		return ret;
	return uetp_rma_submit(ep, &op, a->flags, msg->context,
			       (uint8_t)a->kind);
}

/* An alias's FI_REMOTE_CQ_DATA is not for atomics: they carry no header
 * data. */
static uint64_t uetp_amo_tx_flags(struct fid_ep *ep_fid)
{
	return uetp_alias_tx_flags(ep_fid) & ~(uint64_t)FI_REMOTE_CQ_DATA;
}

static ssize_t uetp_amo(struct fid_ep *ep_fid, unsigned kind,
			const struct fi_msg_atomic *msg,
			const struct fi_ioc *compare, size_t compare_count,
			struct fi_ioc *result, size_t result_count,
			uint64_t flags)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	struct uetp_amo_args a = {
		.kind = kind,
		.msg = msg,
		.compare = compare,
		.compare_count = compare_count,
		.result = result,
		.result_count = result_count,
		.flags = flags,
	};

	if (flags & FI_TRIGGER)
		return uetp_trigger_atomic(ep, kind, msg, compare,
					   compare_count, result,
					   result_count, flags);
	return uetp_amo_post(ep, &a);
}

/* ---- base atomics ---- */

static ssize_t uetp_atomic_writemsg(struct fid_ep *ep,
				    const struct fi_msg_atomic *msg,
				    uint64_t flags)
{
	return uetp_amo(ep, UETP_AMO_BASE, msg, NULL, 0, NULL, 0,
			flags & ~UETP_INJECT_OP);
}

static ssize_t uetp_atomic_writev(struct fid_ep *ep, const struct fi_ioc *iov,
				  void **desc, size_t count,
				  fi_addr_t dest_addr, uint64_t addr,
				  uint64_t key, enum fi_datatype datatype,
				  enum fi_op op, void *context)
{
	struct fi_rma_ioc rma = { .addr = addr, .key = key };
	struct fi_msg_atomic msg = {
		.msg_iov = iov, .desc = desc, .iov_count = count,
		.addr = dest_addr, .rma_iov = &rma, .rma_iov_count = 1,
		.datatype = datatype, .op = op, .context = context,
	};

	for (size_t i = 0; iov && i < count; i++)
		rma.count += iov[i].count;
	return uetp_amo(ep, UETP_AMO_BASE, &msg, NULL, 0, NULL, 0,
			uetp_amo_tx_flags(ep));
}

static ssize_t uetp_atomic_write(struct fid_ep *ep, const void *buf,
				 size_t count, void *desc, fi_addr_t dest_addr,
				 uint64_t addr, uint64_t key,
				 enum fi_datatype datatype, enum fi_op op,
				 void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };

	return uetp_atomic_writev(ep, &ioc, &desc, 1, dest_addr, addr, key,
				  datatype, op, context);
}

static ssize_t uetp_atomic_inject(struct fid_ep *ep, const void *buf,
				  size_t count, fi_addr_t dest_addr,
				  uint64_t addr, uint64_t key,
				  enum fi_datatype datatype, enum fi_op op)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_rma_ioc rma = { .addr = addr, .count = count, .key = key };
	struct fi_msg_atomic msg = {
		.msg_iov = &ioc, .iov_count = 1, .addr = dest_addr,
		.rma_iov = &rma, .rma_iov_count = 1, .datatype = datatype,
		.op = op,
	};

	return uetp_amo(ep, UETP_AMO_BASE, &msg, NULL, 0, NULL, 0,
			FI_INJECT | UETP_INJECT_OP);
}

/* ---- fetching atomics ---- */

static ssize_t uetp_atomic_readwritemsg(struct fid_ep *ep,
					const struct fi_msg_atomic *msg,
					struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count, uint64_t flags)
{
	(void)result_desc;
	return uetp_amo(ep, UETP_AMO_FETCH, msg, NULL, 0, resultv,
			result_count, flags & ~UETP_INJECT_OP);
}

static ssize_t uetp_atomic_readwritev(struct fid_ep *ep,
				      const struct fi_ioc *iov, void **desc,
				      size_t count, struct fi_ioc *resultv,
				      void **result_desc, size_t result_count,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum fi_datatype datatype,
				      enum fi_op op, void *context)
{
	struct fi_rma_ioc rma = { .addr = addr, .key = key };
	struct fi_msg_atomic msg = {
		.msg_iov = iov, .desc = desc, .iov_count = count,
		.addr = dest_addr, .rma_iov = &rma, .rma_iov_count = 1,
		.datatype = datatype, .op = op, .context = context,
	};

	(void)result_desc;
	for (size_t i = 0; resultv && i < result_count; i++)
		rma.count += resultv[i].count;
	return uetp_amo(ep, UETP_AMO_FETCH, &msg, NULL, 0, resultv,
			result_count, uetp_amo_tx_flags(ep) &
			~(uint64_t)FI_INJECT);
}

static ssize_t uetp_atomic_readwrite(struct fid_ep *ep, const void *buf,
				     size_t count, void *desc, void *result,
				     void *result_desc, fi_addr_t dest_addr,
				     uint64_t addr, uint64_t key,
				     enum fi_datatype datatype, enum fi_op op,
				     void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return uetp_atomic_readwritev(ep, buf ? &ioc : NULL, &desc,
				      buf ? 1 : 0, &res, &result_desc, 1,
				      dest_addr, addr, key, datatype, op,
				      context);
}

/* ---- compare atomics ---- */

static ssize_t uetp_atomic_compwritemsg(struct fid_ep *ep,
					const struct fi_msg_atomic *msg,
					const struct fi_ioc *comparev,
					void **compare_desc,
					size_t compare_count,
					struct fi_ioc *resultv,
					void **result_desc,
					size_t result_count, uint64_t flags)
{
	(void)compare_desc;
	(void)result_desc;
	return uetp_amo(ep, UETP_AMO_COMPARE, msg, comparev, compare_count,
			resultv, result_count, flags & ~UETP_INJECT_OP);
}

static ssize_t uetp_atomic_compwritev(struct fid_ep *ep,
				      const struct fi_ioc *iov, void **desc,
				      size_t count,
				      const struct fi_ioc *comparev,
				      void **compare_desc,
				      size_t compare_count,
				      struct fi_ioc *resultv,
				      void **result_desc, size_t result_count,
				      fi_addr_t dest_addr, uint64_t addr,
				      uint64_t key, enum fi_datatype datatype,
				      enum fi_op op, void *context)
{
	struct fi_rma_ioc rma = { .addr = addr, .key = key };
	struct fi_msg_atomic msg = {
		.msg_iov = iov, .desc = desc, .iov_count = count,
		.addr = dest_addr, .rma_iov = &rma, .rma_iov_count = 1,
		.datatype = datatype, .op = op, .context = context,
	};

	(void)compare_desc;
	(void)result_desc;
	for (size_t i = 0; iov && i < count; i++)
		rma.count += iov[i].count;
	return uetp_amo(ep, UETP_AMO_COMPARE, &msg, comparev, compare_count,
			resultv, result_count, uetp_amo_tx_flags(ep) &
			~(uint64_t)FI_INJECT);
}

static ssize_t uetp_atomic_compwrite(struct fid_ep *ep, const void *buf,
				     size_t count, void *desc,
				     const void *compare, void *compare_desc,
				     void *result, void *result_desc,
				     fi_addr_t dest_addr, uint64_t addr,
				     uint64_t key, enum fi_datatype datatype,
				     enum fi_op op, void *context)
{
	struct fi_ioc ioc = { .addr = (void *)buf, .count = count };
	struct fi_ioc cmp = { .addr = (void *)compare, .count = count };
	struct fi_ioc res = { .addr = result, .count = count };

	return uetp_atomic_compwritev(ep, &ioc, &desc, 1, &cmp, &compare_desc,
				      1, &res, &result_desc, 1, dest_addr,
				      addr, key, datatype, op, context);
}

/* ---- valid calls ---- */

static int uetp_atomic_valid(struct fid_ep *ep_fid, enum fi_datatype dt,
			     enum fi_op op, size_t *count, unsigned kind)
{
	struct uetp_ep *ep = uetp_alias_target(ep_fid);
	size_t n;

	if (!count || !uetp_atomic_args_ok(dt, op))
		return -FI_EINVAL;
	n = uetp_atomic_max_count(ep->domain, dt, op, kind);
	if (!n)
		return -FI_EOPNOTSUPP;
	*count = n;
	return 0;
}

static int uetp_atomic_writevalid(struct fid_ep *ep, enum fi_datatype dt,
				  enum fi_op op, size_t *count)
{
	return uetp_atomic_valid(ep, dt, op, count, UETP_AMO_BASE);
}

static int uetp_atomic_readwritevalid(struct fid_ep *ep, enum fi_datatype dt,
				      enum fi_op op, size_t *count)
{
	return uetp_atomic_valid(ep, dt, op, count, UETP_AMO_FETCH);
}

static int uetp_atomic_compwritevalid(struct fid_ep *ep, enum fi_datatype dt,
				      enum fi_op op, size_t *count)
{
	return uetp_atomic_valid(ep, dt, op, count, UETP_AMO_COMPARE);
}

struct fi_ops_atomic uetp_atomic_ops = {
	.size = sizeof(struct fi_ops_atomic),
	.write = uetp_atomic_write,
	.writev = uetp_atomic_writev,
	.writemsg = uetp_atomic_writemsg,
	.inject = uetp_atomic_inject,
	.readwrite = uetp_atomic_readwrite,
	.readwritev = uetp_atomic_readwritev,
	.readwritemsg = uetp_atomic_readwritemsg,
	.compwrite = uetp_atomic_compwrite,
	.compwritev = uetp_atomic_compwritev,
	.compwritemsg = uetp_atomic_compwritemsg,
	.writevalid = uetp_atomic_writevalid,
	.readwritevalid = uetp_atomic_readwritevalid,
	.compwritevalid = uetp_atomic_compwritevalid,
};
