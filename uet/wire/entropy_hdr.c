/* Entropy header of the IP-native encapsulation (docs/protocol.md §1.3). */
#include "uet/wire.h"

#include "be.h"

int uet_entropy_hdr_decode(struct uet_entropy_hdr *h, const uint8_t *buf,
			   size_t len)
{
	if (len < UET_ENTROPY_HDR_LEN)
		return UET_ERR_WIRE_TRUNC;
	if (uet_be_get16(buf + 2))
		return UET_ERR_WIRE_RESERVED;
	h->entropy = uet_be_get16(buf);
	return UET_ENTROPY_HDR_LEN;
}

int uet_entropy_hdr_encode(uint8_t *buf, size_t cap,
			   const struct uet_entropy_hdr *h)
{
	if (cap < UET_ENTROPY_HDR_LEN)
		return UET_ERR_WIRE_NOSPACE;
	uet_be_put16(buf, h->entropy);
	uet_be_put16(buf + 2, 0);
	return UET_ENTROPY_HDR_LEN;
}
