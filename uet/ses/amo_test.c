/* Atomics end to end between two SES instances: every supported op/type
 * pair against a reference computed here with plain typed C, the wire
 * encoding of operands and results, the target's refusals, and the limits
 * uet_ses_amo_valid advertises. */
#include <complex.h>
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

#define PA 6201
#define PB 6202
#define KEY 0xA70

static struct tl_ep A, B;
static struct tl_link L;
static int mctx;
static _Alignas(16) uint8_t tmem[80];

static void setup(void)
{
	tl_pair_open(&A, PA, &B, PB, &L, NULL);
	cr_assert_eq(tl_mr(&B, tmem, sizeof(tmem), KEY, UET_MR_REMOTE_READ |
			   UET_MR_REMOTE_WRITE | UET_MR_REMOTE_ATOMIC, &mctx),
		     0);
}

static void teardown(void)
{
	tl_pair_close(&A, &B, &L);
}

TestSuite(amo, .init = setup, .fini = teardown);

/* ---- Reference semantics (fi_atomic(3)), one function per type ---- */

#define REF_HEAD(N, T)							\
static void ref_##N(uint8_t op, void *mv, const void *av,		\
		    const void *cv, size_t n)				\
{									\
	T *m = mv;							\
	const T *arg = av;						\
	T c = 0;							\
	size_t i;							\
									\
	if (cv)								\
		memcpy(&c, cv, sizeof(T));				\
	for (i = 0; i < n; i++) {					\
		T a = m[i], b = arg ? arg[i] : 0;			\
									\
		switch (op) {						\
		case UET_AMO_SUM: a = a + b; break;			\
		case UET_AMO_DIFF: a = a - b; break;			\
		case UET_AMO_PROD: a = a * b; break;			\
		case UET_AMO_LOR: a = (a != 0) || (b != 0); break;	\
		case UET_AMO_LAND: a = (a != 0) && (b != 0); break;	\
		case UET_AMO_LXOR: a = ((a != 0) && !(b != 0)) ||	\
				       (!(a != 0) && (b != 0)); break;	\
		case UET_AMO_WRITE: a = b; break;			\
		case UET_AMO_CSWAP: if (c == a) a = b; break;		\
		case UET_AMO_CSWAP_NE: if (c != a) a = b; break;

#define REF_ORDERED							\
		case UET_AMO_MIN: if (b < a) a = b; break;		\
		case UET_AMO_MAX: if (b > a) a = b; break;		\
		case UET_AMO_CSWAP_LE: if (c <= a) a = b; break;	\
		case UET_AMO_CSWAP_LT: if (c < a) a = b; break;		\
		case UET_AMO_CSWAP_GE: if (c >= a) a = b; break;	\
		case UET_AMO_CSWAP_GT: if (c > a) a = b; break;

#define REF_BITS							\
		case UET_AMO_BOR: a = a | b; break;			\
		case UET_AMO_BAND: a = a & b; break;			\
		case UET_AMO_BXOR: a = a ^ b; break;			\
		case UET_AMO_MSWAP: a = (b & c) | (a & ~c); break;

#define REF_TAIL							\
		default: break;						\
		}							\
		m[i] = a;						\
	}								\
}

#define REF_INT(N, T) REF_HEAD(N, T) REF_ORDERED REF_BITS REF_TAIL
#define REF_REAL(N, T) REF_HEAD(N, T) REF_ORDERED REF_TAIL
#define REF_CPLX(N, T) REF_HEAD(N, T) REF_TAIL

REF_INT(i8, int8_t)
REF_INT(u8, uint8_t)
REF_INT(i16, int16_t)
REF_INT(u16, uint16_t)
REF_INT(i32, int32_t)
REF_INT(u32, uint32_t)
REF_INT(i64, int64_t)
REF_INT(u64, uint64_t)
REF_REAL(f, float)
REF_REAL(d, double)
REF_CPLX(fc, float complex)
REF_CPLX(dc, double complex)

