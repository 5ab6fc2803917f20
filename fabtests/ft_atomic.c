/*
 * ft_atomic: atomics checked against a reference computation.
 *
 *   -t matrix   (a server and a client) every op/datatype pair the
 *               provider advertises, for base, fetch and compare atomics:
 *               fi_query_atomic and the fi_*atomicvalid calls must agree;
 *               each pair runs once on its own slot of the server's
 *               region with several elements where it may, the fetched
 *               values must equal the slot's initial contents, and the
 *               server checks every slot against the same reference
 *               computation (libfabric's definitions, fi_atomic.3). Every
 *               pair not advertised must be refused by the post itself.
 *   -t hammer   (self-launching, -n processes) rank 0 owns three 64-bit
 *               counters; every other rank does -M fetch-and-add(1) on
 *               the first, -M add(rank) on the second and -M compare-and-
 *               swap increments on the third, all at once. At the end the
 *               sums must be exact and the fetched values of the first
 *               counter, over all ranks, must be 0..total-1 each once.
 */
#define _GNU_SOURCE
#include "common.h"

#include <complex.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rdma/fi_atomic.h>

#define SLOT		64		/* bytes of target memory per pair */
#define NDT		(FI_UINT128 + 1)
#define MAX_PAIRS	(3 * FI_ATOMIC_OP_LAST * NDT)
#define MAX_PROCS	64

enum { K_BASE, K_FETCH, K_COMPARE, K_N };
static const char *kind_names[K_N] = { "base", "fetch", "compare" };

struct pair {
	int kind;
	enum fi_op op;
	enum fi_datatype dt;
	size_t count;			/* elements used */
	size_t max;			/* advertised */
};

struct amo {
	struct ft_ctx c;
	int test;			/* 0 matrix, 1 hammer */
	int nprocs;
	uint64_t iters;			/* -M */
	int rank;
	const char *dir;
	uint64_t corrupt;		/* -Z: corrupt pair K's result */
	struct pair pairs[MAX_PAIRS];
	size_t npairs;
	uint8_t *region;
	struct fid_mr *mr;
	void *desc;
	uint64_t key, peer_key, peer_addr;
};

/* ------------------------------------------------------------------ */
/* datatypes and the reference */

static size_t dt_size(enum fi_datatype dt)
{
	switch (dt) {
	case FI_INT8: case FI_UINT8: return 1;
	case FI_INT16: case FI_UINT16: return 2;
	case FI_INT32: case FI_UINT32: case FI_FLOAT: return 4;
	case FI_INT64: case FI_UINT64: case FI_DOUBLE: case FI_FLOAT_COMPLEX:
		return 8;
	case FI_INT128: case FI_UINT128: case FI_DOUBLE_COMPLEX: return 16;
	case FI_LONG_DOUBLE: return sizeof(long double);
	case FI_LONG_DOUBLE_COMPLEX: return 2 * sizeof(long double);
	default: return 0;
	}
}

static bool dt_is_int(enum fi_datatype dt)
{
	return dt <= FI_UINT64 || dt == FI_INT128 || dt == FI_UINT128;
}

static bool dt_is_signed(enum fi_datatype dt)
{
	return dt == FI_INT8 || dt == FI_INT16 || dt == FI_INT32 ||
	       dt == FI_INT64 || dt == FI_INT128;
}

/* One element of test data from a seed: integers use every bit, floats
 * small whole numbers (exact sums and products); a quarter are zero, so
 * the logical operations see both truth values. */
static void gen(enum fi_datatype dt, uint64_t seed, void *out)
{
	uint64_t x = ft_mix64(seed), y = ft_mix64(seed ^ 0x5555);
	double a = (double)((int)(x % 201) - 100);
	double b = (double)((int)(y % 201) - 100);
	bool zero = (x >> 40) % 4 == 0;

	if (zero) {
		memset(out, 0, dt_size(dt));
		return;
	}
	switch (dt) {
	case FI_FLOAT: *(float *)out = (float)a; return;
	case FI_DOUBLE: *(double *)out = a; return;
	case FI_LONG_DOUBLE: *(long double *)out = a; return;
	case FI_FLOAT_COMPLEX: *(float complex *)out = CMPLXF(a, b); return;
	case FI_DOUBLE_COMPLEX: *(double complex *)out = CMPLX(a, b); return;
	case FI_LONG_DOUBLE_COMPLEX:
		*(long double complex *)out = CMPLXL(a, b);
		return;
	default:
		memcpy(out, &x, dt_size(dt) < 8 ? dt_size(dt) : 8);
		if (dt_size(dt) > 8)
			memcpy((uint8_t *)out + 8, &y, dt_size(dt) - 8);
	}
}

