/* The key file parser: what it accepts, what it refuses, and that its
 * complaints never quote a key. */
#include <string.h>

#include <criterion/criterion.h>

#include "uet/err.h"
#include "keyfile.h"

#define K64 "000102030405060708090a0b0c0d0e0f" \
	    "101112131415161718191a1b1c1d1e1f"

Test(keyfile, full)
{
	static const char text[] =
		"# a secure domain\n"
		"sdi 0x00abcd\n"
		"mode cluster\t# per-source keys\n"
		"key0 " K64 "\n"
		"  key1 " K64 "\r\n"
		"an 1\n\n"
		"epoch 7\n"
		"rekey_shift 24\n"
		"job 42";
	struct uet_tss_cfg c;
	bool has_job;
	char err[128];

	cr_assert_eq(uet_keyfile_parse(text, &c, &has_job, err, sizeof(err)),
		     0, "%s", err);
	cr_assert_eq(c.sdi, 0xabcd);
	cr_assert_eq(c.mode, UET_TSS_CLUSTER);
	cr_assert(c.has_key[0] && c.has_key[1]);
	cr_assert_eq(c.key[0][0], 0x00);
	cr_assert_eq(c.key[1][31], 0x1f);
	cr_assert_eq(c.an, 1);
	cr_assert_eq(c.epoch, 7);
	cr_assert_eq(c.rekey_shift, 24);
	cr_assert(has_job);
	cr_assert_eq(c.job, 42);
}

Test(keyfile, minimal_is_direct_an0)
{
	struct uet_tss_cfg c;
	bool has_job;
	char err[128];

	cr_assert_eq(uet_keyfile_parse("sdi 1\nkey0 " K64 "\n", &c, &has_job,
				       err, sizeof(err)), 0);
	cr_assert_eq(c.mode, UET_TSS_DIRECT);
	cr_assert_eq(c.an, 0);
	cr_assert_not(has_job);
}

Test(keyfile, refusals)
{
	static const char *bad[] = {
		"key0 " K64 "\n",				/* no sdi */
		"sdi 1\n",					/* no key */
		"sdi 1\nkey1 " K64 "\n",			/* an 0, no key0 */
		"sdi 0x1000000\nkey0 " K64 "\n",		/* 25 bits */
		"sdi 1\nkey0 " K64 "00\n",			/* too long */
		"sdi 1\nkey0 zz0102030405060708090a0b0c0d0e0f"
		"101112131415161718191a1b1c1d1e1f\n",
		"sdi 1\nkey0 " K64 "\nmode tunnel\n",
		"sdi 1\nkey0 " K64 "\nan 2\n",
		"sdi 1\nkey0 " K64 "\nepoch -1\n",
		"sdi 1\nkey0 " K64 "\nrekey_shift 48\n",
		"sdi 1\nkey0 " K64 "\ncolour blue\n",
		"sdi 1 2\nkey0 " K64 "\n",
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct uet_tss_cfg c;
		bool has_job;
		char err[128] = "";

		cr_assert_eq(uet_keyfile_parse(bad[i], &c, &has_job, err,
					       sizeof(err)), UET_ERR_INVAL,
			     "case %zu", i);
		cr_assert_neq(err[0], 0, "case %zu says why", i);
		cr_assert_null(strstr(err, "0405060708"), "case %zu: %s", i,
			       err);
	}
}
