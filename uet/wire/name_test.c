/* Lookup tables of the codec: header lengths per PDS type (docs/protocol.md
 * §3.1, §6), the extension a request opcode carries (docs/protocol.md §5.1,
 * §5.6) and the names for logs (wire.h: NULL-safe, unknown -> "RESERVED", one
 * name per value).
 */
#include <criterion/criterion.h>
#include <string.h>

#include "test_util.h"

Test(name, pds_hdr_len)
{
	static const struct { uint8_t type; int len; } want[] = {
		{ UET_PDS_RUD_REQ, 12 }, { UET_PDS_ROD_REQ, 12 },
		{ UET_PDS_RUDI_REQ, 8 }, { UET_PDS_RUDI_RESP, 8 },
		{ UET_PDS_UUD_REQ, 4 }, { UET_PDS_ACK, 12 },
		{ UET_PDS_ACK_CC, 32 }, { UET_PDS_ACK_CCX, 40 },
		{ UET_PDS_NACK, 16 }, { UET_PDS_CTRL, 16 },
		{ UET_PDS_NACK_CCX, 32 }, { UET_PDS_RUD_CC_REQ, 16 },
		{ UET_PDS_ROD_CC_REQ, 16 },
	};
	size_t i;

	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		cr_expect_eq(uet_pds_hdr_len(want[i].type), want[i].len,
			     "type %u", want[i].type);
	cr_expect_eq(uet_pds_hdr_len(0), UET_ERR_WIRE_TYPE);
	for (i = 15; i < 256; i++)
		cr_expect_eq(uet_pds_hdr_len((uint8_t)i), UET_ERR_WIRE_TYPE,
			     "type %zu", i);
}

/* Opcode x atomic opcode -> extension, every pair: the atomic opcode
 * picks the form for all four atomic request opcodes (docs/choices.md
 * §10.1). */
Test(name, ses_req_ext)
{
	unsigned op, amo;

	for (op = 0; op <= UET_SES_SYNC_ATOMIC; op++) {
		for (amo = 0; amo <= UET_AMO_OP_MAX; amo++) {
			cr_expect_eq(uet_ses_req_ext((uint8_t)op, (uint8_t)amo),
				     wt_req_ext((uint8_t)op, (uint8_t)amo),
				     "opcode 0x%02x amo 0x%02x", op, amo);
		}
	}
	/* extension sizes through uet_ses_req_len on a standard header */
	{
		struct uet_ses_req r = {
			.format = UET_NH_REQ_STD, .opcode = UET_SES_ATOMIC,
			.flags = UET_SES_F_SOM | UET_SES_F_EOM,
		};

		r.amo.op = UET_AMO_SUM;
		cr_expect_eq(uet_ses_req_len(&r), 48);
		r.amo.op = UET_AMO_CSWAP;
		cr_expect_eq(uet_ses_req_len(&r), 80);
		r.amo.op = UET_AMO_MSWAP;
		cr_expect_eq(uet_ses_req_len(&r), 80);
		memset(&r.amo, 0, sizeof(r.amo));
		r.opcode = UET_SES_RENDEZVOUS_TSEND;
		cr_expect_eq(uet_ses_req_len(&r), 68);
		r.opcode = UET_SES_SYNC_ATOMIC;
		cr_expect_eq(uet_ses_req_len(&r), 48);
		r.opcode = UET_SES_READ;
		cr_expect_eq(uet_ses_req_len(&r), 44);
		r.format = UET_NH_REQ_SMALL;
		cr_expect_eq(uet_ses_req_len(&r), 20);
		r.format = UET_NH_REQ_MEDIUM;
		cr_expect_eq(uet_ses_req_len(&r), 32);
		r.opcode = UET_SES_TSEND_ATOMIC;
		cr_expect_eq(uet_ses_req_len(&r), 36);
	}
}

/* Values lo..hi have distinct, non-"RESERVED" names; each of `bad` is
 * "RESERVED". */
