/* Bad input: one golden vector with one thing wrong, per UET_ERR_WIRE_*
 * decode code (include/uet/err.h) and per rule of docs/protocol.md that
 * produces it. Every rejection must leave the out-struct untouched.
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

/* Decodes `g` with byte `off` replaced by `val`: returns the decoder's
 * result and checks the out-struct is untouched when it fails. */
static int decode_patched(const struct wt_hdr *g, size_t off, uint8_t val,
			  union wt_any *got)
{
	union wt_any before;
	uint8_t *buf;
	int n;

	cr_assert(off < g->len, "%s: offset %zu", g->name, off);
	buf = wt_dup(g->bytes, g->len);
	buf[off] = val;
	memset(got, 0x5A, sizeof(*got));
	memcpy(&before, got, sizeof(before));
	n = wt_decode(g, got, buf, g->len);
	if (n < 0)
		cr_expect(!memcmp(got, &before, wt_size(g->kind)),
			  "%s byte %zu = 0x%02x: failed (%d) but wrote the "
			  "out-struct", g->name, off, val, n);
	free(buf);
	return n;
}

static void expect_err(const char *name, size_t off, uint8_t val, int err)
{
	const struct wt_hdr *g = wt_hdr_find(name);
	union wt_any got;
	int n = decode_patched(g, off, val, &got);

	cr_expect_eq(n, err, "%s byte %zu = 0x%02x: decode returned %d (%s), "
		     "want %d (%s)", name, off, val, n, uet_err_str(n), err,
		     uet_err_str(err));
}

/* OR `bits` into byte `off`. */
static void expect_err_or(const char *name, size_t off, uint8_t bits, int err)
{
	expect_err(name, off, wt_hdr_find(name)->bytes[off] | bits, err);
}

/* Where the spec leaves the outcome open: either one of two errors, or a
 * decode that round-trips through the encoder unchanged. */
static void expect_err_or_consistent(const char *name, size_t off,
				     uint8_t val, int err1, int err2)
{
	const struct wt_hdr *g = wt_hdr_find(name);
	union wt_any got, again;
	uint8_t enc[160];
	char why[200];
	int n = decode_patched(g, off, val, &got);
	int m;

	if (n < 0) {
		cr_expect(n == err1 || n == err2,
			  "%s byte %zu = 0x%02x: decode returned %d (%s)",
			  name, off, val, n, uet_err_str(n));
		return;
	}
	cr_expect_eq(n, (int)g->len, "%s byte %zu = 0x%02x: length %d",
		     name, off, val, n);
	m = wt_encode(g->kind, enc, sizeof(enc), &got);
	cr_expect_eq(m, n, "%s byte %zu = 0x%02x: accepted, re-encode %d",
		     name, off, val, m);
	if (m != n)
		return;
	m = wt_decode(g, &again, enc, (size_t)m);
	cr_expect_eq(m, n, "%s: re-decode %d", name, m);
	cr_expect(wt_cmp(g->kind, &again, &got, why, sizeof(why)),
		  "%s byte %zu = 0x%02x: accepted, round trip: %s", name, off,
		  val, why);
}

/* Rewrites the PDS prologue (docs/protocol.md §3): type [15:11], next_hdr
 * [10:7], flags. */
static void prologue(uint8_t *b, unsigned type, unsigned nh, unsigned flags)
{
	uint16_t w = (uint16_t)(type << 11 | nh << 7 | flags);

	b[0] = (uint8_t)(w >> 8);
	b[1] = (uint8_t)w;
}

static int decode_prologue(const char *name, unsigned type, unsigned nh,
			   unsigned flags)
{
	const struct wt_hdr *g = wt_hdr_find(name);
	struct uet_pds_hdr got, before;
	uint8_t *buf = wt_dup(g->bytes, g->len);
	int n;

	prologue(buf, type, nh, flags);
	memset(&got, 0x5A, sizeof(got));
	memcpy(&before, &got, sizeof(got));
	n = uet_pds_hdr_decode(&got, buf, g->len);
	if (n < 0)
		cr_expect(!memcmp(&got, &before, sizeof(got)),
			  "%s type %u nh %u flags 0x%02x: failed (%d) but "
			  "wrote the out-struct", name, type, nh, flags, n);
	free(buf);
	return n;
}

