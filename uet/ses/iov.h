/* Byte ranges of an iov array (struct uet_iov, uet/fep.h): a send's
 * buffers, a registered region's. */
#ifndef UET_SES_IOV_H
#define UET_SES_IOV_H

#include <stddef.h>
#include <stdint.h>

#include "uet/fep.h"

/* Where [off, off + len) of the n entries lies in one piece, or NULL
 * (split across entries, or past the end): what can be handed on in
 * place instead of copied. */
static inline void *uet_iov_span(const struct uet_iov *iov, size_t n,
				 uint64_t off, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++) {
		if (off < iov[i].len)
			return len <= iov[i].len - off ?
				(uint8_t *)iov[i].base + off : NULL;
		off -= iov[i].len;
	}
	return NULL;
}

#endif
