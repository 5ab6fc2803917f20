/* Key derivation for TSS cluster mode (docs/choices.md §11.3): NIST SP
 * 800-108 in counter mode with CMAC-AES as the PRF, an 8-bit counter before
 * the fixed input data.
 */
#ifndef UET_TSS_KDF_H
#define UET_TSS_KDF_H

#include <stddef.h>
#include <stdint.h>

/* A derived key: 32-byte AES-256 key then a 12-byte IV mask (L = 352). */
#define UET_KDF_OUT_LEN		44

/* The general form, for the NIST vectors: K(i) = CMAC(key, [i]_r ||
 * fixed) for i = 1, 2, ..., out = the leftmost out_len bytes. key_len
 * picks AES-128/192/256; r_bits is 8, 16, 24 or 32. */
int uet_kdf_ctr_cmac(const uint8_t *key, size_t key_len, unsigned r_bits,
		     const uint8_t *fixed, size_t fixed_len, uint8_t *out,
		     size_t out_len);

/* TSS's use: fixed = label || 0x00 || context || [352]_32, r = 8,
 * CMAC-AES-256 under the 32-byte secure domain key ki. */
int uet_kdf_tss(const uint8_t ki[32], const char label[2],
		const uint8_t *context, size_t context_len,
		uint8_t out[UET_KDF_OUT_LEN]);

#endif