/* Packet `name` with byte `off` (from the packet start) set to `val`,
 * cut to `len` bytes (0: whole). */
static void expect_pkt_err(const char *name, size_t off, uint8_t val,
			   size_t cut, int err)
{
	const struct wt_pkt *k = wt_pkt_find(name);
	struct uet_pkt want, got, before;
	uint8_t *full, *buf;
	size_t len;
	int n;

	wt_pkt_build(k, &full, &len, &want);
	cr_assert(off < len);
	full[off] = val;
	if (cut)
		len = cut;
	buf = wt_dup(full, len);
	memset(&got, 0x5A, sizeof(got));
	memcpy(&before, &got, sizeof(got));
	n = uet_pkt_decode(&got, buf, len, k->flags);
	cr_expect_eq(n, err, "%s byte %zu = 0x%02x len %zu: pkt decode "
		     "returned %d (%s), want %d (%s)", name, off, val, len, n,
		     uet_err_str(n), err, uet_err_str(err));
	cr_expect(!memcmp(&got, &before, sizeof(got)),
		  "%s: failed pkt decode wrote the out-struct", name);
	free(buf);
	free(full);
}

/* ---- UET_ERR_WIRE_TYPE: reserved PDS types (docs/protocol.md §3.1) ---- */

Test(reject, pds_type)
{
	static const unsigned bad[] = { 0, 15, 16, 23, 30, 31 };
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int n = decode_prologue("pds_rud_req", bad[i],
					UET_NH_REQ_STD, 0);

		cr_expect_eq(n, UET_ERR_WIRE_TYPE, "type %u: %d (%s)",
			     bad[i], n, uet_err_str(n));
		cr_expect_eq(uet_pds_hdr_len((uint8_t)bad[i]),
			     UET_ERR_WIRE_TYPE, "uet_pds_hdr_len(%u)", bad[i]);
		/* type sits in the top 5 bits of byte 0 */
		expect_pkt_err("rud_std_som", 0, (uint8_t)(bad[i] << 3 | 0x01),
			       0, UET_ERR_WIRE_TYPE);
	}
	cr_expect_eq(uet_pds_hdr_len(255), UET_ERR_WIRE_TYPE);
}

/* The TSS decoder only takes type 1 (docs/protocol.md §2). */
Test(reject, tss_type)
{
	expect_err("tss", 0, 0x11, UET_ERR_WIRE_TYPE);	/* type 2 */
	expect_err("tss", 0, 0x01, UET_ERR_WIRE_TYPE);	/* type 0 */
}

/* ---- UET_ERR_WIRE_NEXT_HDR: docs/protocol.md §3.2 valid combinations ---- */

struct nh_rule {
	const char *hdr;
	unsigned type;
	unsigned ok;		/* bit n: next_hdr n allowed */
};

static const struct nh_rule nh_rules[] = {
	/* requests: 1/2/3 forward, 5/6 returning read data */
	{ "pds_rud_req", UET_PDS_RUD_REQ, 0x6E },
	{ "pds_rod_req", UET_PDS_ROD_REQ, 0x6E },
	{ "pds_rud_cc_req", UET_PDS_RUD_CC_REQ, 0x6E },
	{ "pds_rud_cc_req", UET_PDS_ROD_CC_REQ, 0x6E },
	/* ACKs: none, or an SES response */
	{ "pds_ack", UET_PDS_ACK, 0x71 },
	{ "pds_ack_cc_nscc", UET_PDS_ACK_CC, 0x71 },
	{ "pds_ack_ccx", UET_PDS_ACK_CCX, 0x71 },
	/* NACKs: none */
	{ "pds_nack", UET_PDS_NACK, 0x01 },
	{ "pds_nack_ccx", UET_PDS_NACK_CCX, 0x01 },
	/* RUDI (docs/protocol.md §4.8): 1/2/3 on request, 4/5/6 on response */
	{ "pds_rudi_req", UET_PDS_RUDI_REQ, 0x0E },
	{ "pds_rudi_resp", UET_PDS_RUDI_RESP, 0x70 },
	/* UUD (docs/protocol.md §4.9): an SES request follows */
	{ "pds_uud", UET_PDS_UUD_REQ, 0x0E },
};