struct dtinfo {
	uint8_t dt;
	size_t size;
	void (*ref)(uint8_t, void *, const void *, const void *, size_t);
	int cls;		/* 0 int, 1 real, 2 complex */
};

static const struct dtinfo DTS[] = {
	{ UET_AMO_INT8, 1, ref_i8, 0 }, { UET_AMO_UINT8, 1, ref_u8, 0 },
	{ UET_AMO_INT16, 2, ref_i16, 0 }, { UET_AMO_UINT16, 2, ref_u16, 0 },
	{ UET_AMO_INT32, 4, ref_i32, 0 }, { UET_AMO_UINT32, 4, ref_u32, 0 },
	{ UET_AMO_INT64, 8, ref_i64, 0 }, { UET_AMO_UINT64, 8, ref_u64, 0 },
	{ UET_AMO_FLOAT, 4, ref_f, 1 }, { UET_AMO_DOUBLE, 8, ref_d, 1 },
	{ UET_AMO_FLOAT_COMPLEX, 8, ref_fc, 2 },
	{ UET_AMO_DOUBLE_COMPLEX, 16, ref_dc, 2 },
};
#define NDT (sizeof(DTS) / sizeof(DTS[0]))

/* Element i of a test vector of type d with value v (+ imaginary w). */
static void put(const struct dtinfo *d, uint8_t *p, size_t i, double v,
		double w)
{
	p += i * d->size;
	switch (d->dt) {
	case UET_AMO_INT8: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
	case UET_AMO_UINT8: { uint8_t x = (uint8_t)(int)v; memcpy(p, &x, 1); break; }
	case UET_AMO_INT16: { int16_t x = (int16_t)v; memcpy(p, &x, 2); break; }
	case UET_AMO_UINT16: { uint16_t x = (uint16_t)(int)v; memcpy(p, &x, 2); break; }
	case UET_AMO_INT32: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
	case UET_AMO_UINT32: { uint32_t x = (uint32_t)(int64_t)v; memcpy(p, &x, 4); break; }
	case UET_AMO_INT64: { int64_t x = (int64_t)v; memcpy(p, &x, 8); break; }
	case UET_AMO_UINT64: { uint64_t x = (uint64_t)(int64_t)v; memcpy(p, &x, 8); break; }
	case UET_AMO_FLOAT: { float x = (float)v; memcpy(p, &x, 4); break; }
	case UET_AMO_DOUBLE: memcpy(p, &v, 8); break;
	case UET_AMO_FLOAT_COMPLEX: { float complex x = (float)v + (float)w * I; memcpy(p, &x, 8); break; }
	default: { double complex x = v + w * I; memcpy(p, &x, 16); break; }
	}
}

static const double MEMV[4] = { 5, -3, 0, 9 }, ARGV[4] = { 7, 2, 0, -9 };
static const double MEMW[4] = { 2, 0, 0, -1 }, ARGW[4] = { -1, 0, 3, 0 };

/* Run op on count elements through both SES instances and compare the
 * target memory and the fetched values with the reference. */
