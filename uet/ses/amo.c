/* Atomic arithmetic of the target (docs/choices.md §6.3,
 * docs/protocol.md §5.6, §5.7), and what the provider may advertise.
 *
 * Ops and types: every enum uet_amo_op with a libfabric counterpart, for
 * which types libfabric defines it (its util atomics): MIN, MAX and the
 * ordered compares (CSWAP_LE/LT/GE/GT) on integers and real floats; SUM,
 * PROD, LOR, LAND, LXOR, READ, WRITE, CSWAP, CSWAP_NE on every type
 * (complex included; a complex value is "true" when either part is
 * non-zero); BOR, BAND, BXOR, MSWAP on integers only. DIFF (no libfabric
 * op: addr = addr - operand) goes with SUM. Types: 8..64-bit signed and
 * unsigned integers, FLOAT, DOUBLE, FLOAT_COMPLEX, DOUBLE_COMPLEX. INVAL,
 * 128-bit integers, long double, bfloat16 and fp16 are not supported.
 * libfabric's semantics, element by element (fi_atomic(3)):
 *	MIN: if (op < mem) mem = op	CSWAP_LE: if (cmp <= mem) mem = op
 *	MSWAP: mem = (op & cmp) | (mem & ~cmp)
 *
 * Operands and fetched values are big-endian on the wire, element by
 * element (a complex value: real part, then imaginary part), as every
 * field of UET and as the reference provider does (ntohll/htonll of its
 * operand and result). The compare-and-swap extension holds one element
 * in each 16-byte field, right-aligned (the reference provider's 128-bit
 * hi/lo halves: a 64-bit value is the low half); MSWAP's mask is the
 * compare field (wire.h).
 *
 * Atomicity: the engine is single-threaded per fep, so every atomic that
 * reaches this fep, whichever initiator sent it, runs whole before the
 * next one starts: atomic with respect to each other, not with respect to
 * the host's CPUs touching the same memory.
 *
 * This file uses nothing else of SES (the front door links it alone).
 */
#include <complex.h>
#include <string.h>

#include "ses_int.h"

enum amo_class { AMO_NONE, AMO_INT, AMO_REAL, AMO_CPLX };

static enum amo_class amo_class(uint8_t dt)
{
	switch (dt) {
	case UET_AMO_INT8: case UET_AMO_UINT8:
	case UET_AMO_INT16: case UET_AMO_UINT16:
	case UET_AMO_INT32: case UET_AMO_UINT32:
	case UET_AMO_INT64: case UET_AMO_UINT64:
		return AMO_INT;
	case UET_AMO_FLOAT: case UET_AMO_DOUBLE:
		return AMO_REAL;
	case UET_AMO_FLOAT_COMPLEX: case UET_AMO_DOUBLE_COMPLEX:
		return AMO_CPLX;
	default:
		return AMO_NONE;
	}
}

size_t uet_amo_size(uint8_t dt)
{
	switch (dt) {
	case UET_AMO_INT8: case UET_AMO_UINT8: return 1;
	case UET_AMO_INT16: case UET_AMO_UINT16: return 2;
	case UET_AMO_INT32: case UET_AMO_UINT32: case UET_AMO_FLOAT: return 4;
	case UET_AMO_INT64: case UET_AMO_UINT64: case UET_AMO_DOUBLE:
	case UET_AMO_FLOAT_COMPLEX: return 8;
	case UET_AMO_DOUBLE_COMPLEX: return 16;
	default: return 0;
	}
}

/* Natural alignment: a complex value aligns like its parts. */
size_t uet_amo_align(uint8_t dt)
{
	return amo_class(dt) == AMO_CPLX ? uet_amo_size(dt) / 2 :
					   uet_amo_size(dt);
}

static bool is_compare(uint8_t op)
{
	return op >= UET_AMO_CSWAP && op <= UET_AMO_MSWAP;
}

bool uet_amo_supported(uint8_t op, uint8_t dt)
{
	enum amo_class c = amo_class(dt);

	if (c == AMO_NONE)
		return false;
	switch (op) {
	case UET_AMO_SUM: case UET_AMO_DIFF: case UET_AMO_PROD:
	case UET_AMO_LOR: case UET_AMO_LAND: case UET_AMO_LXOR:
	case UET_AMO_READ: case UET_AMO_WRITE:
	case UET_AMO_CSWAP: case UET_AMO_CSWAP_NE:
		return true;
	case UET_AMO_MIN: case UET_AMO_MAX:
	case UET_AMO_CSWAP_LE: case UET_AMO_CSWAP_LT:
	case UET_AMO_CSWAP_GE: case UET_AMO_CSWAP_GT:
		return c != AMO_CPLX;
	case UET_AMO_BOR: case UET_AMO_BAND: case UET_AMO_BXOR:
	case UET_AMO_MSWAP:
		return c == AMO_INT;
	default:
		return false;
	}
}

