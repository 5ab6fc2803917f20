/* Truncation: every header has a fixed length (docs/protocol.md §6), decoders
 * never read past len and write the out-struct only on success (wire.h).
 * So every strict prefix of a golden header, and of a packet's headers,
 * must give UET_ERR_WIRE_TRUNC and leave the out-struct byte for byte as
 * it was. Prefixes are exact-size heap copies, so ASan sees any over-read.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

Test(trunc, headers)
{
	const struct wt_hdr *const *h;
	union wt_any got, before;
	uint8_t *buf;
	size_t cut;
	int n;

	for (h = wt_hdrs; *h; h++) {
		const struct wt_hdr *g = *h;

		for (cut = 0; cut < g->len; cut++) {
			buf = wt_dup(g->bytes, cut);
			memset(&got, 0x5A, sizeof(got));
			memcpy(&before, &got, sizeof(got));
			n = wt_decode(g, &got, buf, cut);
			cr_expect_eq(n, UET_ERR_WIRE_TRUNC,
				     "%s cut to %zu: decode returned %d (%s)",
				     g->name, cut, n, uet_err_str(n));
			cr_expect(!memcmp(&got, &before, wt_size(g->kind)),
				  "%s cut to %zu: out-struct written",
				  g->name, cut);
			free(buf);
		}
	}
}

/* A NULL buffer of length 0 is just an empty one. */
Test(trunc, null_empty)
{
	struct uet_entropy_hdr e;
	struct uet_tss_hdr t;
	struct uet_pds_hdr p;
	struct uet_ses_req q;
	struct uet_ses_rsp r;
	struct uet_pkt k;

	cr_expect_eq(uet_entropy_hdr_decode(&e, NULL, 0), UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_tss_hdr_decode(&t, NULL, 0), UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_pds_hdr_decode(&p, NULL, 0), UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_req_decode(&q, UET_NH_REQ_STD, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_req_decode(&q, UET_NH_REQ_SMALL, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_req_decode(&q, UET_NH_REQ_MEDIUM, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_rsp_decode(&r, UET_NH_RSP, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_rsp_decode(&r, UET_NH_RSP_DATA, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_ses_rsp_decode(&r, UET_NH_RSP_DATA_SMALL, NULL, 0),
		     UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_pkt_decode(&k, NULL, 0, 0), UET_ERR_WIRE_TRUNC);
	cr_expect_eq(uet_pkt_decode(&k, NULL, 0, UET_PKT_ENTROPY),
		     UET_ERR_WIRE_TRUNC);
}

/* Whether a packet's SES header states its payload length (docs/protocol.md
 * §5.3, §5.10): then a packet cut inside the payload disagrees with it. */
static bool states_payload_len(const struct uet_pkt *want)
{
	if (want->has_req)
		return want->req.format == UET_NH_REQ_STD &&
		       !(want->req.flags & UET_SES_F_SOM);
	if (want->has_rsp)
		return want->rsp.format != UET_NH_RSP;
	return false;
}

Test(trunc, packets)
{
	struct uet_pkt want, got, before;
	uint8_t *full, *buf;
	size_t i, len, cut;
	int n;

	for (i = 0; i < wt_npkts; i++) {
		const struct wt_pkt *k = &wt_pkts[i];

		wt_pkt_build(k, &full, &len, &want);
		for (cut = 0; cut < len; cut++) {
			buf = wt_dup(full, cut);
			memset(&got, 0x5A, sizeof(got));
			memcpy(&before, &got, sizeof(got));
			n = uet_pkt_decode(&got, buf, cut, k->flags);
			if (cut < want.hdr_len) {
				cr_expect_eq(n, UET_ERR_WIRE_TRUNC,
					     "%s cut to %zu: returned %d (%s)",
					     k->name, cut, n, uet_err_str(n));
			} else if (states_payload_len(&want)) {
				cr_expect_eq(n, UET_ERR_WIRE_LENGTH,
					     "%s cut to %zu in the payload: "
					     "returned %d (%s)", k->name, cut,
					     n, uet_err_str(n));
			} else {
				/* payload length is implicit: a shorter one */
				cr_expect_eq(n, (int)want.hdr_len,
					     "%s cut to %zu: returned %d (%s)",
					     k->name, cut, n, uet_err_str(n));
				if (n >= 0)
					cr_expect_eq(got.payload_len,
						     cut - want.hdr_len,
						     "%s cut to %zu: payload_len",
						     k->name, cut);
				free(buf);
				continue;
			}
			cr_expect(!memcmp(&got, &before, sizeof(got)),
				  "%s cut to %zu: out-struct written",
				  k->name, cut);
			free(buf);
		}
		free(full);
	}
}