/* Integers as 128-bit values, sign-extended or not. */
typedef unsigned __int128 u128;
typedef __int128 s128;

static u128 int_get(enum fi_datatype dt, const void *p)
{
	size_t n = dt_size(dt);
	u128 v = 0;

	memcpy(&v, p, n);
	if (dt_is_signed(dt) && n < 16 && (v >> (8 * n - 1)) & 1)
		v |= ~(u128)0 << (8 * n);
	return v;
}

static void int_put(enum fi_datatype dt, void *p, u128 v)
{
	memcpy(p, &v, dt_size(dt));
}

static int int_cmp(enum fi_datatype dt, u128 a, u128 b)
{
	if (dt_is_signed(dt))
		return (s128)a < (s128)b ? -1 : (s128)a > (s128)b;
	return a < b ? -1 : a > b;
}

static bool cswap_hit(enum fi_op op, int c)	/* c = cmp(compare, mem) */
{
	switch (op) {
	case FI_CSWAP: return c == 0;
	case FI_CSWAP_NE: return c != 0;
	case FI_CSWAP_LE: return c <= 0;
	case FI_CSWAP_LT: return c < 0;
	case FI_CSWAP_GE: return c >= 0;
	case FI_CSWAP_GT: return c > 0;
	default: return false;
	}
}

static int ref_int(enum fi_op op, enum fi_datatype dt, void *mem,
		   const void *opnd, const void *cmp)
{
	u128 m = int_get(dt, mem), o = opnd ? int_get(dt, opnd) : 0;
	u128 c = cmp ? int_get(dt, cmp) : 0, r = m;

	switch (op) {
	case FI_MIN: r = int_cmp(dt, o, m) < 0 ? o : m; break;
	case FI_MAX: r = int_cmp(dt, o, m) > 0 ? o : m; break;
	case FI_SUM: r = m + o; break;
	case FI_PROD: r = m * o; break;
	case FI_LOR: r = m || o; break;
	case FI_LAND: r = m && o; break;
	case FI_BOR: r = m | o; break;
	case FI_BAND: r = m & o; break;
	case FI_LXOR: r = (m && !o) || (!m && o); break;
	case FI_BXOR: r = m ^ o; break;
	case FI_ATOMIC_READ: break;
	case FI_ATOMIC_WRITE: r = o; break;
	case FI_MSWAP: r = (o & c) | (m & ~c); break;
	default:
		if (op < FI_CSWAP || op > FI_CSWAP_GT)
			return -1;
		if (cswap_hit(op, int_cmp(dt, c, m)))
			r = o;
	}
	int_put(dt, mem, r);
	return 0;
}

#define REF_REAL(T)							\
static int ref_##T(enum fi_op op, T *m, const T *o, const T *c)	\
{									\
	T a = *m, b = o ? *o : 0, k = c ? *c : 0;			\
	switch (op) {							\
	case FI_MIN: *m = b < a ? b : a; return 0;			\
	case FI_MAX: *m = b > a ? b : a; return 0;			\
	case FI_SUM: *m = a + b; return 0;				\
	case FI_PROD: *m = a * b; return 0;				\
	case FI_LOR: *m = (a != 0) || (b != 0); return 0;		\
	case FI_LAND: *m = (a != 0) && (b != 0); return 0;		\
	case FI_LXOR: *m = (a != 0) != (b != 0); return 0;		\
	case FI_ATOMIC_READ: return 0;					\
	case FI_ATOMIC_WRITE: *m = b; return 0;			\
	default:							\
		if (op < FI_CSWAP || op > FI_CSWAP_GT)			\
			return -1;					\
		if (cswap_hit(op, k < a ? -1 : k > a))			\
			*m = b;						\
		return 0;						\
	}								\
}
REF_REAL(float)
REF_REAL(double)
typedef long double ldouble;
REF_REAL(ldouble)

#define REF_CPLX(N, T)							\
static int ref_##N(enum fi_op op, T *m, const T *o, const T *c)	\
{									\
	T a = *m, b = o ? *o : 0, k = c ? *c : 0;			\
	switch (op) {							\
	case FI_SUM: *m = a + b; return 0;				\
	case FI_PROD: *m = a * b; return 0;				\
	case FI_LOR: *m = (a != 0) || (b != 0); return 0;		\
	case FI_LAND: *m = (a != 0) && (b != 0); return 0;		\
	case FI_LXOR: *m = (a != 0) != (b != 0); return 0;		\
	case FI_ATOMIC_READ: return 0;					\
	case FI_ATOMIC_WRITE: *m = b; return 0;			\
	case FI_CSWAP: if (k == a) *m = b; return 0;			\
	case FI_CSWAP_NE: if (k != a) *m = b; return 0;			\
	default: return -1;						\
	}								\
}
REF_CPLX(fc, float complex)
REF_CPLX(dc, double complex)
REF_CPLX(lc, long double complex)

