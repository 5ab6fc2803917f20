/* Known-answer tests for the TSS primitives: AES-256-GCM against the GCM
 * specification's test cases 13-16 (McGrew and Viega, as in NIST SP
 * 800-38D validation), and the SP 800-108 counter-mode CMAC KDF against
 * NIST CAVP KBKDF vectors (8-bit counter with AES-128, 32-bit with
 * AES-256, counter before the fixed input).
 */
#include <stdio.h>
#include <string.h>

#include <criterion/criterion.h>

#include "uet/err.h"
#include "aead.h"
#include "kdf.h"

static size_t unhex(uint8_t *out, size_t cap, const char *hex)
{
	size_t n = 0;

	for (; hex[0] && hex[1]; hex += 2) {
		unsigned v;

		cr_assert_lt(n, cap);
		cr_assert_eq(sscanf(hex, "%2x", &v), 1);
		out[n++] = (uint8_t)v;
	}
	return n;
}

struct gcm_case {
	const char *key, *iv, *aad, *pt, *ct, *tag;
};

static const char gcm_key15[] =
	"feffe9928665731c6d6a8f9467308308feffe9928665731c6d6a8f9467308308";
static const char gcm_pt64[] =
	"d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	"1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b391aafd255";
static const char gcm_ct64[] =
	"522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	"8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662898015ad";

static const struct gcm_case gcm_cases[] = {
	{ "0000000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000", "", "", "",
	  "530f8afbc74536b9a963b4f1c4cb738b" },
	{ "0000000000000000000000000000000000000000000000000000000000000000",
	  "000000000000000000000000", "", "00000000000000000000000000000000",
	  "cea7403d4d606b6e074ec5d3baf39d18",
	  "d0d1c8a799996bf0265b98b5d48ab919" },
	{ gcm_key15, "cafebabefacedbaddecaf888", "", gcm_pt64, gcm_ct64,
	  "b094dac5d93471bdec1a502270e3cc6c" },
	/* case 16: 60 bytes of case 15's text, with AAD */
	{ gcm_key15, "cafebabefacedbaddecaf888",
	  "feedfacedeadbeeffeedfacedeadbeefabaddad2",
	  "d9313225f88406e5a55909c5aff5269a86a7a9531534f7da2e4c303d8a318a72"
	  "1c3c0c95956809532fcf0e2449a6b525b16aedf5aa0de657ba637b39",
	  "522dc1f099567d07f47f37a32a84427d643a8cdcbfe5c0c97598a2bd2555d1aa"
	  "8cb08e48590dbb3da7b08b1056828838c5f61e6393ba7a0abcc9f662",
	  "76fc6ece0f4e1768cddf8853bb2d551b" },
};

Test(gcm, nist_cases_seal_and_open)
{
	for (size_t i = 0; i < sizeof(gcm_cases) / sizeof(gcm_cases[0]); i++) {
		const struct gcm_case *c = &gcm_cases[i];
		uint8_t key[32], iv[12], aad[32], pt[64], ct[64], tag[16];
		uint8_t out[64], otag[16];
		size_t na, np;
		struct uet_aead a;

		unhex(key, sizeof(key), c->key);
		unhex(iv, sizeof(iv), c->iv);
		na = unhex(aad, sizeof(aad), c->aad);
		np = unhex(pt, sizeof(pt), c->pt);
		cr_assert_eq(unhex(ct, sizeof(ct), c->ct), np);
		unhex(tag, sizeof(tag), c->tag);
		cr_assert_eq(uet_aead_init(&a, key), 0);
		cr_assert_eq(uet_aead_seal(&a, iv, aad, na, pt, np, out, otag),
			     0);
		cr_assert_arr_eq(out, ct, np, "case %zu ciphertext", i);
		cr_assert_arr_eq(otag, tag, 16, "case %zu tag", i);
		cr_assert_eq(uet_aead_open(&a, iv, aad, na, ct, np, out, tag),
			     0, "case %zu open", i);
		cr_assert_arr_eq(out, pt, np);
		/* one flipped bit anywhere: refused */
		tag[15] ^= 1;
		cr_assert_eq(uet_aead_open(&a, iv, aad, na, ct, np, out, tag),
			     UET_ERR_TSS_AUTH);
		tag[15] ^= 1;
		if (np) {
			ct[np / 2] ^= 0x80;
			cr_assert_eq(uet_aead_open(&a, iv, aad, na, ct, np, out,
						   tag), UET_ERR_TSS_AUTH);
			ct[np / 2] ^= 0x80;
		}
		if (na) {
			aad[0] ^= 1;
			cr_assert_eq(uet_aead_open(&a, iv, aad, na, ct, np, out,
						   tag), UET_ERR_TSS_AUTH);
		}
		uet_aead_fini(&a);
	}
}

