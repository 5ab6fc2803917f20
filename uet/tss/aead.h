/* AES-256-GCM for TSS (docs/choices.md §11.1): 96-bit IV, 128-bit ICV, through
 * OpenSSL libcrypto's EVP interface. One context per key, keyed once, so
 * a packet costs an IV set and one pass over its bytes.
 */
#ifndef UET_TSS_AEAD_H
#define UET_TSS_AEAD_H

#include <stddef.h>
#include <stdint.h>

#define UET_AEAD_KEY_LEN	32
#define UET_AEAD_IV_LEN		12
#define UET_AEAD_TAG_LEN	16

struct evp_cipher_ctx_st;

struct uet_aead {
	struct evp_cipher_ctx_st *enc, *dec;
};

/* 0, or UET_ERR_NOMEM / UET_ERR_IO (libcrypto refused). */
int uet_aead_init(struct uet_aead *a, const uint8_t key[UET_AEAD_KEY_LEN]);
void uet_aead_fini(struct uet_aead *a);

/* Encrypts len bytes of in into out (in == out allowed), authenticating
 * aad too, and writes the ICV to tag. */
int uet_aead_seal(struct uet_aead *a, const uint8_t iv[UET_AEAD_IV_LEN],
		  const uint8_t *aad, size_t aad_len, const uint8_t *in,
		  size_t len, uint8_t *out, uint8_t tag[UET_AEAD_TAG_LEN]);

/* Decrypts and verifies; 0 when the ICV matches, UET_ERR_TSS_AUTH when it
 * does not (out then holds garbage the caller must not use). */
int uet_aead_open(struct uet_aead *a, const uint8_t iv[UET_AEAD_IV_LEN],
		  const uint8_t *aad, size_t aad_len, const uint8_t *in,
		  size_t len, uint8_t *out,
		  const uint8_t tag[UET_AEAD_TAG_LEN]);

#endif
