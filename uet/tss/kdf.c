/* SP 800-108 counter-mode KDF over libcrypto's CMAC (EVP_MAC). OpenSSL
 * 3.0's own KBKDF has no 8-bit counter, so the counter and the fixed
 * input are laid out here and each block is one CMAC. */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "uet/err.h"
#include "kdf.h"

#define KDF_BLOCK	16	/* CMAC-AES output */
#define KDF_FIXED_MAX	64	/* largest fixed input TSS builds */

static const char *kdf_cipher(size_t key_len)
{
	switch (key_len) {
	case 16: return "AES-128-CBC";
	case 24: return "AES-192-CBC";
	case 32: return "AES-256-CBC";
	}
	return NULL;
}

int uet_kdf_ctr_cmac(const uint8_t *key, size_t key_len, unsigned r_bits,
		     const uint8_t *fixed, size_t fixed_len, uint8_t *out,
		     size_t out_len)
{
	const char *cipher = kdf_cipher(key_len);
	unsigned r = r_bits / 8;
	uint64_t blocks = (out_len + KDF_BLOCK - 1) / KDF_BLOCK;
	OSSL_PARAM params[2];
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx = NULL;
	int rc = UET_ERR_IO;

	if (!cipher || !r || r > 4 || r_bits % 8 ||
	    blocks >= (1ull << r_bits))
		return UET_ERR_INVAL;
	mac = EVP_MAC_fetch(NULL, OSSL_MAC_NAME_CMAC, NULL);
	if (!mac)
		return UET_ERR_IO;
	ctx = EVP_MAC_CTX_new(mac);
	if (!ctx)
		goto out;
	params[0] = OSSL_PARAM_construct_utf8_string(
		OSSL_MAC_PARAM_CIPHER, (char *)cipher, 0);
	params[1] = OSSL_PARAM_construct_end();
	for (uint64_t i = 1; i <= blocks; i++) {
		uint8_t ctr[4], k[KDF_BLOCK];
		size_t n, take;

		for (unsigned b = 0; b < r; b++)	/* big-endian [i]_r */
			ctr[b] = (uint8_t)(i >> (8 * (r - 1 - b)));
		if (EVP_MAC_init(ctx, key, key_len, params) != 1 ||
		    EVP_MAC_update(ctx, ctr, r) != 1 ||
		    EVP_MAC_update(ctx, fixed, fixed_len) != 1 ||
		    EVP_MAC_final(ctx, k, &n, sizeof(k)) != 1 ||
		    n != KDF_BLOCK)
			goto out;
		take = out_len - (size_t)(i - 1) * KDF_BLOCK;
		if (take > KDF_BLOCK)
			take = KDF_BLOCK;
		memcpy(out + (i - 1) * KDF_BLOCK, k, take);
	}
	rc = 0;
out:
	EVP_MAC_CTX_free(ctx);
	EVP_MAC_free(mac);
	return rc;
}

int uet_kdf_tss(const uint8_t ki[32], const char label[2],
		const uint8_t *context, size_t context_len,
		uint8_t out[UET_KDF_OUT_LEN])
{
	uint8_t fixed[KDF_FIXED_MAX];
	const uint32_t l_bits = UET_KDF_OUT_LEN * 8;
	size_t n = 0;

	if (context_len > sizeof(fixed) - 7)
		return UET_ERR_INVAL;
	fixed[n++] = (uint8_t)label[0];
	fixed[n++] = (uint8_t)label[1];
	fixed[n++] = 0x00;
	memcpy(fixed + n, context, context_len);
	n += context_len;
	fixed[n++] = (uint8_t)(l_bits >> 24);
	fixed[n++] = (uint8_t)(l_bits >> 16);
	fixed[n++] = (uint8_t)(l_bits >> 8);
	fixed[n++] = (uint8_t)l_bits;
	return uet_kdf_ctr_cmac(ki, 32, 8, fixed, n, out, UET_KDF_OUT_LEN);
}
