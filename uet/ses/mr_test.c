/* Memory regions: registration rules, the key table under many keys, and
 * how a region resolves addresses (offset vs virtual address, range). */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "ses_int.h"
#include "../fixtures/test_loop.h"

static struct tl_ep E;

static void setup(void)
{
	tl_ep_open_at(&E, 7001, NULL);
}

static void teardown(void)
{
	tl_ep_close(&E);
}

TestSuite(mr, .init = setup, .fini = teardown);

Test(mr, key_rules)
{
	uint8_t buf[64];
	int ctx;

	cr_assert_eq(tl_mr(&E, buf, 64, 1, UET_MR_REMOTE_READ, &ctx), 0);
	/* Twice the same key. */
	cr_assert_eq(tl_mr(&E, buf, 64, 1, UET_MR_REMOTE_WRITE, &ctx),
		     UET_ERR_BUSY);
	/* Each reserved/vendor bit 61:48 is refused. */
	for (int b = 48; b <= 61; b++)
		cr_assert_eq(tl_mr(&E, buf, 64, 2 | 1ull << b,
				   UET_MR_REMOTE_READ, &ctx), UET_ERR_INVAL,
			     "bit %d", b);
	/* Bit 62 (optimized format) is the caller's. */
	cr_assert_eq(tl_mr(&E, buf, 64, 3 | UET_MKEY_OPTIMIZED,
			   UET_MR_REMOTE_READ, &ctx), 0);
	/* Key bit 63 and the IDEMPOTENT access bit go together. */
	cr_assert_eq(tl_mr(&E, buf, 64, 4 | UET_MKEY_IDEMPOTENT_SAFE,
			   UET_MR_REMOTE_READ, &ctx), UET_ERR_INVAL);
	cr_assert_eq(tl_mr(&E, buf, 64, 4, UET_MR_REMOTE_READ |
			   UET_MR_IDEMPOTENT, &ctx), UET_ERR_INVAL);
	cr_assert_eq(tl_mr(&E, buf, 64, 4 | UET_MKEY_IDEMPOTENT_SAFE,
			   UET_MR_REMOTE_READ | UET_MR_IDEMPOTENT, &ctx), 0);
	/* Bits 4 and 63 name different regions. */
	cr_assert_eq(tl_mr(&E, buf, 64, 4, UET_MR_REMOTE_READ, &ctx), 0);
	/* Unknown access bits, memory missing. */
	cr_assert_eq(tl_mr(&E, buf, 64, 5, 0x40, &ctx), UET_ERR_INVAL);
	cr_assert_eq(tl_mr(&E, NULL, 64, 5, UET_MR_REMOTE_READ, &ctx),
		     UET_ERR_INVAL);
	cr_assert_eq(tl_mr(&E, NULL, 0, 5, UET_MR_REMOTE_READ, &ctx), 0);
	cr_assert_eq(uet_ses_mr_reg(E.ses, NULL), UET_ERR_INVAL);
}

Test(mr, dereg_and_reuse)
{
	uint8_t buf[8];

	cr_assert_eq(uet_ses_mr_dereg(E.ses, 9), UET_ERR_NOENT);
	cr_assert_eq(tl_mr(&E, buf, 8, 9, UET_MR_REMOTE_READ, NULL), 0);
	cr_assert_eq(uet_ses_mr_dereg(E.ses, 9), 0);
	cr_assert_eq(uet_ses_mr_dereg(E.ses, 9), UET_ERR_NOENT);
	cr_assert_null(uet_mr_find(E.ses, 9));
	cr_assert_eq(tl_mr(&E, buf, 8, 9, UET_MR_REMOTE_WRITE, NULL), 0);
	cr_assert_eq(uet_mr_find(E.ses, 9)->access, UET_MR_REMOTE_WRITE);
	/* Engine keys (vendor bits) are not the caller's to drop. */
	cr_assert_eq(uet_ses_mr_dereg(E.ses, UET_SES_MKEY_RNDV | 9),
		     UET_ERR_NOENT);
}

/* Thousands of keys with colliding low bits, half removed in a scattered
 * order: every remaining key is still found, no removed one is. */
