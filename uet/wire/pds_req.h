/* RUD/ROD request and RUD/ROD CC request bodies (docs/protocol.md §4.1),
 * used by uet_pds_hdr_*.
 * The prologue (type, next_hdr, flags) is already in h and validated;
 * buf holds the whole header. get: 0 or a UET_ERR_WIRE_* decode error;
 * check: 0 or UET_ERR_WIRE_RANGE; put writes everything after the prologue
 * into a zeroed header.
 */
#ifndef UET_WIRE_PDS_REQ_H
#define UET_WIRE_PDS_REQ_H

#include "uet/wire.h"

int uet_pds_req_get(struct uet_pds_hdr *h, const uint8_t *buf);
int uet_pds_req_check(const struct uet_pds_hdr *h);
void uet_pds_req_put(uint8_t *buf, const struct uet_pds_hdr *h);

#endif