static void run_one(const struct dtinfo *d, uint8_t type, uint8_t op,
		    size_t count, double cmpv)
{
	uint8_t init[64], arg[64], want[64], res[64], cmp[16];
	size_t len = count * d->size, i;
	const struct uet_completion *c;
	int ctx;
	bool compare = type == UET_OP_CMP_ATOMIC;

	memset(init, 0, sizeof(init));
	memset(arg, 0, sizeof(arg));
	memset(res, 0xCC, sizeof(res));
	for (i = 0; i < count; i++) {
		put(d, init, i, MEMV[i], MEMW[i]);
		put(d, arg, i, compare ? 42 : ARGV[i], compare ? 6 : ARGW[i]);
	}
	put(d, cmp, 0, cmpv, MEMW[0]);
	if (op == UET_AMO_MSWAP) {
		memset(cmp, 0x0F, sizeof(cmp));
		memset(arg, 0xA6, d->size);
	}
	memcpy(tmem, init, len);
	memcpy(want, init, len);
	d->ref(op, want, op == UET_AMO_READ ? NULL : arg,
	       compare ? cmp : NULL, count);

	A.ncomp = B.ncomp = 0;
	cr_assert_eq(tl_amo(&A, PB, type, op, d->dt,
			    op == UET_AMO_READ ? NULL : arg,
			    op == UET_AMO_READ ? 0 : len,
			    type == UET_OP_ATOMIC ? NULL : res, len,
			    compare ? cmp : NULL, compare ? d->size : 0, KEY,
			    0, &ctx), 0,
		     "post dt %u op %u type %u", d->dt, op, type);
	cr_assert_eq(tl_run(&L, 0), 0);
	c = tl_comp(&A, &ctx);
	cr_assert_not_null(c);
	cr_assert_eq(c->err, 0, "dt %u op %u: err %d rc %d", d->dt, op,
		     c->err, c->prov_errno);
	cr_assert(!memcmp(tmem, want, len), "dt %u op %u type %u: memory",
		  d->dt, op, type);
	if (type != UET_OP_ATOMIC)
		cr_assert(!memcmp(res, init, len),
			  "dt %u op %u: fetched values", d->dt, op);
	cr_assert_eq(tl_count(&B, &mctx), 1);
	cr_assert(tl_comp(&B, &mctx)->flags & (UET_CF_REMOTE | UET_CF_ATOMIC));
}

static size_t cnt(const struct dtinfo *d, uint8_t type)
{
	size_t n = type == UET_OP_FETCH_ATOMIC ? UET_ACK_DATA_MAX / d->size :
						 4;

	return n > 4 ? 4 : n;
}

/* run(d, op) for every type d and every op of ops that d supports;
 * returns how many pairs ran. */
static size_t every_supported(const uint8_t *ops, size_t nops,
			      void (*run)(const struct dtinfo *d, uint8_t op))
{
	size_t i, j, ran = 0;

	for (i = 0; i < NDT; i++) {
		for (j = 0; j < nops; j++) {
			if (!uet_amo_supported(ops[j], DTS[i].dt))
				continue;
			run(&DTS[i], ops[j]);
			ran++;
		}
	}
	return ran;
}

static void arith_case(const struct dtinfo *d, uint8_t op)
{
	if (op != UET_AMO_READ)
		run_one(d, UET_OP_ATOMIC, op, cnt(d, UET_OP_ATOMIC), 0);
	run_one(d, UET_OP_FETCH_ATOMIC, op, cnt(d, UET_OP_FETCH_ATOMIC), 0);
}

Test(amo, arithmetic_and_logic_every_type)
{
	static const uint8_t ops[] = {
		UET_AMO_MIN, UET_AMO_MAX, UET_AMO_SUM, UET_AMO_DIFF,
		UET_AMO_PROD, UET_AMO_LOR, UET_AMO_LAND, UET_AMO_BOR,
		UET_AMO_BAND, UET_AMO_LXOR, UET_AMO_BXOR, UET_AMO_READ,
		UET_AMO_WRITE,
	};

	/* 8 int types x 13, 2 real x 10, 2 complex x 8 (libfabric's). */
	cr_assert_eq(every_supported(ops, sizeof(ops), arith_case),
		     8 * 13 + 2 * 10 + 2 * 8);
}

static void compare_case(const struct dtinfo *d, uint8_t op)
{
	/* compare below, equal to, above memory (5) */
	run_one(d, UET_OP_CMP_ATOMIC, op, 1, 4);
	run_one(d, UET_OP_CMP_ATOMIC, op, 1, 5);
	run_one(d, UET_OP_CMP_ATOMIC, op, 1, 6);
}