Test(mr, many_keys)
{
	enum { N = 3000 };
	static uint8_t buf[N];
	int i;

	for (i = 0; i < N; i++)
		cr_assert_eq(tl_mr(&E, buf + i, 1, (uint64_t)i << 20,
				   UET_MR_REMOTE_READ, buf + i), 0);
	for (i = 0; i < N; i += 2)
		cr_assert_eq(uet_ses_mr_dereg(E.ses,
					      (uint64_t)((i * 7) % N) << 20),
			     0, "%d", i);
	for (i = 0; i < N; i++) {
		uint64_t k = (uint64_t)i << 20;
		struct uet_ses_mr *mr = uet_mr_find(E.ses, k);
		bool removed = false;
		int j;

		for (j = 0; j < N && !removed; j += 2)
			removed = (j * 7) % N == i;
		if (removed) {
			cr_assert_null(mr, "key %d still found", i);
		} else {
			cr_assert_not_null(mr, "key %d lost", i);
			cr_assert_eq(mr->context, buf + i);
		}
	}
}

Test(mr, offset_addressing)
{
	uint8_t buf[100];
	struct uet_ses_mr *mr;
	struct uet_addr a = tl_addr(1);
	uint64_t off;

	cr_assert_eq(tl_mr(&E, buf, 100, 11, UET_MR_REMOTE_WRITE, NULL), 0);
	cr_assert_eq(uet_mr_check(E.ses, 11, 0, 100, UET_MR_REMOTE_WRITE,
				  &a, &mr, &off), UET_RC_OK);
	cr_assert_eq(off, 0);
	cr_assert_eq(uet_mr_check(E.ses, 11, 60, 40, UET_MR_REMOTE_WRITE,
				  &a, &mr, &off), UET_RC_OK);
	cr_assert_eq(off, 60);
	cr_assert_eq(uet_mr_check(E.ses, 11, 100, 0, UET_MR_REMOTE_WRITE,
				  &a, &mr, &off), UET_RC_OK);
	cr_assert_eq(uet_mr_check(E.ses, 11, 61, 40, UET_MR_REMOTE_WRITE,
				  &a, &mr, &off), UET_RC_BAD_ADDR);
	cr_assert_eq(uet_mr_check(E.ses, 11, 101, 0, UET_MR_REMOTE_WRITE,
				  &a, &mr, &off), UET_RC_BAD_ADDR);
	/* offset + len wraps around 2^64: still out of range. */
	cr_assert_eq(uet_mr_check(E.ses, 11, 50, UINT64_MAX - 10,
				  UET_MR_REMOTE_WRITE, &a, &mr, &off),
		     UET_RC_BAD_ADDR);
	cr_assert_eq(uet_mr_check(E.ses, 11, UINT64_MAX, 2,
				  UET_MR_REMOTE_WRITE, &a, &mr, &off),
		     UET_RC_BAD_ADDR);
	cr_assert_eq(uet_mr_check(E.ses, 11, 0, 1, UET_MR_REMOTE_READ, &a,
				  &mr, &off), UET_RC_PERM_VIOLATION);
	cr_assert_eq(uet_mr_check(E.ses, 12, 0, 1, UET_MR_REMOTE_WRITE, &a,
				  &mr, &off), UET_RC_BAD_MKEY);
}

Test(mr, virt_addr_addressing)
{
	uint8_t buf[100];
	uint64_t va = (uintptr_t)buf, off;
	struct uet_ses_mr *mr;
	struct uet_addr a = tl_addr(1);

	cr_assert_eq(tl_mr(&E, buf, 100, 12, UET_MR_REMOTE_READ |
			   UET_MR_VIRT_ADDR, NULL), 0);
	cr_assert_eq(uet_mr_check(E.ses, 12, va + 10, 90, UET_MR_REMOTE_READ,
				  &a, &mr, &off), UET_RC_OK);
	cr_assert_eq(off, 10);
	/* An offset is no address here. */
	cr_assert_eq(uet_mr_check(E.ses, 12, 10, 1, UET_MR_REMOTE_READ, &a,
				  &mr, &off), UET_RC_BAD_ADDR);
	cr_assert_eq(uet_mr_check(E.ses, 12, va - 1, 1, UET_MR_REMOTE_READ,
				  &a, &mr, &off), UET_RC_BAD_ADDR);
	cr_assert_eq(uet_mr_check(E.ses, 12, va + 10, 91, UET_MR_REMOTE_READ,
				  &a, &mr, &off), UET_RC_BAD_ADDR);
}
