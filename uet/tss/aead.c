/* AES-256-GCM through EVP: never hand-written crypto. */
#include <limits.h>

#include <openssl/evp.h>

#include "uet/err.h"
#include "aead.h"

int uet_aead_init(struct uet_aead *a, const uint8_t key[UET_AEAD_KEY_LEN])
{
	const EVP_CIPHER *c = EVP_aes_256_gcm();

	a->enc = EVP_CIPHER_CTX_new();
	a->dec = EVP_CIPHER_CTX_new();
	if (!a->enc || !a->dec) {
		uet_aead_fini(a);
		return UET_ERR_NOMEM;
	}
	/* The default GCM IV length is 12 bytes, ours. */
	if (EVP_EncryptInit_ex(a->enc, c, NULL, key, NULL) != 1 ||
	    EVP_DecryptInit_ex(a->dec, c, NULL, key, NULL) != 1) {
		uet_aead_fini(a);
		return UET_ERR_IO;
	}
	return 0;
}

void uet_aead_fini(struct uet_aead *a)
{
	EVP_CIPHER_CTX_free(a->enc);
	EVP_CIPHER_CTX_free(a->dec);
	a->enc = a->dec = NULL;
}

int uet_aead_seal(struct uet_aead *a, const uint8_t iv[UET_AEAD_IV_LEN],
		  const uint8_t *aad, size_t aad_len, const uint8_t *in,
		  size_t len, uint8_t *out, uint8_t tag[UET_AEAD_TAG_LEN])
{
	int n;

	if (len > INT_MAX || aad_len > INT_MAX)
		return UET_ERR_INVAL;
	if (EVP_EncryptInit_ex(a->enc, NULL, NULL, NULL, iv) != 1 ||
	    (aad_len &&
	     EVP_EncryptUpdate(a->enc, NULL, &n, aad, (int)aad_len) != 1) ||
	    (len && EVP_EncryptUpdate(a->enc, out, &n, in, (int)len) != 1) ||
	    EVP_EncryptFinal_ex(a->enc, out + len, &n) != 1 ||
	    EVP_CIPHER_CTX_ctrl(a->enc, EVP_CTRL_GCM_GET_TAG,
				UET_AEAD_TAG_LEN, tag) != 1)
		return UET_ERR_IO;
	return 0;
}

int uet_aead_open(struct uet_aead *a, const uint8_t iv[UET_AEAD_IV_LEN],
		  const uint8_t *aad, size_t aad_len, const uint8_t *in,
		  size_t len, uint8_t *out,
		  const uint8_t tag[UET_AEAD_TAG_LEN])
{
	int n;

	if (len > INT_MAX || aad_len > INT_MAX)
		return UET_ERR_INVAL;
	if (EVP_DecryptInit_ex(a->dec, NULL, NULL, NULL, iv) != 1 ||
	    (aad_len &&
	     EVP_DecryptUpdate(a->dec, NULL, &n, aad, (int)aad_len) != 1) ||
	    (len && EVP_DecryptUpdate(a->dec, out, &n, in, (int)len) != 1) ||
	    EVP_CIPHER_CTX_ctrl(a->dec, EVP_CTRL_GCM_SET_TAG,
				UET_AEAD_TAG_LEN, (void *)tag) != 1)
		return UET_ERR_IO;
	/* Final is where GCM compares the tag. */
	if (EVP_DecryptFinal_ex(a->dec, out + len, &n) != 1)
		return UET_ERR_TSS_AUTH;
	return 0;
}