/* mem op= opnd (cmp for compares), one element, as fi_atomic.3 says.
 * -1 when we have no reference (the pair cannot be verified). */
static int ref(enum fi_op op, enum fi_datatype dt, void *mem,
	       const void *opnd, const void *cmp)
{
	if (dt_is_int(dt))
		return ref_int(op, dt, mem, opnd, cmp);
	switch (dt) {
	case FI_FLOAT: return ref_float(op, mem, opnd, cmp);
	case FI_DOUBLE: return ref_double(op, mem, opnd, cmp);
	case FI_LONG_DOUBLE: return ref_ldouble(op, mem, opnd, cmp);
	case FI_FLOAT_COMPLEX: return ref_fc(op, mem, opnd, cmp);
	case FI_DOUBLE_COMPLEX: return ref_dc(op, mem, opnd, cmp);
	case FI_LONG_DOUBLE_COMPLEX: return ref_lc(op, mem, opnd, cmp);
	default: return -1;
	}
}

/* ------------------------------------------------------------------ */
/* the matrix */

static bool op_in_kind(enum fi_op op, int kind)
{
	switch (kind) {
	case K_BASE: return op <= FI_BXOR || op == FI_ATOMIC_WRITE;
	case K_FETCH: return op <= FI_ATOMIC_WRITE;
	default: return op >= FI_CSWAP && op <= FI_MSWAP;
	}
}

static uint64_t pair_seed(size_t j, int what, size_t e)
{
	return (uint64_t)j * 1000003u + (uint64_t)what * 101u + e;
}

/* Initial target, operands and compare values of pair j. Half the
 * compare pairs compare with the target's own value, so equality swaps
 * happen as well as the ordered ones. */
static void pair_data(const struct pair *p, size_t j, uint8_t *init,
		      uint8_t *opnd, uint8_t *cmp)
{
	size_t n = dt_size(p->dt);

	for (size_t e = 0; e < p->count; e++) {
		gen(p->dt, pair_seed(j, 0, e), init + e * n);
		gen(p->dt, pair_seed(j, 1, e), opnd + e * n);
		if (j % 2)
			memcpy(cmp + e * n, init + e * n, n);
		else
			gen(p->dt, pair_seed(j, 2, e), cmp + e * n);
	}
}

/* Enumerate what the domain advertises; the *valid calls must agree. */
static int matrix_list(struct amo *a, unsigned *refused)
{
	static const uint64_t qflags[K_N] = { 0, FI_FETCH_ATOMIC,
					      FI_COMPARE_ATOMIC };
	struct ft_ctx *c = &a->c;
	int bad = 0;

	a->npairs = 0;
	*refused = 0;
	for (int k = 0; k < K_N; k++) {
		for (int op = 0; op < FI_ATOMIC_OP_LAST; op++) {
			for (int dt = 0; dt < NDT; dt++) {
				struct fi_atomic_attr at = { 0 };
				size_t cnt = 0;
				int q, v;

				if (!op_in_kind(op, k))
					continue;
				q = fi_query_atomic(c->domain, dt, op, &at,
						    qflags[k]);
				v = k == K_BASE ?
				    fi_atomicvalid(c->ep, dt, op, &cnt) :
				    k == K_FETCH ?
				    fi_fetch_atomicvalid(c->ep, dt, op, &cnt) :
				    fi_compare_atomicvalid(c->ep, dt, op, &cnt);
				if ((q == 0) != (v == 0) ||
				    (!q && (at.count != cnt ||
					    at.size != dt_size(dt)))) {
					fprintf(stderr, "ft_atomic: %s %s %s: "
						"fi_query_atomic %d (count %zu,"
						" size %zu), valid call %d "
						"(count %zu)\n", kind_names[k],
						fi_tostr(&op, FI_TYPE_ATOMIC_OP),
						fi_tostr(&dt, FI_TYPE_ATOMIC_TYPE),
						q, at.count, at.size, v, cnt);
					bad = 1;
				}
				if (q) {
					(*refused)++;
					continue;
				}
				a->pairs[a->npairs++] = (struct pair){
					.kind = k, .op = op, .dt = dt,
					.max = at.count,
				};
			}
		}
	}
	for (size_t j = 0; j < a->npairs; j++) {
		struct pair *p = &a->pairs[j];
		size_t lim = (SLOT / dt_size(p->dt));

		if (lim > 3)
			lim = 3;
		p->count = p->max < lim ? p->max : lim;
	}
	return bad ? -FI_EIO : 0;
}