size_t uet_ses_amo_valid(uint8_t op, uint8_t dt, uint8_t type, size_t mtu)
{
	size_t size = uet_amo_size(dt), room;

	if (!uet_amo_supported(op, dt))
		return 0;
	switch (type) {
	case UET_OP_ATOMIC:
		/* fi_atomic(3) base ops: no READ, no compare. */
		if (op == UET_AMO_READ || is_compare(op))
			return 0;
		if (mtu <= UET_SES_HDRS_LEN + UET_SES_AMO_EXT_LEN)
			return 0;
		room = mtu - UET_SES_HDRS_LEN - UET_SES_AMO_EXT_LEN;
		if (room > UET_SES_PAYLOAD_LIMIT)
			room = UET_SES_PAYLOAD_LIMIT;
		return room / size;
	case UET_OP_FETCH_ATOMIC:
		/* Old values come back in the ACK. */
		return is_compare(op) ? 0 : UET_ACK_DATA_MAX / size;
	case UET_OP_CMP_ATOMIC:
		return is_compare(op) &&
		       mtu > UET_SES_HDRS_LEN + UET_SES_CSWAP_EXT_LEN ? 1 : 0;
	default:
		return 0;
	}
}

/* ---- Byte order ---- */

static uint64_t be_get(const uint8_t *p, size_t n)
{
	uint64_t v = 0;

	while (n--)
		v = v << 8 | *p++;
	return v;
}

static void be_put(uint8_t *p, size_t n, uint64_t v)
{
	while (n--) {
		p[n] = (uint8_t)v;
		v >>= 8;
	}
}

/* An n-byte unsigned value in host order (native load and store). */
static uint64_t mem_get(const uint8_t *p, size_t n)
{
	switch (n) {
	case 1: return *p;
	case 2: { uint16_t x; memcpy(&x, p, 2); return x; }
	case 4: { uint32_t x; memcpy(&x, p, 4); return x; }
	default: { uint64_t x; memcpy(&x, p, 8); return x; }
	}
}

static void mem_put(uint8_t *p, size_t n, uint64_t v)
{
	switch (n) {
	case 1: *p = (uint8_t)v; break;
	case 2: { uint16_t x = (uint16_t)v; memcpy(p, &x, 2); break; }
	case 4: { uint32_t x = (uint32_t)v; memcpy(p, &x, 4); break; }
	default: memcpy(p, &v, 8); break;
	}
}

/* Host value (memory layout) <-> wire: each scalar part big-endian. */
static void conv(uint8_t dt, uint8_t *dst, const uint8_t *src, size_t count,
		 bool to_wire)
{
	size_t part = uet_amo_align(dt), n = count * uet_amo_size(dt) / part;
	size_t i;

	for (i = 0; i < n; i++, src += part, dst += part) {
		if (to_wire)
			be_put(dst, part, mem_get(src, part));
		else
			mem_put(dst, part, be_get(src, part));
	}
}

void uet_amo_to_wire(uint8_t dt, uint8_t *dst, const void *src, size_t count)
{
	conv(dt, dst, src, count, true);
}

void uet_amo_from_wire(uint8_t dt, void *dst, const uint8_t *src,
		       size_t count)
{
	conv(dt, dst, src, count, false);
}

/* ---- Integers: one routine for every width and signedness ---- */

static int64_t sext(uint64_t v, size_t n)
{
	unsigned sh = (unsigned)(64 - 8 * n);

	return sh ? (int64_t)(v << sh) >> sh : (int64_t)v;
}

static int int_cmp(uint64_t a, uint64_t b, size_t n, bool sgn)
{
	if (sgn) {
		int64_t x = sext(a, n), y = sext(b, n);

		return x < y ? -1 : x > y;
	}
	return a < b ? -1 : a > b;
}

/* New value of mem (a) given operand b and compare c; all zero-extended
 * n-byte values (arithmetic mod 2^64, truncated by the store). */
static uint64_t int_op(uint8_t op, uint64_t a, uint64_t b, uint64_t c,
		       size_t n, bool sgn)
{
	uint64_t mask = n == 8 ? ~0ull : (1ull << (8 * n)) - 1;

	switch (op) {
	case UET_AMO_MIN: return int_cmp(b, a, n, sgn) < 0 ? b : a;
	case UET_AMO_MAX: return int_cmp(b, a, n, sgn) > 0 ? b : a;
	case UET_AMO_SUM: return (a + b) & mask;
	case UET_AMO_DIFF: return (a - b) & mask;
	case UET_AMO_PROD: return (a * b) & mask;
	case UET_AMO_LOR: return a || b;
	case UET_AMO_LAND: return a && b;
	case UET_AMO_LXOR: return !a != !b;
	case UET_AMO_BOR: return a | b;
	case UET_AMO_BAND: return a & b;
	case UET_AMO_BXOR: return a ^ b;
	case UET_AMO_WRITE: return b;
	case UET_AMO_CSWAP: return c == a ? b : a;
	case UET_AMO_CSWAP_NE: return c != a ? b : a;
	case UET_AMO_CSWAP_LE: return int_cmp(c, a, n, sgn) <= 0 ? b : a;
	case UET_AMO_CSWAP_LT: return int_cmp(c, a, n, sgn) < 0 ? b : a;
	case UET_AMO_CSWAP_GE: return int_cmp(c, a, n, sgn) >= 0 ? b : a;
	case UET_AMO_CSWAP_GT: return int_cmp(c, a, n, sgn) > 0 ? b : a;
	case UET_AMO_MSWAP: return (b & c) | (a & ~c);
	default: return a;	/* READ */
	}
}