Test(reject, next_hdr)
{
	size_t i;
	unsigned nh;

	for (i = 0; i < sizeof(nh_rules) / sizeof(nh_rules[0]); i++) {
		const struct nh_rule *r = &nh_rules[i];

		for (nh = 0; nh < 16; nh++) {
			int n = decode_prologue(r->hdr, r->type, nh, 0);

			if (r->ok & (1u << nh))
				cr_expect_eq(n, uet_pds_hdr_len((uint8_t)r->type),
					     "type %u next_hdr %u refused: %d (%s)",
					     r->type, nh, n, uet_err_str(n));
			else
				cr_expect_eq(n, UET_ERR_WIRE_NEXT_HDR,
					     "type %u next_hdr %u: %d (%s)",
					     r->type, nh, n, uet_err_str(n));
		}
	}
	/* and through the packet decoder: RUD_REQ with next_hdr 7, NACK
	 * claiming a small request */
	expect_pkt_err("rud_std_som", 0, 0x13, 0, UET_ERR_WIRE_NEXT_HDR);
	expect_pkt_err("nack", 1, 0x90, 0, UET_ERR_WIRE_NEXT_HDR);
}

/* ---- UET_ERR_WIRE_CTL_TYPE: ctl_type 9 (REF-only NEGOTIATION) and the
 * reserved 10-15 (docs/protocol.md §4.7, docs/choices.md §10.4) ---- */

Test(reject, ctl_type)
{
	unsigned ctl;

	for (ctl = 0; ctl < 16; ctl++) {
		int n = decode_prologue("pds_ctrl_noop", UET_PDS_CTRL, ctl, 0);

		if (ctl <= UET_CTL_MAX)
			cr_expect_eq(n, UET_PDS_CTRL_LEN, "ctl_type %u: %d (%s)",
				     ctl, n, uet_err_str(n));
		else
			cr_expect_eq(n, UET_ERR_WIRE_CTL_TYPE,
				     "ctl_type %u: %d (%s)", ctl, n,
				     uet_err_str(n));
	}
	expect_pkt_err("ctrl_probe", 0, 0x5D, 0, UET_ERR_WIRE_CTL_TYPE);
}

/* ---- UET_ERR_WIRE_RESERVED: reserved flag bits per type ----
 * docs/protocol.md §3.3 */

struct flag_rule {
	const char *hdr;
	uint8_t rsvd;		/* rsvd in docs/protocol.md §3.3 */
};

static const struct flag_rule flag_rules[] = {
	{ "pds_rud_req", 0x63 },
	{ "pds_rod_req", 0x63 },
	{ "pds_rud_cc_req", 0x63 },
	{ "pds_rod_cc_req_syn", 0x63 },
	{ "pds_ack", 0x01 },		/* 0x40 (REF EPSN) below */
	{ "pds_ack_cc_credit", 0x01 },
	{ "pds_ack_ccx", 0x01 },
	{ "pds_nack", 0x47 },
	{ "pds_nack_ccx", 0x47 },
	{ "pds_ctrl_noop", 0x43 },	/* 0x20 (REF ISROD) below */
	{ "pds_rudi_req", 0x6F },	/* M only on the response */
	{ "pds_rudi_resp", 0x4F },
	{ "pds_uud", 0x7F },
};

Test(reject, reserved_flags)
{
	size_t i;
	unsigned bit;

	for (i = 0; i < sizeof(flag_rules) / sizeof(flag_rules[0]); i++) {
		const struct flag_rule *r = &flag_rules[i];
		const struct wt_hdr *g = wt_hdr_find(r->hdr);

		for (bit = 1; bit < 0x80; bit <<= 1) {
			int n;

			if (!(r->rsvd & bit))
				continue;
			n = decode_prologue(r->hdr, g->want.pds.type,
					    g->want.pds.next_hdr,
					    g->want.pds.flags | bit);
			cr_expect_eq(n, UET_ERR_WIRE_RESERVED,
				     "%s flag 0x%02x: %d (%s)", r->hdr, bit, n,
				     uet_err_str(n));
		}
	}
	expect_pkt_err("rud_std_som", 1, 0x98 | 0x01, 0, UET_ERR_WIRE_RESERVED);
}

