/* struct uet_op builders for the engine tests. The SES loop (test_loop.c)
 * and the whole-engine tests (ses/fep_test.c, core/fep_test.c) link
 * different drivers, so these are static inline. */
#ifndef UET_SES_TEST_OP_H
#define UET_SES_TEST_OP_H

#include "uet/fep.h"

/* The fields every op has: type, flags, context, peer (unless NULL) and
 * the one buffer iov. The rest of op is the caller's: it starts from a
 * zeroed op with what its type needs, e.g. { .tag = tag }. */
static inline void test_op_init(struct uet_op *op, uint8_t type,
				uint32_t flags, void *ctx,
				const struct uet_addr *peer,
				const struct uet_iov *iov)
{
	op->type = type;
	op->flags = flags;
	op->context = ctx;
	if (peer)
		op->peer = *peer;
	op->iov = iov;
	op->iov_count = 1;
}

/* The atomic part of op: the operation, the type, and the result and
 * compare buffers (an iov with a NULL base is none). */
static inline void test_op_amo(struct uet_op *op, uint8_t aop, uint8_t dt,
			       const struct uet_iov *res,
			       const struct uet_iov *cmp)
{
	op->amo_op = aop;
	op->amo_dt = dt;
	if (res->base) {
		op->result_iov = res;
		op->result_count = 1;
	}
	if (cmp->base) {
		op->compare_iov = cmp;
		op->compare_count = 1;
	}
}

#endif