/* Posting a pair that was not advertised must fail at once. */
static int matrix_refusals(struct amo *a)
{
	struct ft_ctx *c = &a->c;
	uint64_t buf[8] = { 0 }, res[8], cmp[8] = { 0 };
	struct fi_context2 ctx;
	unsigned n = 0, wrong = 0;

	for (int k = 0; k < K_N; k++) {
		for (int op = 0; op < FI_ATOMIC_OP_LAST; op++) {
			for (int dt = 0; dt < NDT; dt++) {
				bool adv = false;
				ssize_t ret;

				if (!op_in_kind(op, k))
					continue;
				for (size_t j = 0; j < a->npairs && !adv; j++)
					adv = a->pairs[j].kind == k &&
					      a->pairs[j].op == (enum fi_op)op &&
					      a->pairs[j].dt ==
					      (enum fi_datatype)dt;
				if (adv)
					continue;
				ret = k == K_BASE ?
				      fi_atomic(c->ep, buf, 1, NULL, c->peer,
						a->peer_addr, a->peer_key, dt, op,
						&ctx) :
				      k == K_FETCH ?
				      fi_fetch_atomic(c->ep, buf, 1, NULL, res,
						      NULL, c->peer,
						      a->peer_addr, a->peer_key,
						      dt, op, &ctx) :
				      fi_compare_atomic(c->ep, buf, 1, NULL, cmp,
							NULL, res, NULL,
							c->peer, a->peer_addr,
							a->peer_key, dt, op,
							&ctx);
				n++;
				if (ret == 0) {
					fprintf(stderr, "ft_atomic: %s %s %s is "
						"not advertised but was "
						"accepted\n", kind_names[k],
						fi_tostr(&op, FI_TYPE_ATOMIC_OP),
						fi_tostr(&dt, FI_TYPE_ATOMIC_TYPE));
					return -FI_EIO;	/* a completion would
							 * follow: stop */
				}
				if (ret != -FI_EOPNOTSUPP)
					wrong++;
			}
		}
	}
	printf("# %u pairs not advertised: every post refused (%u with "
	       "another error than -FI_EOPNOTSUPP)\n", n, wrong);
	return 0;
}

static int matrix_post(struct amo *a, size_t j, struct ft_op *op,
		       uint8_t *opnd, uint8_t *cmp, uint8_t *res)
{
	struct ft_ctx *c = &a->c;
	const struct pair *p = &a->pairs[j];
	uint64_t addr = a->peer_addr + j * SLOT;

	ft_op_reset(op);
	switch (p->kind) {
	case K_BASE:
		return (int)FT_POST(c, fi_atomic(c->ep, opnd, p->count, NULL,
						 c->peer, addr, a->peer_key,
						 p->dt, p->op, op));
	case K_FETCH:
		/* fi_atomic.3: FI_ATOMIC_READ ignores (and takes NULL for)
		 * the operand */
		return (int)FT_POST(c, fi_fetch_atomic(c->ep,
			p->op == FI_ATOMIC_READ ? NULL : opnd, p->count, NULL,
			res, NULL, c->peer, addr, a->peer_key, p->dt, p->op,
			op));
	default:
		return (int)FT_POST(c, fi_compare_atomic(c->ep, opnd, p->count,
			NULL, cmp, NULL, res, NULL, c->peer, addr,
			a->peer_key, p->dt, p->op, op));
	}
}

static void pair_name(const struct pair *p, char *buf, size_t len)
{
	char t[64];

	snprintf(t, sizeof(t), "%s", fi_tostr(&p->dt, FI_TYPE_ATOMIC_TYPE));
	snprintf(buf, len, "%s %s %s x%zu", kind_names[p->kind],
		 fi_tostr(&p->op, FI_TYPE_ATOMIC_OP), t, p->count);
}