/* REF-only flag bits: "ignore / reject as unsupported" (docs/choices.md
 * §10.4). ACK REQ = 3 is reserved (docs/protocol.md §3.3). Either a
 * rejection or a consistent decode is acceptable. */
Test(reject, open_flags)
{
	/* ACK 0x40 EPSN */
	expect_err_or_consistent("pds_ack", 1, 0x30 | 0x40,
				 UET_ERR_WIRE_RESERVED, UET_ERR_WIRE_FLAGS);
	/* CTRL 0x20 ISROD */
	expect_err_or_consistent("pds_ctrl_noop", 1, 0x08 | 0x20,
				 UET_ERR_WIRE_RESERVED, UET_ERR_WIRE_FLAGS);
	/* ACK REQ = 3 */
	expect_err_or_consistent("pds_ack", 1, 0x30 | 0x06,
				 UET_ERR_WIRE_RESERVED, UET_ERR_WIRE_FLAGS);
	/* HD is reserved in the small request (docs/protocol.md §5.4) */
	expect_err_or_consistent("req_small", 1, 0x23 | UET_SES_F_HD,
				 UET_ERR_WIRE_RESERVED, UET_ERR_WIRE_FLAGS);
}

/* ---- UET_ERR_WIRE_RESERVED: reserved fields ---- */