Test(amo, compare_ops_every_type)
{
	static const uint8_t ops[] = {
		UET_AMO_CSWAP, UET_AMO_CSWAP_NE, UET_AMO_CSWAP_LE,
		UET_AMO_CSWAP_LT, UET_AMO_CSWAP_GE, UET_AMO_CSWAP_GT,
		UET_AMO_MSWAP,
	};

	cr_assert_eq(every_supported(ops, sizeof(ops), compare_case),
		     8 * 7 + 2 * 6 + 2 * 2);
}

/* The bytes on the wire: operands and fetched values big-endian, the
 * compare-and-swap operands right-aligned in their 16-byte fields. */
Test(amo, wire_encoding)
{
	uint32_t op32 = 0x01020304, res32 = 0;
	uint64_t cmp64 = 0x1112131415161718ull, swp64 = 0x2122232425262728ull;
	uint64_t res64 = 0, m64 = 0x1112131415161718ull;
	static const uint8_t be32[4] = { 1, 2, 3, 4 };
	uint32_t m32 = 0xA0B0C0D0;
	int c1, c2;

	memcpy(tmem, &m32, 4);
	cr_assert_eq(tl_amo(&A, PB, UET_OP_FETCH_ATOMIC, UET_AMO_SUM,
			    UET_AMO_UINT32, &op32, 4, &res32, 4, NULL, 0, KEY,
			    0, &c1), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	cr_assert_eq(tl_deliver(&L, 0), 0);
	cr_assert_eq(L.req.opcode, UET_SES_FETCHING_ATOMIC);
	cr_assert_eq(L.req.amo.op, UET_AMO_SUM);
	cr_assert_eq(L.req.amo.dt, UET_AMO_UINT32);
	cr_assert_eq(L.req.request_length, 4);
	cr_assert_eq(L.wlen, UET_SES_STD_LEN + UET_SES_AMO_EXT_LEN + 4);
	cr_assert_arr_eq(L.buf + UET_SES_STD_LEN + UET_SES_AMO_EXT_LEN, be32,
			 4);
	cr_assert_eq(L.p[0].reply.data_len, 4);
	cr_assert_eq(L.p[0].reply.data[0], 0xA0);
	cr_assert_eq(L.p[0].reply.data[3], 0xD0);
	cr_assert(L.p[0].gtd);
	tl_ack(&L, 0);
	cr_assert_eq(res32, 0xA0B0C0D0);
	cr_assert_eq(*(uint32_t *)tmem, 0xA0B0C0D0 + 0x01020304);

	memcpy(tmem, &m64, 8);
	cr_assert_eq(tl_amo(&A, PB, UET_OP_CMP_ATOMIC, UET_AMO_CSWAP,
			    UET_AMO_UINT64, &swp64, 8, &res64, 8, &cmp64, 8,
			    KEY, 0, &c2), 0);
	cr_assert_eq(tl_pull(&L, SIZE_MAX), 1);
	cr_assert_eq(tl_xfer(&L, 1), 0);
	cr_assert_eq(L.wlen, UET_SES_STD_LEN + UET_SES_CSWAP_EXT_LEN);
	for (int i = 0; i < 8; i++) {
		cr_assert_eq(L.req.amo.compare[i], 0);
		cr_assert_eq(L.req.amo.compare[8 + i], 0x11 + i);
		cr_assert_eq(L.req.amo.swap[8 + i], 0x21 + i);
	}
	cr_assert_eq(res64, m64);
	cr_assert_eq(*(uint64_t *)tmem, swp64);
}

/* What may be posted: uet_ses_amo_valid decides, post agrees. */
Test(amo, limits_and_post_checks)
{
	/* want: elements an op may have; BASE: what one packet holds. */
	enum { BASE = -1 };
	static const struct {
		const char *what;
		int want;
		uint8_t op, dt, type;
	} valid[] = {
		{ "non-fetching", BASE,
		  UET_AMO_SUM, UET_AMO_UINT64, UET_OP_ATOMIC },
		{ "fetch: ACK data", 2,
		  UET_AMO_SUM, UET_AMO_UINT64, UET_OP_FETCH_ATOMIC },
		{ "fetch of bytes", 16,
		  UET_AMO_SUM, UET_AMO_INT8, UET_OP_FETCH_ATOMIC },
		{ "fetch of the biggest", 1,
		  UET_AMO_SUM, UET_AMO_DOUBLE_COMPLEX, UET_OP_FETCH_ATOMIC },
		{ "compare of the biggest", 1,
		  UET_AMO_CSWAP, UET_AMO_DOUBLE_COMPLEX, UET_OP_CMP_ATOMIC },
		{ "compare op as a fetch", 0,
		  UET_AMO_CSWAP, UET_AMO_UINT8, UET_OP_FETCH_ATOMIC },
		{ "plain op as a compare", 0,
		  UET_AMO_SUM, UET_AMO_UINT8, UET_OP_CMP_ATOMIC },
		{ "READ without fetch", 0,
		  UET_AMO_READ, UET_AMO_UINT8, UET_OP_ATOMIC },
		{ "bits of a real", 0,
		  UET_AMO_BOR, UET_AMO_FLOAT, UET_OP_ATOMIC },
		{ "order of a complex", 0,
		  UET_AMO_MIN, UET_AMO_FLOAT_COMPLEX, UET_OP_ATOMIC },
		{ "ordered compare of a complex", 0,
		  UET_AMO_CSWAP_LT, UET_AMO_FLOAT_COMPLEX, UET_OP_CMP_ATOMIC },
		{ "masked swap of a real", 0,
		  UET_AMO_MSWAP, UET_AMO_DOUBLE, UET_OP_CMP_ATOMIC },
		{ "128-bit type", 0,
		  UET_AMO_SUM, UET_AMO_INT128, UET_OP_ATOMIC },
		{ "op INVAL", 0,
		  UET_AMO_INVAL, UET_AMO_UINT64, UET_OP_ATOMIC },
	};
	/* Refused at post: len bytes of operands, r of result and c of
	 * compare (0: none). */
	static const struct {
		const char *what;
		uint8_t type, op, dt;
		size_t len, r, c;
	} refused[] = {
		{ "fetch beyond the ACK",
		  UET_OP_FETCH_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64, 24, 24, 0 },
		{ "result shorter than operands",
		  UET_OP_FETCH_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64, 16, 8, 0 },
		{ "part of an element",
		  UET_OP_ATOMIC, UET_AMO_SUM, UET_AMO_UINT32, 6, 0, 0 },
		{ "compare of two elements",
		  UET_OP_CMP_ATOMIC, UET_AMO_CSWAP, UET_AMO_UINT32, 8, 8, 8 },
		{ "unsupported type",
		  UET_OP_ATOMIC, UET_AMO_SUM, UET_AMO_FP16, 2, 0, 0 },
	};
	uint8_t buf[2048] = { 0 }, res[32];
	size_t mtu = A.cfg.mtu, base, i;
	int ctx;

	base = (mtu - UET_SES_HDRS_LEN - UET_SES_AMO_EXT_LEN) / 8;
	for (i = 0; i < sizeof(valid) / sizeof(valid[0]); i++)
		cr_assert_eq(uet_ses_amo_valid(valid[i].op, valid[i].dt,
					       valid[i].type, mtu),
			     valid[i].want == BASE ? base :
						     (size_t)valid[i].want,
			     "%s", valid[i].what);
	/* Post refuses what valid() says 0 for, and counts beyond it. */
	cr_assert_eq(tl_amo(&A, PB, UET_OP_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
			    buf, 8 * (base + 1), NULL, 0, NULL, 0, KEY, 0,
			    &ctx), UET_ERR_INVAL);
	cr_assert_eq(tl_amo(&A, PB, UET_OP_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
			    buf, 8 * base, NULL, 0, NULL, 0, KEY, 0, &ctx), 0);
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		cr_assert_eq(tl_amo(&A, PB, refused[i].type, refused[i].op,
				    refused[i].dt, buf, refused[i].len,
				    refused[i].r ? res : NULL, refused[i].r,
				    refused[i].c ? buf : NULL, refused[i].c,
				    KEY, 0, &ctx), UET_ERR_INVAL, "%s",
			     refused[i].what);
}

/* ---- The target's checks, with hand-made requests ---- */

static int raw_amo(uint8_t opcode, uint8_t op, uint8_t dt, uint32_t len,
		   uint64_t key, uint64_t boff, const uint8_t *pl, size_t plen,
		   uint16_t id, struct uet_ses_reply *reply)
{
	struct uet_ses_req q;

	memset(&q, 0, sizeof(q));
	q.format = UET_NH_REQ_STD;
	q.opcode = opcode;
	q.flags = UET_SES_F_REL | UET_SES_F_SOM | UET_SES_F_EOM;
	q.message_id = id;
	q.request_length = len;
	q.job_id = TL_JOB;
	q.pid_on_fep = uet_addr_pid(&B.cfg.local);
	q.match_bits = key;
	q.buffer_offset = boff;
	q.amo.op = op;
	q.amo.dt = dt;
	return uet_ses_rx(B.ses, &L.rpdc, &q, pl, plen, reply, 0);
}

Test(amo, target_refusals)
{
	/* Requests to refuse: the key is KEY + key; plen operand bytes. */
	static const struct {
		const char *what;
		uint8_t opcode, op, dt;
		uint32_t len;
		uint8_t key;
		uint64_t boff;
		size_t plen;
		uint8_t rc;
	} bad[] = {
		{ "128-bit type",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_INT128,
		  16, 0, 0, 16, UET_RC_AMO_UNSUPPORTED_DT },
		{ "BOR of a real",
		  UET_SES_ATOMIC, UET_AMO_BOR, UET_AMO_DOUBLE,
		  8, 0, 0, 8, UET_RC_AMO_UNSUPPORTED_OP },
		{ "op INVAL",
		  UET_SES_ATOMIC, UET_AMO_INVAL, UET_AMO_UINT64,
		  8, 0, 0, 8, UET_RC_AMO_UNSUPPORTED_OP },
		{ "part of an element",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT32,
		  6, 0, 0, 6, UET_RC_AMO_UNSUPPORTED_SIZE },
		{ "fetch results beyond the ACK",
		  UET_SES_FETCHING_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  24, 0, 0, 16, UET_RC_AMO_UNSUPPORTED_SIZE },
		{ "unaligned",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 0, 4, 8, UET_RC_AMO_UNALIGNED },
		{ "unknown key",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 9, 0, 8, UET_RC_BAD_MKEY },
		{ "past the region",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 0, 80, 8, UET_RC_BAD_ADDR },
		{ "no ATOMIC access",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 2, 0, 8, UET_RC_PERM_VIOLATION },
		{ "fetch without READ access",
		  UET_SES_FETCHING_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 1, 0, 8, UET_RC_PERM_VIOLATION },
		{ "operand bytes other than request_length",
		  UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT64,
		  8, 0, 0, 4, UET_RC_OP_VIOLATION },
	};
	uint8_t pl[16] = { 0 };
	struct uet_ses_reply r;
	struct uet_ses_stats st;
	uint16_t id = 0;

	memset(tmem, 0x77, sizeof(tmem));
	cr_assert_eq(tl_mr(&B, tmem, 16, KEY + 1, UET_MR_REMOTE_ATOMIC |
			   UET_MR_REMOTE_WRITE, &mctx), 0);
	cr_assert_eq(tl_mr(&B, tmem, 16, KEY + 2, UET_MR_REMOTE_WRITE |
			   UET_MR_REMOTE_READ, &mctx), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		cr_assert_eq(raw_amo(bad[i].opcode, bad[i].op, bad[i].dt,
				     bad[i].len, KEY + bad[i].key, bad[i].boff,
				     pl, bad[i].plen, id++, &r), 0);
		cr_assert_eq(r.rsp.return_code, bad[i].rc,
			     "%s: rc %u, want %u", bad[i].what,
			     r.rsp.return_code, bad[i].rc);
		cr_assert(r.gtd);
	}
	for (size_t i = 0; i < 16; i++)
		cr_assert_eq(tmem[i], 0x77, "refused atomic wrote byte %zu", i);
	/* The non-fetching one with WRITE but no READ access is fine. */
	cr_assert_eq(raw_amo(UET_SES_ATOMIC, UET_AMO_SUM, UET_AMO_UINT8, 1,
			     KEY + 1, 3, (const uint8_t[]){ 1 }, 1, id++, &r),
		     0);
	cr_assert_eq(r.rsp.return_code, UET_RC_OK);
	cr_assert_eq(tmem[3], 0x78);
	uet_ses_stats(B.ses, &st);
	cr_assert_eq(st.amo_bad_dt, 1);
	cr_assert_eq(st.amo_bad_op, 2);
	cr_assert_eq(st.amo_bad_size, 2);
	cr_assert_eq(st.amo_unaligned, 1);
	cr_assert_eq(st.rma_bad_mkey, 1);
	cr_assert_eq(st.rma_bad_addr, 1);
	cr_assert_eq(st.rma_perm, 2);
	cr_assert_eq(st.amo_ops, 1);
	cr_assert_not(uet_ses_pdc_busy(B.ses, &L.rpdc));
}

/* A refused atomic fails the initiator's op with the code. */
Test(amo, refusal_reaches_initiator)
{
	uint64_t v = 1, res;
	int ctx;

	cr_assert_eq(tl_amo(&A, PB, UET_OP_FETCH_ATOMIC, UET_AMO_SUM,
			    UET_AMO_UINT64, &v, 8, &res, 8, NULL, 0, KEY, 3,
			    &ctx), 0);
	cr_assert_eq(tl_run(&L, 0), 0);
	cr_assert_eq(tl_comp(&A, &ctx)->err, UET_ERR_REMOTE);
	cr_assert_eq(tl_comp(&A, &ctx)->prov_errno, UET_RC_AMO_UNALIGNED);
	cr_assert_eq(tl_comp(&A, &ctx)->flags, UET_CF_ATOMIC | UET_CF_READ);
}

/* Two initiators on one location: each atomic runs whole (the engine is
 * single-threaded per fep), so no update is lost. */
Test(amo, two_initiators_serialised)
{
	struct tl_ep C;
	struct tl_link L2;
	uint64_t one = 1;
	int i, ctx;

	tl_ep_open_at(&C, 6203, NULL);
	tl_link_open(&L2, &C, &B, 2);
	memset(tmem, 0, 8);
	for (i = 0; i < 50; i++) {
		cr_assert_eq(tl_amo(&A, PB, UET_OP_ATOMIC, UET_AMO_SUM,
				    UET_AMO_UINT64, &one, 8, NULL, 0, NULL, 0,
				    KEY, 0, &ctx), 0);
		cr_assert_eq(tl_amo(&C, PB, UET_OP_ATOMIC, UET_AMO_SUM,
				    UET_AMO_UINT64, &one, 8, NULL, 0, NULL, 0,
				    KEY, 0, &ctx), 0);
	}
	tl_pull(&L, SIZE_MAX);
	tl_pull(&L2, SIZE_MAX);
	for (i = 0; i < 50; i++) {
		cr_assert_eq(tl_xfer(&L2, (size_t)i), 0);
		cr_assert_eq(tl_xfer(&L, (size_t)(49 - i)), 0);
	}
	cr_assert_eq(*(uint64_t *)tmem, 100);
	tl_link_close(&L2);
	tl_ep_close(&C);
}