/* ---- Real and complex floating point ---- */

/* The ops of every floating type, complex ones included: new value r of
 * mem (a) given operand b and compare c. */
#define FLOAT_OPS							\
	case UET_AMO_SUM: r = a + b; break;				\
	case UET_AMO_DIFF: r = a - b; break;				\
	case UET_AMO_PROD: r = a * b; break;				\
	case UET_AMO_LOR: r = a != 0 || b != 0; break;			\
	case UET_AMO_LAND: r = a != 0 && b != 0; break;			\
	case UET_AMO_LXOR: r = (a != 0) != (b != 0); break;		\
	case UET_AMO_WRITE: r = b; break;				\
	case UET_AMO_CSWAP: r = c == a ? b : a; break;			\
	case UET_AMO_CSWAP_NE: r = c != a ? b : a; break;

/* ... and those of the real ones only. */
#define REAL_OPS							\
	case UET_AMO_MIN: r = b < a ? b : a; break;			\
	case UET_AMO_MAX: r = b > a ? b : a; break;			\
	case UET_AMO_CSWAP_LE: r = c <= a ? b : a; break;		\
	case UET_AMO_CSWAP_LT: r = c < a ? b : a; break;		\
	case UET_AMO_CSWAP_GE: r = c >= a ? b : a; break;		\
	case UET_AMO_CSWAP_GT: r = c > a ? b : a; break;

/* elem_N: op on one element of type T at mem, with arg and cmp (host
 * order); MORE_OPS are the type's ops beyond FLOAT_OPS. */
#define FLOAT_ELEM(N, T, MORE_OPS)					\
static void elem_##N(uint8_t op, uint8_t *mem, const uint8_t *arg,	\
		     const uint8_t *cmp)				\
{									\
	T a, b, c, r;							\
									\
	memcpy(&a, mem, sizeof(T));					\
	memcpy(&b, arg, sizeof(T));					\
	memcpy(&c, cmp, sizeof(T));					\
	switch (op) {							\
	FLOAT_OPS							\
	MORE_OPS							\
	default: r = a; break;	/* READ */				\
	}								\
	memcpy(mem, &r, sizeof(T));					\
}

FLOAT_ELEM(f, float, REAL_OPS)
FLOAT_ELEM(d, double, REAL_OPS)
FLOAT_ELEM(fc, float complex, )
FLOAT_ELEM(dc, double complex, )

/* One element: mem in host order; arg, cmp in host order (converted). */
static void elem(uint8_t op, uint8_t dt, uint8_t *mem, const uint8_t *arg,
		 const uint8_t *cmp)
{
	size_t n = uet_amo_size(dt);

	switch (dt) {
	case UET_AMO_FLOAT: elem_f(op, mem, arg, cmp); return;
	case UET_AMO_DOUBLE: elem_d(op, mem, arg, cmp); return;
	case UET_AMO_FLOAT_COMPLEX: elem_fc(op, mem, arg, cmp); return;
	case UET_AMO_DOUBLE_COMPLEX: elem_dc(op, mem, arg, cmp); return;
	default: {
		/* Signed types have even codes (docs/protocol.md §5.7). */
		bool sgn = !(dt & 1);

		mem_put(mem, n, int_op(op, mem_get(mem, n), mem_get(arg, n),
				       mem_get(cmp, n), n, sgn));
		return;
	}
	}
}

/* Run op on count elements at mem (aligned, checked by the caller). arg
 * holds count wire operands (NULL for READ), cmp one wire compare value
 * (compare ops only); old, if not NULL, receives the values before, in
 * wire order. The compare ops take one element. */
void uet_amo_exec(uint8_t op, uint8_t dt, void *mem, const uint8_t *arg,
		  const uint8_t *cmp, uint8_t *old, size_t count)
{
	size_t n = uet_amo_size(dt), i;
	uint8_t a[16], c[16];
	uint8_t *p = mem;

	memset(c, 0, sizeof(c));
	if (cmp)
		uet_amo_from_wire(dt, c, cmp, 1);
	for (i = 0; i < count; i++, p += n) {
		if (old)
			uet_amo_to_wire(dt, old + i * n, p, 1);
		memset(a, 0, sizeof(a));
		if (arg)
			uet_amo_from_wire(dt, a, arg + i * n, 1);
		elem(op, dt, p, a, c);
	}
}