Test(reject, reserved_fields)
{
	/* entropy header bytes 2-3 (docs/protocol.md §1.3) */
	expect_err("entropy", 2, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err("entropy", 3, 0x80, UET_ERR_WIRE_RESERVED);
	/* TSS bit 25 (docs/protocol.md §2) */
	expect_err_or("tss", 0, 0x02, UET_ERR_WIRE_RESERVED);
	expect_err_or("tss_ssi", 0, 0x02, UET_ERR_WIRE_RESERVED);
	/* RUDI and UUD bytes 2-3 (docs/protocol.md §4.8, §4.9) */
	expect_err("pds_rudi_req", 2, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err("pds_rudi_resp", 3, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err("pds_uud", 2, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err("pds_uud", 3, 0x80, UET_ERR_WIRE_RESERVED);
	/* ACK_CC credit state [39:16] (docs/protocol.md §4.3) */
	expect_err("pds_ack_cc_credit", 27, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err("pds_ack_cc_credit", 29, 0x01, UET_ERR_WIRE_RESERVED);
	/* SES request byte 0 [7:6] (docs/protocol.md §5.2) */
	expect_err_or("req_std_som", 0, 0x40, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_small", 0, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_medium", 0, 0xC0, UET_ERR_WIRE_RESERVED);
	/* pid_on_fep and resource_index [15:12] */
	expect_err_or("req_std_som", 8, 0x10, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_std_som", 10, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_small", 8, 0x40, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_medium_hd", 10, 0x20, UET_ERR_WIRE_RESERVED);
	/* small/medium request_length [15:14] */
	expect_err_or("req_small", 2, 0x40, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_medium_hd", 2, 0x80, UET_ERR_WIRE_RESERVED);
	/* standard SOM=0: [63:46] of the word at 32 (docs/protocol.md §5.3) */
	expect_err_or("req_std_mid", 32, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_std_mid", 33, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_std_mid", 34, 0x40, UET_ERR_WIRE_RESERVED);
	/* atomic extension byte 3 (docs/protocol.md §5.6) */
	expect_err_or("req_std_amo", 47, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_medium_amo", 35, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_std_cswap", 47, 0x10, UET_ERR_WIRE_RESERVED);
	/* rendezvous extension, WS layout: rsvd(2) + pid(14), rsvd(4) + ri */
	expect_err_or("req_std_rndv", 48, 0x40, UET_ERR_WIRE_RESERVED);
	expect_err_or("req_std_rndv", 50, 0x10, UET_ERR_WIRE_RESERVED);
	/* response with data: byte 4 and payload_length [15:14]
	 * (docs/protocol.md §5.10) */
	expect_err("rsp_data", 4, 0x01, UET_ERR_WIRE_RESERVED);
	expect_err_or("rsp_data", 10, 0x40, UET_ERR_WIRE_RESERVED);
	expect_err("rsp_data_small", 4, 0x80, UET_ERR_WIRE_RESERVED);
	expect_err_or("rsp_data_small", 2, 0x80, UET_ERR_WIRE_RESERVED);
	/* and through the packet decoder */
	expect_pkt_err("uud_std_rndv", 2, 0x01, 0, UET_ERR_WIRE_RESERVED);
	expect_pkt_err("ip_nack", 2, 0x01, 0, UET_ERR_WIRE_RESERVED);
}

/* ---- UET_ERR_WIRE_OPCODE: reserved SES opcodes ----
 * docs/protocol.md §5.1, §5.8 */

Test(reject, opcode)
{
	expect_err("req_std_som", 0, 0x12, UET_ERR_WIRE_OPCODE);
	expect_err("req_std_som", 0, 0x2F, UET_ERR_WIRE_OPCODE);
	expect_err("req_small", 0, 0x12, UET_ERR_WIRE_OPCODE);
	expect_err("req_medium", 0, 0x20, UET_ERR_WIRE_OPCODE);
	expect_err("rsp", 0, 0x44, UET_ERR_WIRE_OPCODE);	/* list 1, op 4 */
	expect_err("rsp", 0, 0x2F, UET_ERR_WIRE_OPCODE);
	expect_err("rsp_data", 0, 0x04, UET_ERR_WIRE_OPCODE);
	expect_err("rsp_data_small", 0, 0x2F, UET_ERR_WIRE_OPCODE);
	/* docs/protocol.md §5.10 shows opcode 2 in the data-carrying
	 * formats; whether another valid opcode there is an error is not
	 * stated */
	expect_err_or_consistent("rsp_data", 0, UET_SES_RESPONSE,
				 UET_ERR_WIRE_OPCODE, UET_ERR_WIRE_OPCODE);
	expect_err_or_consistent("rsp_data_small", 0, UET_SES_DEFAULT_RESPONSE,
				 UET_ERR_WIRE_OPCODE, UET_ERR_WIRE_OPCODE);
	/* packet: RUD_REQ + standard request with opcode 0x12 */
	expect_pkt_err("rud_std_som", 12, 0x12, 0, UET_ERR_WIRE_OPCODE);
}

/* ---- UET_ERR_WIRE_VERSION: SES version [7:6] of byte 1 ---- */

Test(reject, version)
{
	expect_err_or("req_std_som", 1, 0x40, UET_ERR_WIRE_VERSION);
	expect_err_or("req_std_som", 1, 0x80, UET_ERR_WIRE_VERSION);
	expect_err_or("req_small", 1, 0xC0, UET_ERR_WIRE_VERSION);
	expect_err_or("req_medium_hd", 1, 0x40, UET_ERR_WIRE_VERSION);
	expect_err_or("rsp", 1, 0x40, UET_ERR_WIRE_VERSION);
	expect_err_or("rsp_data", 1, 0x80, UET_ERR_WIRE_VERSION);
	expect_err_or("rsp_data_small", 1, 0xC0, UET_ERR_WIRE_VERSION);
	expect_pkt_err("ack_probe_rsp_none", 13, 0x64, 0,
		       UET_ERR_WIRE_VERSION);
}

/* ---- UET_ERR_WIRE_CC_TYPE: ACK_CC cc_type other than 0/1 ----
 * docs/protocol.md §4.3 */

Test(reject, cc_type)
{
	unsigned t;

	for (t = 2; t < 16; t++)
		expect_err("pds_ack_cc_nscc", 12, (uint8_t)(t << 4),
			   UET_ERR_WIRE_CC_TYPE);
	expect_pkt_err("ack_cc_credit", 12, 0x20, 0, UET_ERR_WIRE_CC_TYPE);
}

/* ---- UET_ERR_WIRE_AMO: reserved atomic opcode / datatype ----
 * docs/protocol.md §5.7 */

Test(reject, amo)
{
	expect_err("req_std_amo", 44, 0x15, UET_ERR_WIRE_AMO);
	expect_err("req_std_amo", 44, 0xDF, UET_ERR_WIRE_AMO);
	expect_err("req_std_amo", 44, 0xFF, UET_ERR_WIRE_AMO);
	expect_err("req_std_amo", 45, 0x12, UET_ERR_WIRE_AMO);
	expect_err("req_std_amo", 45, 0xDF, UET_ERR_WIRE_AMO);
	expect_err("req_std_amo", 45, 0xFF, UET_ERR_WIRE_AMO);
	expect_err("req_medium_amo", 32, 0x15, UET_ERR_WIRE_AMO);
	expect_err("req_medium_amo", 33, 0x12, UET_ERR_WIRE_AMO);
	expect_err("req_std_cswap", 45, 0x20, UET_ERR_WIRE_AMO);
	expect_pkt_err("rudi_std_amo", 8 + 45, 0x40, 0, UET_ERR_WIRE_AMO);
}

/* ---- UET_ERR_WIRE_FLAGS: small and medium are single-packet, SOM and
 * EOM both set (docs/protocol.md §5.4, §5.5) ---- */

Test(reject, flags)
{
	expect_err("req_small", 1, 0x23 & ~UET_SES_F_SOM, UET_ERR_WIRE_FLAGS);
	expect_err("req_small", 1, 0x23 & ~UET_SES_F_EOM, UET_ERR_WIRE_FLAGS);
	expect_err("req_small", 1, 0x20, UET_ERR_WIRE_FLAGS);
	expect_err("req_medium_hd", 1, 0x0F & ~UET_SES_F_SOM,
		   UET_ERR_WIRE_FLAGS);
	expect_err("req_medium", 1, 0x13 & ~UET_SES_F_EOM, UET_ERR_WIRE_FLAGS);
	expect_pkt_err("rod_small", 12 + 1, 0x21, 0, UET_ERR_WIRE_FLAGS);
}

/* ---- UET_ERR_WIRE_LENGTH: a payload_length longer than what the packet
 * holds (docs/protocol.md §5.3 SOM=0, §5.10) ---- */

Test(reject, length)
{
	const struct wt_pkt *k = wt_pkt_find("rud_std_cont");
	uint8_t *full;
	size_t len;
	struct uet_pkt want;

	wt_pkt_build(k, &full, &len, &want);
	free(full);
	/* one byte short of payload_length 17 */
	expect_pkt_err("rud_std_cont", 0, 0x11, len - 1, UET_ERR_WIRE_LENGTH);
	/* payload_length 0x3FFF with 17 bytes of payload (byte 12+34) */
	expect_pkt_err("rud_std_cont", 12 + 34, 0x3F, 0, UET_ERR_WIRE_LENGTH);
	/* response with data: payload_length 9, 8 bytes there */
	k = wt_pkt_find("ack_clear_rsp_data");
	wt_pkt_build(k, &full, &len, &want);
	free(full);
	expect_pkt_err("ack_clear_rsp_data", 0, 0x3A, len - 1,
		       UET_ERR_WIRE_LENGTH);
	/* small response with data: payload_length 3 -> 0x0100 */
	expect_pkt_err("ack_close_rsp_data_small", 12 + 2, 0x01, 0,
		       UET_ERR_WIRE_LENGTH);
}

/* A packet longer than its stated payload_length disagrees with it too:
 * no trailer is expected (docs/choices.md §10.4). Rejecting it or reporting
 * payload_len = payload_length are both consistent; handing the extra
 * bytes on as payload is not. */
static void expect_longer_refused(const char *name)
{
	const struct wt_pkt *k = wt_pkt_find(name);
	struct uet_pkt want, got;
	uint8_t *full, *buf;
	size_t len;
	int n;

	wt_pkt_build(k, &full, &len, &want);
	buf = malloc(len + 3);
	memcpy(buf, full, len);
	memset(buf + len, 0xAB, 3);
	n = uet_pkt_decode(&got, buf, len + 3, k->flags);
	if (n >= 0)
		cr_expect_eq(got.payload_len, want.payload_len,
			     "%s + 3 bytes: accepted with payload_len %zu, "
			     "header says %zu", name, got.payload_len,
			     want.payload_len);
	else
		cr_expect_eq(n, UET_ERR_WIRE_LENGTH, "%s + 3 bytes: %d (%s)",
			     name, n, uet_err_str(n));
	free(buf);
	free(full);
}

Test(reject, length_packet_longer)
{
	expect_longer_refused("rud_std_cont");
	expect_longer_refused("rod_cc_syn_rsp_data");
	expect_longer_refused("ack_close_rsp_data_small");
}