static int matrix_client(struct amo *a, unsigned *nbad)
{
	uint8_t init[SLOT], opnd[SLOT], cmp[SLOT], res[SLOT];
	struct ft_op op = { 0 };
	char name[96];
	int ret;

	for (size_t j = 0; j < a->npairs; j++) {
		const struct pair *p = &a->pairs[j];
		size_t n = p->count * dt_size(p->dt);

		pair_data(p, j, init, opnd, cmp);
		memset(res, 0xEE, sizeof(res));
		ret = matrix_post(a, j, &op, opnd, cmp, res);
		if (!ret)
			ret = ft_wait_op(&a->c, &op);
		if (ret)
			return ret;
		pair_name(p, name, sizeof(name));
		if (op.err) {
			fprintf(stderr, "ft_atomic: %s: %s\n", name, op.errstr);
			(*nbad)++;
			continue;
		}
		if (a->corrupt && j + 1 == a->corrupt)
			res[0] ^= 1;
		if (p->kind != K_BASE && memcmp(res, init, n)) {
			fprintf(stderr, "ft_atomic: %s: fetched value "
				"mismatch\n", name);
			(*nbad)++;
		}
	}
	return 0;
}

static int matrix_server_check(struct amo *a, unsigned *nbad)
{
	uint8_t mem[SLOT], opnd[SLOT], cmp[SLOT];
	char name[96];

	for (size_t j = 0; j < a->npairs; j++) {
		const struct pair *p = &a->pairs[j];
		size_t n = dt_size(p->dt);
		bool fail = false;

		pair_data(p, j, mem, opnd, cmp);
		for (size_t e = 0; e < p->count; e++)
			if (ref(p->op, p->dt, mem + e * n,
				p->op == FI_ATOMIC_READ ? NULL : opnd + e * n,
				cmp + e * n))
				fail = true;
		pair_name(p, name, sizeof(name));
		if (fail)
			fprintf(stderr, "ft_atomic: %s: no reference "
				"computation\n", name);
		else if (memcmp(mem, a->region + j * SLOT, p->count * n))
			fail = true, fprintf(stderr, "ft_atomic: %s: target "
					     "differs from the reference\n",
					     name);
		*nbad += fail;
	}
	return 0;
}

static int matrix_run(struct amo *a)
{
	struct ft_ctx *c = &a->c;
	bool client = ft_is_client(c);
	unsigned refused, nbad = 0, per[K_N] = { 0 };
	uint64_t theirs, other_bad;
	int ret;

	ret = matrix_list(a, &refused);
	if (ret)
		return ret;
	for (size_t j = 0; j < a->npairs; j++)
		per[a->pairs[j].kind]++;
	/* both sides must see the same list */
	ret = ft_oob_swap(c, a->npairs, &theirs);
	if (!ret && theirs != a->npairs) {
		fprintf(stderr, "ft_atomic: %zu pairs here, %" PRIu64
			" there\n", a->npairs, theirs);
		ret = -FI_EIO;
	}
	if (ret)
		return ret;
	if (!client) {
		uint8_t opnd[SLOT], cmp[SLOT];

		for (size_t j = 0; j < a->npairs; j++)
			pair_data(&a->pairs[j], j, a->region + j * SLOT, opnd,
				  cmp);
	}
	ret = ft_oob_sync(c);
	if (ret)
		return ret;
	if (client) {
		ret = matrix_client(a, &nbad);
		/* only uet promises that its valid calls gate the posts */
		if (!ret && !strcmp(c->info->fabric_attr->prov_name, "uet"))
			ret = matrix_refusals(a);
		if (!ret)
			ret = ft_oob_send_u64(c, nbad);
		if (!ret)
			ret = ft_oob_recv_u64_progress(c, &other_bad);
	} else {
		ret = ft_oob_recv_u64_progress(c, &other_bad);
		if (!ret)
			ret = matrix_server_check(a, &nbad);
		if (!ret)
			ret = ft_oob_send_u64(c, nbad);
	}
	if (ret)
		return ret;
	printf("# atomic matrix: %zu pairs advertised (base %u, fetch %u, "
	       "compare %u), %zu verified, %u failed here, %" PRIu64
	       " failed there; %u not advertised\n", a->npairs, per[K_BASE],
	       per[K_FETCH], per[K_COMPARE], a->npairs - nbad, nbad,
	       other_bad, refused);
	if (nbad || other_bad)
		fprintf(stderr, "ft_atomic: data mismatch in %u + %" PRIu64
			" pairs\n", nbad, other_bad);
	return nbad || other_bad ? -FI_EIO : 0;
}

/* ------------------------------------------------------------------ */
/* hammer: many processes, three shared counters */

static int dir_write(const char *dir, const char *name, const void *buf,
		     size_t len)
{
	char path[4096], tmp[4200];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	if (len && fwrite(buf, len, 1, f) != 1) {
		fclose(f);
		return -FI_EIO;
	}
	if (fclose(f) || rename(tmp, path))
		return -errno;
	return 0;
}