static void check_names(const char *what, const char *(*fn)(unsigned),
			unsigned lo, unsigned hi, const unsigned *skip,
			size_t nskip, const unsigned *bad, size_t nbad)
{
	unsigned v, w;
	size_t i;

	for (v = lo; v <= hi; v++) {
		const char *a = fn(v);
		bool skipped = false;

		for (i = 0; i < nskip; i++)
			skipped |= skip[i] == v;
		cr_assert(a, "%s(%u) is NULL", what, v);
		if (skipped) {
			cr_expect_str_eq(a, "RESERVED", "%s(%u)", what, v);
			continue;
		}
		cr_expect_str_neq(a, "RESERVED", "%s(%u)", what, v);
		for (w = lo; w < v; w++)
			cr_expect_str_neq(a, fn(w), "%s(%u) == %s(%u) = %s",
					  what, v, what, w, a);
	}
	for (i = 0; i < nbad; i++) {
		const char *a = fn(bad[i]);

		cr_assert(a, "%s(%u) is NULL", what, bad[i]);
		cr_expect_str_eq(a, "RESERVED", "%s(%u) = %s", what, bad[i], a);
	}
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

Test(name, tables)
{
	static const unsigned none[] = { ~0u };
	static const unsigned pds_bad[] = { 0, 15, 31, 255, 1000 };
	static const unsigned nh_bad[] = { 7, 15, 255 };
	static const unsigned ctl_bad[] = { 10, 15, 255 };
	static const unsigned nack_bad[] = { 0x00, 0x1B, 0x80, 0xFC, 0x100 };
	static const unsigned nack_hole[] = { 0x0C };
	static const unsigned op_bad[] = { 0x12, 0x2F, 0x100 };
	static const unsigned rsp_bad[] = { 0x04, 0x2F };
	static const unsigned rc_bad[] = { 0x25, 0x2F, 0x100 };
	static const unsigned amo_bad[] = { 0x15, 0xDF, 0xFF };
	static const unsigned dt_bad[] = { 0x12, 0xDF, 0xFF };
	static const unsigned cc_bad[] = { 2, 15 };

	check_names("pds_type", uet_name_pds_type, 2, 14, none, 0,
		    pds_bad, N(pds_bad));
	check_names("next_hdr", uet_name_next_hdr, 0, 6, none, 0,
		    nh_bad, N(nh_bad));
	check_names("ctl_type", uet_name_ctl_type, 0, 8, none, 0,
		    ctl_bad, N(ctl_bad));
	check_names("nack_code", uet_name_nack_code, 0x01, 0x1A, nack_hole,
		    N(nack_hole), nack_bad, N(nack_bad));
	check_names("nack_code", uet_name_nack_code, 0xFD, 0xFF, none, 0,
		    nack_bad, 0);
	check_names("ses_opcode", uet_name_ses_opcode, 0x00, 0x11, none, 0,
		    op_bad, N(op_bad));
	check_names("rsp_opcode", uet_name_rsp_opcode, 0, 3, none, 0,
		    rsp_bad, N(rsp_bad));
	check_names("rc", uet_name_rc, 0x00, 0x24, none, 0, rc_bad,
		    N(rc_bad));
	check_names("amo_op", uet_name_amo_op, 0x00, 0x14, none, 0, amo_bad,
		    N(amo_bad));
	check_names("amo_dt", uet_name_amo_dt, 0x00, 0x11, none, 0, dt_bad,
		    N(dt_bad));
	check_names("cc_type", uet_name_cc_type, 0, 1, none, 0, cc_bad,
		    N(cc_bad));
}

Test(name, err_str)
{
	static const int codes[] = {
		UET_ERR_WIRE_TRUNC, UET_ERR_WIRE_TYPE, UET_ERR_WIRE_NEXT_HDR,
		UET_ERR_WIRE_RESERVED, UET_ERR_WIRE_FLAGS,
		UET_ERR_WIRE_CTL_TYPE, UET_ERR_WIRE_OPCODE,
		UET_ERR_WIRE_VERSION, UET_ERR_WIRE_CC_TYPE, UET_ERR_WIRE_AMO,
		UET_ERR_WIRE_LENGTH, UET_ERR_WIRE_RANGE, UET_ERR_WIRE_NOSPACE,
	};
	size_t i, j;

	for (i = 0; i < N(codes); i++) {
		cr_expect_str_neq(uet_err_str(codes[i]), "unknown error",
				  "%d", codes[i]);
		for (j = 0; j < i; j++)
			cr_expect_str_neq(uet_err_str(codes[i]),
					  uet_err_str(codes[j]));
	}
}
