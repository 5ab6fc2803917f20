/* SES request extension headers (docs/protocol.md §5.6), used by uet_ses_req_*.
 * get: bytes consumed or a UET_ERR_WIRE_* decode error, fills the union of
 * h from h->opcode; check: 0 or UET_ERR_WIRE_RANGE; put writes
 * uet_ses_req_ext_len() bytes.
 */
#ifndef UET_WIRE_SES_REQ_EXT_H
#define UET_WIRE_SES_REQ_EXT_H

#include "uet/wire.h"

int uet_ses_req_ext_len(enum uet_ses_ext ext);
int uet_ses_req_ext_get(struct uet_ses_req *h, const uint8_t *buf, size_t len);
int uet_ses_req_ext_check(const struct uet_ses_req *h);
void uet_ses_req_ext_put(uint8_t *buf, const struct uet_ses_req *h);

#endif