Test(gcm, in_place)
{
	uint8_t key[32], iv[12], buf[64], tag[16], ct[64];

	unhex(key, sizeof(key), gcm_key15);
	unhex(iv, sizeof(iv), "cafebabefacedbaddecaf888");
	unhex(buf, sizeof(buf), gcm_pt64);
	unhex(ct, sizeof(ct), gcm_ct64);
	struct uet_aead a;

	cr_assert_eq(uet_aead_init(&a, key), 0);
	cr_assert_eq(uet_aead_seal(&a, iv, NULL, 0, buf, 64, buf, tag), 0);
	cr_assert_arr_eq(buf, ct, 64);
	cr_assert_eq(uet_aead_open(&a, iv, NULL, 0, buf, 64, buf, tag), 0);
	unhex(ct, sizeof(ct), gcm_pt64);
	cr_assert_arr_eq(buf, ct, 64);
	uet_aead_fini(&a);
}

struct kdf_case {
	const char *key;
	unsigned r;
	const char *fixed, *out;
};

static const struct kdf_case kdf_cases[] = {
	{ "dff1e50ac0b69dc40f1051d46c2b069c", 8,
	  "c16e6e02c5a3dcc8d78b9ac1306877761310455b4e41469951d9e6c2245a064b"
	  "33fd8c3b01203a7824485bf0a64060c4648b707d2607935699316ea5",
	  "8be8f0869b3c0ba97b71863d1b9f7813" },
	{ "bb31eef5a2ca3bfb342c5800fee67313", 8,
	  "f85ae18f15ce1a5e036d6e3fd227243a9863f88ef532ce1da810b6639c0928f9"
	  "b99fe909487d3748cff857cdb790f89e09d8c634dccb616cf7a2663a",
	  "8923d38effde99e24f67dec9330c4f1b874fc382ad644140e73a8e406f405d3f"
	  "e4b4730b7291275a" },
	{ "9f74dcc44cff4bdb0d45bf487063613d5d1d8a298b6ec856709bd5d7b335c27d",
	  32,
	  "fe19857b0bae929e40ad53049f7c3a1e544e492ad2ddee372daa9e90a50d7060"
	  "88c18abca2429a809c9d7f46a5a1db738c466014b4727ca7afe2da1e",
	  "dbefa67eabcaec5870cfce311944cac936914708b95c10ec137ddc4ed8b9cae4"
	  "304edfac35aaa536" },
};

Test(kdf, nist_kbkdf_counter_cmac)
{
	for (size_t i = 0; i < sizeof(kdf_cases) / sizeof(kdf_cases[0]); i++) {
		const struct kdf_case *c = &kdf_cases[i];
		uint8_t key[32], fixed[64], want[64], out[64];
		size_t nk, nf, no;

		nk = unhex(key, sizeof(key), c->key);
		nf = unhex(fixed, sizeof(fixed), c->fixed);
		no = unhex(want, sizeof(want), c->out);
		cr_assert_eq(uet_kdf_ctr_cmac(key, nk, c->r, fixed, nf, out,
					      no), 0);
		cr_assert_arr_eq(out, want, no, "vector %zu", i);
	}
}

/* The TSS form is the general one with its fixed input laid out. */
Test(kdf, tss_layout)
{
	uint8_t ki[32], ctx[10], fixed[2 + 1 + 10 + 4], a[44], b[44];

	for (int i = 0; i < 32; i++)
		ki[i] = (uint8_t)(i * 7 + 1);
	for (int i = 0; i < 10; i++)
		ctx[i] = (uint8_t)(0xa0 + i);
	fixed[0] = 'U';
	fixed[1] = '1';
	fixed[2] = 0;
	memcpy(fixed + 3, ctx, 10);
	fixed[13] = 0;
	fixed[14] = 0;
	fixed[15] = 0x01;	/* L = 352 = 0x160 */
	fixed[16] = 0x60;
	cr_assert_eq(uet_kdf_tss(ki, "U1", ctx, sizeof(ctx), a), 0);
	cr_assert_eq(uet_kdf_ctr_cmac(ki, 32, 8, fixed, sizeof(fixed), b, 44),
		     0);
	cr_assert_arr_eq(a, b, 44);
	/* another label, another key */
	cr_assert_eq(uet_kdf_tss(ki, "U2", ctx, sizeof(ctx), b), 0);
	cr_assert(memcmp(a, b, 44) != 0);
}

Test(kdf, bad_arguments)
{
	uint8_t k[32] = { 0 }, out[16];

	cr_assert_eq(uet_kdf_ctr_cmac(k, 20, 8, k, 1, out, 16), UET_ERR_INVAL);
	cr_assert_eq(uet_kdf_ctr_cmac(k, 32, 12, k, 1, out, 16),
		     UET_ERR_INVAL);
	/* 8-bit counter: at most 255 blocks */
	static uint8_t big[256 * 16];

	cr_assert_eq(uet_kdf_ctr_cmac(k, 32, 8, k, 1, big, sizeof(big)),
		     UET_ERR_INVAL);
}
