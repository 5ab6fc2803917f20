/* The TSS layer between PDS and the port (docs/choices.md §11.7): seals a
 * packet PDS built into TSS header || ciphertext || ICV, and opens what
 * arrives. Sans-I/O like the rest of the engine; the fep calls it.
 *
 * AAD over UDP (docs/choices.md §11.1): the IP source and
 * destination addresses (4 + 4 or 16 + 16 bytes) then the TSS header.
 * There is no entropy header over UDP and the source port is not
 * authenticated: the entropy is only a path choice.
 */
#ifndef UET_TSS_TSS_H
#define UET_TSS_TSS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "uet/addr.h"
#include "uet/time.h"
#include "uet/tss.h"
#include "uet/wire.h"

struct uet_tss;

int uet_tss_new(struct uet_tss **out, const struct uet_tss_cfg *cfg,
		const struct uet_addr *local);
void uet_tss_free(struct uet_tss *t);

/* Bytes a sealed packet adds: the TSS header with SSI and the ICV. */
size_t uet_tss_overhead(void);

/* buf[0..len) holds a clear packet (PDS header first); cap >= len +
 * uet_tss_overhead(). Rewrites it in place as the sealed packet and
 * returns its length, or UET_ERR_TSS_EXHAUSTED (counted, not sent). */
ssize_t uet_tss_seal(struct uet_tss *t, const struct uet_addr *dst,
		     uint8_t *buf, size_t len, size_t cap);
/* The same with the clear packet already at buf + uet_tss_headroom()
 * (the fep builds it there): no bytes move before the cipher runs. */
ssize_t uet_tss_seal_in_place(struct uet_tss *t, const struct uet_addr *dst,
			      uint8_t *buf, size_t len, size_t cap);
/* Where the clear packet starts in a sealed one: the TSS header. */
static inline size_t uet_tss_headroom(void)
{
	return UET_TSS_HDR_SSI_LEN;
}

/* pkt (len bytes from src) starts with a TSS header. Writes the clear
 * packet to out (room for len bytes) and returns its length; or a
 * UET_ERR_TSS_* / wire error, counted. */
ssize_t uet_tss_open(struct uet_tss *t, const struct uet_addr *src,
		     const uint8_t *pkt, size_t len, uint8_t *out,
		     uet_time now);

/* For tools reading captures: verify and decrypt a packet from src to
 * dst with the domain's keys (its header in *hdr), keeping no state and
 * counting nothing (no replay check). Length of the clear packet, or an
 * error. */
ssize_t uet_tss_peek(struct uet_tss *t, const struct uet_addr *src,
		     const struct uet_addr *dst, const uint8_t *pkt,
		     size_t len, uint8_t *out, struct uet_tss_hdr *hdr);

/* A clear packet arrived for the secured endpoint: counted. */
void uet_tss_bypass(struct uet_tss *t);
/* Whether job is the JobID the secure domain is bound to; counts a
 * binding failure when not. */
bool uet_tss_bound(struct uet_tss *t, uint32_t job);
/* Install key in slot an and send with it from now on (make-before-
 * break rotation: receivers keep accepting the other slot). */
int uet_tss_rotate(struct uet_tss *t, unsigned an,
		   const uint8_t key[UET_TSS_KEY_LEN]);

void uet_tss_stats(const struct uet_tss *t, struct uet_tss_stats *st);

#endif