static ssize_t dir_read(const char *dir, const char *name, void *buf,
			size_t cap)
{
	char path[4096];
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	n = fread(buf, 1, cap, f);
	fclose(f);
	return (ssize_t)n;
}

static int hammer_target(struct amo *a)
{
	struct ft_ctx *c = &a->c;
	uint8_t name[FT_NAME_MAX + 16];
	uint64_t *ctr = (uint64_t *)a->region, total, sum = 0, deadline;
	size_t len = FT_NAME_MAX;
	uint8_t *seen;
	char fname[32];
	int clients = a->nprocs - 1, done = 0, ret, bad = 0;

	memset(a->region, 0, 3 * 8);
	ret = ft_getname(c->ep, name + 16, &len);
	if (ret)
		return ret;
	ft_put_be64(name, a->key);
	ft_put_be64(name + 8, ft_rma_addr(c, a->region, a->region));
	ret = dir_write(a->dir, "target", name, 16 + len);
	if (ret)
		return ret;
	deadline = ft_deadline(c);
	while (done < clients) {
		ft_progress(c);
		done = 0;
		for (int r = 1; r <= clients; r++) {
			snprintf(fname, sizeof(fname), "done.%d", r);
			done += dir_read(a->dir, fname, &total, 0) >= 0;
		}
		if (ft_now_ns() > deadline) {
			fprintf(stderr, "ft_atomic: %d of %d clients done\n",
				done, clients);
			return -FI_ETIMEDOUT;
		}
	}
	total = (uint64_t)clients * a->iters;
	for (int r = 1; r <= clients; r++)
		sum += (uint64_t)r * a->iters;
	if (ctr[0] != total || ctr[1] != sum || ctr[2] != total) {
		fprintf(stderr, "ft_atomic: data mismatch: counters %" PRIu64
			" %" PRIu64 " %" PRIu64 ", want %" PRIu64 " %" PRIu64
			" %" PRIu64 "\n", ctr[0], ctr[1], ctr[2], total, sum,
			total);
		bad = 1;
	}
	/* every fetched value of counter 0, over all clients, once */
	seen = calloc(total ? total : 1, 1);
	if (!seen)
		return -FI_ENOMEM;
	for (int r = 1; r <= clients && !bad; r++) {
		uint64_t *v = malloc(a->iters * 8);
		ssize_t n;

		snprintf(fname, sizeof(fname), "fetched.%d", r);
		n = v ? dir_read(a->dir, fname, v, a->iters * 8) : -1;
		if (n != (ssize_t)(a->iters * 8)) {
			fprintf(stderr, "ft_atomic: rank %d: fetched list "
				"missing\n", r);
			bad = 1;
		}
		for (uint64_t i = 0; !bad && i < a->iters; i++) {
			if (v[i] >= total || seen[v[i]]++) {
				fprintf(stderr, "ft_atomic: data mismatch: "
					"fetched %" PRIu64 " twice or out of "
					"range\n", v[i]);
				bad = 1;
			}
		}
		free(v);
	}
	free(seen);
	if (!bad)
		printf("# ft_atomic hammer: %d clients x %" PRIu64 " x 3 "
		       "atomics: counters %" PRIu64 " %" PRIu64 " %" PRIu64
		       " exact, %" PRIu64 " fetched values distinct\n",
		       clients, a->iters, ctr[0], ctr[1], ctr[2], total);
	return bad ? -FI_EIO : dir_write(a->dir, "checked", NULL, 0);
}

static int hammer_op(struct amo *a, int kind, enum fi_op op, uint64_t off,
		     uint64_t *opnd, uint64_t *cmp, uint64_t *res)
{
	struct ft_ctx *c = &a->c;
	struct ft_op o = { 0 };
	int ret;

	ft_op_reset(&o);
	if (kind == K_BASE)
		ret = (int)FT_POST(c, fi_atomic(c->ep, opnd, 1, NULL, c->peer,
						a->peer_addr + off, a->peer_key,
						FI_UINT64, op, &o));
	else if (kind == K_FETCH)
		ret = (int)FT_POST(c, fi_fetch_atomic(c->ep, opnd, 1, NULL,
			res, NULL, c->peer, a->peer_addr + off, a->peer_key,
			FI_UINT64, op, &o));
	else
		ret = (int)FT_POST(c, fi_compare_atomic(c->ep, opnd, 1, NULL,
			cmp, NULL, res, NULL, c->peer, a->peer_addr + off,
			a->peer_key, FI_UINT64, op, &o));
	if (!ret)
		ret = ft_wait_op(c, &o);
	return ret ? ret : ft_op_check(&o, "atomic");
}

static int hammer_client(struct amo *a)
{
	struct ft_ctx *c = &a->c;
	uint8_t name[FT_NAME_MAX + 16];
	uint64_t one = 1, add = (uint64_t)a->rank, guess = 0, res, next,
		 *fetched, deadline = ft_deadline(c);
	char fname[32];
	ssize_t n;
	int ret = 0;

	while ((n = dir_read(a->dir, "target", name, sizeof(name))) < 17) {
		if (ft_now_ns() > deadline)
			return -FI_ETIMEDOUT;
		usleep(2000);
	}
	a->peer_key = ft_get_be64(name);
	a->peer_addr = ft_get_be64(name + 8);
	ret = ft_av_insert(c, name + 16, &c->peer);
	if (ret)
		return ret;
	fetched = malloc(a->iters * 8);
	if (!fetched)
		return -FI_ENOMEM;
	for (uint64_t i = 0; !ret && i < a->iters; i++) {
		ret = hammer_op(a, K_FETCH, FI_SUM, 0, &one, NULL,
				&fetched[i]);
		if (!ret)
			ret = hammer_op(a, K_BASE, FI_SUM, 8, &add, NULL,
					NULL);
		/* a compare-and-swap increment, retried until it lands */
		while (!ret) {
			next = guess + 1;
			ret = hammer_op(a, K_COMPARE, FI_CSWAP, 16, &next,
					&guess, &res);
			if (ret || res == guess)
				break;
			guess = res;
		}
		guess++;
	}
	snprintf(fname, sizeof(fname), "fetched.%d", a->rank);
	if (!ret)
		ret = dir_write(a->dir, fname, fetched, a->iters * 8);
	free(fetched);
	snprintf(fname, sizeof(fname), "done.%d", a->rank);
	if (!ret)
		ret = dir_write(a->dir, fname, NULL, 0);
	/* stay until the target checked: it may still need our ACKs */
	deadline = ft_deadline(c);
	while (!ret && dir_read(a->dir, "checked", &res, 0) < 0) {
		if (ft_now_ns() > deadline)
			break;
		ft_spin(c, 5);
		if (kill(getppid(), 0))
			break;
	}
	if (!ret)
		printf("ft_atomic[%d]: %" PRIu64 " fetch-add, add, cswap "
		       "done\n", a->rank, a->iters);
	return ret;
}

static int hammer_worker(struct amo *a)
{
	struct ft_ctx *c = &a->c;
	int ret;

	ret = ft_getinfo(c, FI_ATOMIC | FI_MSG, 0);
	if (!ret)
		ret = ft_open(c);
	if (!ret && !a->rank) {
		a->region = ft_alloc(4096);
		ret = a->region ? 0 : -FI_ENOMEM;
		if (!ret)
			ret = ft_mr_reg_rma(c, a->region, 4096,
					    FI_REMOTE_READ | FI_REMOTE_WRITE,
					    &a->mr, &a->desc, &a->key);
	}
	if (!ret)
		ret = a->rank ? hammer_client(a) : hammer_target(a);
	ft_mr_close(a->mr);
	ft_close(c);
	if (ret)
		fprintf(stderr, "ft_atomic[%d]: FAILED (%d)\n", a->rank, ret);
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}

static int hammer_launch(struct amo *a)
{
	pid_t pid[MAX_PROCS];
	char tmpl[4096], path[4200];
	const char *tmp = getenv("TMPDIR");
	int st, failed = 0;

	snprintf(tmpl, sizeof(tmpl), "%s/ft_atomic.XXXXXX",
		 tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		perror("ft_atomic: mkdtemp");
		return EXIT_FAILURE;
	}
	a->dir = tmpl;
	printf("# ft_atomic hammer: %d processes (1 target), %" PRIu64
	       " rounds each, provider %s\n", a->nprocs, a->iters,
	       a->c.opts.prov ? a->c.opts.prov : "(first)");
	fflush(stdout);
	for (int r = 0; r < a->nprocs; r++) {
		pid[r] = fork();
		if (pid[r] < 0) {
			perror("ft_atomic: fork");
			a->nprocs = r;
			failed++;
			break;
		}
		if (!pid[r]) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			a->rank = r;
			_exit(hammer_worker(a));
		}
	}
	for (int r = 0; r < a->nprocs; r++) {
		if (waitpid(pid[r], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st)) {
			fprintf(stderr, "ft_atomic: rank %d failed\n", r);
			if (!failed++)
				for (int k = 0; k < a->nprocs; k++)
					if (k != r)
						kill(pid[k], SIGTERM);
		}
	}
	for (int r = 0; r < a->nprocs; r++) {
		snprintf(path, sizeof(path), "%s/done.%d", tmpl, r);
		unlink(path);
		snprintf(path, sizeof(path), "%s/fetched.%d", tmpl, r);
		unlink(path);
	}
	snprintf(path, sizeof(path), "%s/target", tmpl);
	unlink(path);
	snprintf(path, sizeof(path), "%s/checked", tmpl);
	unlink(path);
	rmdir(tmpl);
	printf("# ft_atomic hammer: %s\n", failed ? "FAIL" : "PASS");
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

/* ------------------------------------------------------------------ */

static void amo_usage(void)
{
	fprintf(stderr,
		"Usage: ft_atomic [options]          (matrix server: the target)\n"
		"       ft_atomic [options] HOST     (matrix client)\n"
		"       ft_atomic -t hammer [-n N] [-M M] [options]\n"
		"  -t TEST     matrix (default) or hammer\n"
		"  -n N        hammer: processes, one of them the target (4)\n"
		"  -M M        hammer: rounds per client (500)\n"
		"  -Z K        matrix client: corrupt the K-th fetched result\n");
	ft_usage_common();
}

static int amo_opt(void *arg, int opt, const char *optarg)
{
	struct amo *a = arg;

	switch (opt) {
	case 't':
		if (!strcmp(optarg, "matrix"))
			a->test = 0;
		else if (!strcmp(optarg, "hammer"))
			a->test = 1;
		else
			return -1;
		return 0;
	case 'n':
		a->nprocs = atoi(optarg);
		return a->nprocs >= 2 && a->nprocs <= MAX_PROCS ? 0 : -1;
	case 'M':
		a->iters = strtoull(optarg, NULL, 0);
		return a->iters ? 0 : -1;
	case 'Z':
		a->corrupt = strtoull(optarg, NULL, 0);
		return 0;
	}
	return -1;
}

int main(int argc, char **argv)
{
	struct amo *a = calloc(1, sizeof(*a));
	int ret;

	if (!a)
		return EXIT_FAILURE;
	ft_ctx_init(&a->c);
	a->nprocs = 4;
	a->iters = 500;
	ret = ft_parse_args(&a->c.opts, argc, argv, "t:n:M:Z:", amo_opt, a);
	if (ret) {
		amo_usage();
		free(a);
		return ret > 0 ? EXIT_SUCCESS : EXIT_FAILURE;
	}
	if (a->test == 1) {
		ret = hammer_launch(a);
		free(a);
		return ret;
	}
	ret = ft_oob_start(&a->c);
	if (!ret)
		ret = ft_getinfo(&a->c, FI_ATOMIC | FI_READ | FI_WRITE |
				 FI_REMOTE_READ | FI_REMOTE_WRITE, 0);
	if (!ret)
		ret = ft_open(&a->c);
	if (!ret)
		ret = ft_oob_xchg_names(&a->c);
	if (!ret) {
		a->region = ft_alloc(MAX_PAIRS * SLOT);
		ret = a->region ? 0 : -FI_ENOMEM;
	}
	if (!ret)
		ret = ft_mr_reg_rma(&a->c, a->region, MAX_PAIRS * SLOT,
				    FI_READ | FI_WRITE | FI_REMOTE_READ |
				    FI_REMOTE_WRITE, &a->mr, &a->desc,
				    &a->key);
	if (!ret)
		ret = ft_oob_swap(&a->c, a->key, &a->peer_key);
	if (!ret)
		ret = ft_oob_swap(&a->c, ft_rma_addr(&a->c, a->region,
						      a->region),
				  &a->peer_addr);
	if (!ret) {
		printf("# ft_atomic: provider %s, fabric %s, domain %s, %s\n",
		       a->c.info->fabric_attr->prov_name,
		       a->c.info->fabric_attr->name,
		       a->c.info->domain_attr->name,
		       ft_is_client(&a->c) ? "client (initiator)" :
		       "server (target)");
		ret = matrix_run(a);
	}
	if (!ret)
		ret = ft_oob_sync(&a->c);
	ft_mr_close(a->mr);
	ft_close(&a->c);
	free(a->region);
	free(a);
	if (ret)
		fprintf(stderr, "ft_atomic: FAILED\n");
	return ret ? EXIT_FAILURE : EXIT_SUCCESS;
}
