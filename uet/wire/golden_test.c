/* Golden vectors for every UET header, written byte by byte from
 * docs/protocol.md (section in each comment), never produced by
 * the encoder. Values are picked so that every byte of a multi-byte field
 * differs (byte-order slips show), widths are hit at their maximum, and
 * signed offsets carry their sign bit.
 *
 * For each header: encoding the struct gives exactly the bytes, decoding
 * the bytes gives every field back and consumes exactly the header.
 * The same vectors, stacked into whole packets, drive uet_pkt_decode here
 * and in trunc_test.c, mutate_test.c and the fuzz corpus.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "test_util.h"

#define WT_HDR(id, k, ...)						\
	static const struct wt_hdr id = {				\
		.name = #id, .kind = k,					\
		.bytes = id##_b, .len = sizeof(id##_b),			\
		.want = { __VA_ARGS__ },				\
	}

/* ---- Entropy header (docs/protocol.md §1.3) ---- */

static const uint8_t entropy_b[] = {
	0xA1, 0xB2,		/* entropy 0xA1B2 */
	0x00, 0x00,		/* reserved */
};
WT_HDR(entropy, WT_ENTROPY, .entropy = { .entropy = 0xA1B2 });

/* ---- TSS header (docs/protocol.md §2; docs/choices.md §10.4) ---- */

static const uint8_t tss_b[] = {
	0x09, 0xC3, 0xD4, 0xE5,	/* type 1 [31:27], SP 0, rsvd, AN 1, SDI 0xC3D4E5 */
	0xF1, 0xE2,		/* epoch [63:48] */
	0xD3, 0xC4, 0xB5, 0xA6, 0x97, 0x88,	/* TSC [47:0] */
};
WT_HDR(tss, WT_TSS, .tss = {
	.sp = false, .an = true, .sdi = 0xC3D4E5,
	.epoch = 0xF1E2, .tsc = 0xD3C4B5A69788ULL,
});

static const uint8_t tss_ssi_b[] = {
	0x0C, 0xFF, 0xFF, 0xFF,	/* type 1, SP 1, rsvd, AN 0, SDI 0xFFFFFF (max) */
	0x8A, 0x9B, 0xAC, 0xBD,	/* SSI (present because SP) */
	0xFF, 0xFF,		/* epoch max */
	0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF,	/* TSC max (48 bits) */
};
WT_HDR(tss_ssi, WT_TSS, .tss = {
	.sp = true, .an = false, .sdi = 0xFFFFFF, .ssi = 0x8A9BACBD,
	.epoch = 0xFFFF, .tsc = 0xFFFFFFFFFFFFULL,
});

/* ---- PDS requests (docs/protocol.md §3, §4.1) ---- */

static const uint8_t pds_rud_req_b[] = {
	0x11, 0x98,		/* type 2 RUD_REQ, next_hdr 3 STD, flags RETX|AR */
	0xED, 0xCC,		/* clear_psn_offset -0x1234 */
	0x89, 0xAB, 0xCD, 0xEF,	/* psn */
	0x13, 0x57,		/* spdcid */
	0x24, 0x68,		/* dpdcid (SYN clear) */
};
WT_HDR(pds_rud_req, WT_PDS, .pds = {
	.type = UET_PDS_RUD_REQ, .next_hdr = UET_NH_REQ_STD,
	.flags = UET_PDS_F_RETX | UET_PDS_F_AR,
	.req = { .clear_psn_offset = -0x1234, .psn = 0x89ABCDEF,
		 .spdcid = 0x1357, .dpdcid = 0x2468 },
});

static const uint8_t pds_rod_req_b[] = {
	0x18, 0x80,		/* type 3 ROD_REQ, next_hdr 1 SMALL, flags 0 */
	0x80, 0x00,		/* clear_psn_offset -32768 (sign bit alone) */
	0xFF, 0xFF, 0xFF, 0xFF,	/* psn max */
	0xFF, 0xFF,		/* spdcid max */
	0x00, 0x01,		/* dpdcid */
};
WT_HDR(pds_rod_req, WT_PDS, .pds = {
	.type = UET_PDS_ROD_REQ, .next_hdr = UET_NH_REQ_SMALL, .flags = 0,
	.req = { .clear_psn_offset = -32768, .psn = 0xFFFFFFFF,
		 .spdcid = 0xFFFF, .dpdcid = 0x0001 },
});

static const uint8_t pds_rod_req_syn_b[] = {
	0x19, 0x14,		/* type 3 ROD_REQ, next_hdr 2 MEDIUM, flags RETX|SYN */
	0xFF, 0xFF,		/* clear_psn_offset -1 */
	0x00, 0x01, 0x02, 0x03,	/* psn */
	0xA5, 0x5A,		/* spdcid */
	0x9A, 0xBC,		/* pdc_info 0x9 [15:12], psn_offset 0xABC [11:0] */
};
WT_HDR(pds_rod_req_syn, WT_PDS, .pds = {
	.type = UET_PDS_ROD_REQ, .next_hdr = UET_NH_REQ_MEDIUM,
	.flags = UET_PDS_F_RETX | UET_PDS_F_SYN,
	.req = { .clear_psn_offset = -1, .psn = 0x00010203,
		 .spdcid = 0xA55A, .pdc_info = 0x9, .psn_offset = 0xABC },
});

/* Return direction: a request carrying read data (docs/protocol.md §3.2,
 * next_hdr 5/6). */
static const uint8_t pds_rud_req_syn_b[] = {
	0x13, 0x0C,		/* type 2 RUD_REQ, next_hdr 6 RSP_DATA_SMALL, flags AR|SYN */
	0x7F, 0xFF,		/* clear_psn_offset +32767 */
	0x7F, 0xFF, 0xFF, 0xFF,	/* psn */
	0x00, 0x00,		/* spdcid */
	0x8F, 0xFF,		/* pdc_info 0x8 (use_rsv, WS bit 15), psn_offset 0xFFF max */
};
WT_HDR(pds_rud_req_syn, WT_PDS, .pds = {
	.type = UET_PDS_RUD_REQ, .next_hdr = UET_NH_RSP_DATA_SMALL,
	.flags = UET_PDS_F_AR | UET_PDS_F_SYN,
	.req = { .clear_psn_offset = 32767, .psn = 0x7FFFFFFF,
		 .spdcid = 0, .pdc_info = UET_PDC_INFO_USE_RSV,
		 .psn_offset = 0xFFF },
});

static const uint8_t pds_rud_cc_req_b[] = {
	0x69, 0x88,		/* type 13 RUD_CC_REQ, next_hdr 3 STD, flags AR */
	0xFF, 0xFD,		/* clear_psn_offset -3 */
	0x10, 0x20, 0x30, 0x40,	/* psn */
	0x50, 0x60,		/* spdcid */
	0x70, 0x80,		/* dpdcid */
	0xC5,			/* ccc_id */
	0xD6, 0xE7, 0xF8,	/* credit_target (24 bits) */
};
WT_HDR(pds_rud_cc_req, WT_PDS, .pds = {
	.type = UET_PDS_RUD_CC_REQ, .next_hdr = UET_NH_REQ_STD,
	.flags = UET_PDS_F_AR,
	.req = { .clear_psn_offset = -3, .psn = 0x10203040,
		 .spdcid = 0x5060, .dpdcid = 0x7080,
		 .ccc_id = 0xC5, .credit_target = 0xD6E7F8 },
});

static const uint8_t pds_rod_cc_req_syn_b[] = {
	0x72, 0x84,		/* type 14 ROD_CC_REQ, next_hdr 5 RSP_DATA, flags SYN */
	0x80, 0x01,		/* clear_psn_offset -32767 */
	0xFE, 0xDC, 0xBA, 0x98,	/* psn */
	0x01, 0x02,		/* spdcid */
	0x12, 0x34,		/* pdc_info 0x1 (REF's bit 12), psn_offset 0x234 */
	0xFF,			/* ccc_id max */
	0xFF, 0xFF, 0xFF,	/* credit_target max */
};
WT_HDR(pds_rod_cc_req_syn, WT_PDS, .pds = {
	.type = UET_PDS_ROD_CC_REQ, .next_hdr = UET_NH_RSP_DATA,
	.flags = UET_PDS_F_SYN,
	.req = { .clear_psn_offset = -32767, .psn = 0xFEDCBA98,
		 .spdcid = 0x0102, .pdc_info = 0x1, .psn_offset = 0x234,
		 .ccc_id = 0xFF, .credit_target = 0xFFFFFF },
});

/* ---- ACK family (docs/protocol.md §4.2-4.4) ---- */

static const uint8_t pds_ack_b[] = {
	0x38, 0x30,		/* type 7 ACK, next_hdr 0, flags M|RETX */
	0xED, 0xCB,		/* ack_psn_offset -0x1235 */
	0xA0, 0xB0, 0xC0, 0xD0,	/* cack_psn */
	0x0E, 0x0F,		/* spdcid */
	0x1A, 0x1B,		/* dpdcid */
};
WT_HDR(pds_ack, WT_PDS, .pds = {
	.type = UET_PDS_ACK, .next_hdr = UET_NH_NONE,
	.flags = UET_PDS_F_M | UET_PDS_F_RETX,
	.ack = { .ack_psn_offset = -0x1235, .cack_psn = 0xA0B0C0D0,
		 .spdcid = 0x0E0F, .dpdcid = 0x1A1B },
});

static const uint8_t pds_ack_probe_b[] = {
	0x3A, 0x08,		/* type 7 ACK, next_hdr 4 RSP, flags P */
	0xFA, 0xCE,		/* probe_opaque (P set) */
	0x11, 0x22, 0x33, 0x44,	/* cack_psn */
	0x55, 0x66,		/* spdcid */
	0x77, 0x88,		/* dpdcid */
};
WT_HDR(pds_ack_probe, WT_PDS, .pds = {
	.type = UET_PDS_ACK, .next_hdr = UET_NH_RSP, .flags = UET_PDS_F_P,
	.ack = { .probe_opaque = 0xFACE, .cack_psn = 0x11223344,
		 .spdcid = 0x5566, .dpdcid = 0x7788 },
});

static const uint8_t pds_ack_clear_b[] = {
	0x3A, 0x82,		/* type 7 ACK, next_hdr 5 RSP_DATA, flags REQ=1 (clear) */
	0x7F, 0xFF,		/* ack_psn_offset +32767 */
	0x00, 0x00, 0x00, 0x00,	/* cack_psn */
	0x9A, 0xBC,		/* spdcid */
	0xDE, 0xF0,		/* dpdcid */
};
WT_HDR(pds_ack_clear, WT_PDS, .pds = {
	.type = UET_PDS_ACK, .next_hdr = UET_NH_RSP_DATA,
	.flags = UET_PDS_F_REQ_CLEAR,
	.ack = { .ack_psn_offset = 32767, .cack_psn = 0,
		 .spdcid = 0x9ABC, .dpdcid = 0xDEF0 },
});

static const uint8_t pds_ack_close_b[] = {
	0x3B, 0x04,		/* type 7 ACK, next_hdr 6 RSP_DATA_SMALL, flags REQ=2 (close) */
	0x80, 0x00,		/* ack_psn_offset -32768 */
	0xFF, 0xFF, 0xFF, 0xFF,	/* cack_psn max */
	0x00, 0x01,		/* spdcid */
	0x80, 0x00,		/* dpdcid */
};
WT_HDR(pds_ack_close, WT_PDS, .pds = {
	.type = UET_PDS_ACK, .next_hdr = UET_NH_RSP_DATA_SMALL,
	.flags = UET_PDS_F_REQ_CLOSE,
	.ack = { .ack_psn_offset = -32768, .cack_psn = 0xFFFFFFFF,
		 .spdcid = 0x0001, .dpdcid = 0x8000 },
});

static const uint8_t pds_ack_cc_nscc_b[] = {
	0x42, 0x10,		/* type 8 ACK_CC, next_hdr 4 RSP, flags RETX */
	0xFF, 0xFB,		/* ack_psn_offset -5 */
	0x0A, 0x0B, 0x0C, 0x0D,	/* cack_psn */
	0x1E, 0x1F,		/* spdcid */
	0x2E, 0x2F,		/* dpdcid */
	0x00,			/* cc_type 0 NSCC [7:4], cc_flags 0 */
	0x81,			/* mpr */
	0xFE, 0xD4,		/* sack_psn_offset -300 */
	0x80, 0x40, 0x20, 0x10,	/* sack_bitmap: bits 63, 54, 45, 36, */
	0x08, 0x04, 0x02, 0x01,	/*   27, 18, 9 and 0 */
	0x9A, 0xBC,		/* service_time [63:48] */
	0xDA,			/* restore_cwnd 1 [47], rcv_cwnd_pend 0x5A [46:40] */
	0xDE, 0xF0, 0x12,	/* rcvd_bytes [39:16] */
	0x34, 0x56,		/* ooo_count [15:0] */
};
WT_HDR(pds_ack_cc_nscc, WT_PDS, .pds = {
	.type = UET_PDS_ACK_CC, .next_hdr = UET_NH_RSP,
	.flags = UET_PDS_F_RETX,
	.ack = { .ack_psn_offset = -5, .cack_psn = 0x0A0B0C0D,
		 .spdcid = 0x1E1F, .dpdcid = 0x2E2F,
		 .cc_type = UET_CC_NSCC, .mpr = 0x81,
		 .sack_psn_offset = -300,
		 .sack_bitmap = 0x8040201008040201ULL,
		 .cc = { .service_time = 0x9ABC, .restore_cwnd = true,
			 .rcv_cwnd_pend = 0x5A, .rcvd_bytes = 0xDEF012,
			 .ooo_count = 0x3456 } },
});

static const uint8_t pds_ack_cc_credit_b[] = {
	0x40, 0x24,		/* type 8 ACK_CC, next_hdr 0, flags M|REQ=2 */
	0x00, 0x01,		/* ack_psn_offset +1 */
	0xC0, 0xFF, 0xEE, 0x00,	/* cack_psn */
	0x03, 0x04,		/* spdcid */
	0x05, 0x06,		/* dpdcid */
	0x10,			/* cc_type 1 credit, cc_flags 0 */
	0xFF,			/* mpr max */
	0x80, 0x00,		/* sack_psn_offset -32768 */
	0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10,	/* sack_bitmap */
	0xA1, 0xB2, 0xC3,	/* credit [63:40] */
	0x00, 0x00, 0x00,	/* reserved [39:16] */
	0xFF, 0xFF,		/* ooo_count max */
};
WT_HDR(pds_ack_cc_credit, WT_PDS, .pds = {
	.type = UET_PDS_ACK_CC, .next_hdr = UET_NH_NONE,
	.flags = UET_PDS_F_M | UET_PDS_F_REQ_CLOSE,
	.ack = { .ack_psn_offset = 1, .cack_psn = 0xC0FFEE00,
		 .spdcid = 0x0304, .dpdcid = 0x0506,
		 .cc_type = UET_CC_CREDIT, .mpr = 0xFF,
		 .sack_psn_offset = -32768,
		 .sack_bitmap = 0xFEDCBA9876543210ULL,
		 .cc = { .credit = 0xA1B2C3, .ooo_count = 0xFFFF } },
});

static const uint8_t pds_ack_ccx_b[] = {
	0x4A, 0xA8,		/* type 9 ACK_CCX, next_hdr 5 RSP_DATA, flags M|P */
	0x80, 0x01,		/* probe_opaque (P set) */
	0x13, 0x57, 0x9B, 0xDF,	/* cack_psn */
	0x24, 0x68,		/* spdcid */
	0xAC, 0xE0,		/* dpdcid */
	0xE5,			/* ccx_type 0xE [7:4], flags 0x5 [3:0] */
	0x7F,			/* mpr */
	0x01, 0x02,		/* sack_psn_offset +0x102 */
	0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,	/* sack_bitmap bit 32 */
	0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6, 0xC7,	/* ccx state (16 B, */
	0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD, 0xCE, 0xCF,	/*   decision: 40 B) */
};
WT_HDR(pds_ack_ccx, WT_PDS, .pds = {
	.type = UET_PDS_ACK_CCX, .next_hdr = UET_NH_RSP_DATA,
	.flags = UET_PDS_F_M | UET_PDS_F_P,
	.ack = { .probe_opaque = 0x8001, .cack_psn = 0x13579BDF,
		 .spdcid = 0x2468, .dpdcid = 0xACE0,
		 .cc_type = 0xE, .cc_flags = 0x5, .mpr = 0x7F,
		 .sack_psn_offset = 0x102,
		 .sack_bitmap = 1ULL << 32,
		 .ccx_state = { 0xC0, 0xC1, 0xC2, 0xC3, 0xC4, 0xC5, 0xC6,
				0xC7, 0xC8, 0xC9, 0xCA, 0xCB, 0xCC, 0xCD,
				0xCE, 0xCF } },
});

/* ---- NACK family (docs/protocol.md §4.5, §4.6) ---- */

static const uint8_t pds_nack_b[] = {
	0x50, 0x10,		/* type 10 NACK, next_hdr 0, flags RETX */
	0x17,			/* nack_code NEW_START_PSN */
	0xA9,			/* vendor_code */
	0x76, 0x54, 0x32, 0x10,	/* nack_psn */
	0x98, 0x76,		/* spdcid */
	0x54, 0x32,		/* dpdcid */
	0xDE, 0xAD, 0xBE, 0xEF,	/* payload */
};
WT_HDR(pds_nack, WT_PDS, .pds = {
	.type = UET_PDS_NACK, .next_hdr = UET_NH_NONE, .flags = UET_PDS_F_RETX,
	.nack = { .code = UET_NACK_NEW_START_PSN, .vendor_code = 0xA9,
		  .psn = 0x76543210, .spdcid = 0x9876, .dpdcid = 0x5432,
		  .payload = 0xDEADBEEF },
});

static const uint8_t pds_nack_rudi_b[] = {
	0x50, 0x28,		/* type 10 NACK, next_hdr 0, flags M|NT (RUDI) */
	0xFF,			/* nack_code EXP_FATAL */
	0x00,			/* vendor_code */
	0xCA, 0xFE, 0xF0, 0x0D,	/* nack_pkt_id */
	0x00, 0x00,		/* spdcid (0 for RUDI) */
	0x00, 0x00,		/* dpdcid (0 for RUDI) */
	0x00, 0x00, 0x00, 0x01,	/* payload */
};
WT_HDR(pds_nack_rudi, WT_PDS, .pds = {
	.type = UET_PDS_NACK, .next_hdr = UET_NH_NONE,
	.flags = UET_PDS_F_M | UET_PDS_F_NT,
	.nack = { .code = UET_NACK_EXP_FATAL, .psn = 0xCAFEF00D,
		  .payload = 1 },
});

static const uint8_t pds_nack_ccx_b[] = {
	0x60, 0x00,		/* type 12 NACK_CCX, next_hdr 0, flags 0 */
	0x01,			/* nack_code TRIMMED */
	0x02,			/* vendor_code */
	0x03, 0x04, 0x05, 0x06,	/* nack_psn */
	0x07, 0x08,		/* spdcid */
	0x09, 0x0A,		/* dpdcid */
	0x0B, 0x0C, 0x0D, 0x0E,	/* payload */
	0x91, 0x23, 0x45, 0x67,	/* nccx_type 9 [63:60], */
	0x89, 0xAB, 0xCD, 0xEF,	/*   nccx_state1 [59:0] */
	0xF0, 0xE1, 0xD2, 0xC3, 0xB4, 0xA5, 0x96, 0x87,	/* nccx_state2 */
};
WT_HDR(pds_nack_ccx, WT_PDS, .pds = {
	.type = UET_PDS_NACK_CCX, .next_hdr = UET_NH_NONE, .flags = 0,
	.nack = { .code = UET_NACK_TRIMMED, .vendor_code = 0x02,
		  .psn = 0x03040506, .spdcid = 0x0708, .dpdcid = 0x090A,
		  .payload = 0x0B0C0D0E, .nccx_type = 0x9,
		  .nccx_state1 = 0x123456789ABCDEFULL,
		  .nccx_state2 = 0xF0E1D2C3B4A59687ULL },
});

/* ---- CTRL, every ctl_type (docs/protocol.md §4.7) ----
 * ctl_type sits in next_hdr. */

static const uint8_t pds_ctrl_noop_b[] = {
	0x58, 0x08,		/* type 11 CTRL, ctl_type 0 NOOP, flags AR */
	0x00, 0x00,		/* reserved (not PROBE) */
	0x11, 0x12, 0x13, 0x14,	/* psn */
	0x15, 0x16,		/* spdcid */
	0x17, 0x18,		/* dpdcid */
	0x00, 0x00, 0x00, 0x00,	/* payload 0 */
};
WT_HDR(pds_ctrl_noop, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_NOOP, .flags = UET_PDS_F_AR,
	.ctrl = { .psn = 0x11121314, .spdcid = 0x1516, .dpdcid = 0x1718 },
});

static const uint8_t pds_ctrl_ack_req_b[] = {
	0x58, 0x98,		/* type 11 CTRL, ctl_type 1 ACK_REQ, flags RETX|AR */
	0x00, 0x00,		/* reserved */
	0x21, 0x22, 0x23, 0x24,	/* psn */
	0x25, 0x26,		/* spdcid */
	0x27, 0x28,		/* dpdcid */
	0x00, 0x00, 0xAB, 0xCD,	/* payload [0x0000, MID] */
};
WT_HDR(pds_ctrl_ack_req, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_ACK_REQ,
	.flags = UET_PDS_F_RETX | UET_PDS_F_AR,
	.ctrl = { .psn = 0x21222324, .spdcid = 0x2526, .dpdcid = 0x2728,
		  .payload = 0xABCD },
});

static const uint8_t pds_ctrl_clear_b[] = {
	0x59, 0x00,		/* type 11 CTRL, ctl_type 2 CLEAR, flags 0 */
	0x00, 0x00,		/* reserved */
	0x00, 0x00, 0x00, 0x00,	/* psn 0 (CLEAR is not tracked) */
	0x35, 0x36,		/* spdcid */
	0x37, 0x38,		/* dpdcid */
	0x31, 0x32, 0x33, 0x34,	/* payload CLEAR_PSN */
};
WT_HDR(pds_ctrl_clear, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CLEAR, .flags = 0,
	.ctrl = { .psn = 0, .spdcid = 0x3536, .dpdcid = 0x3738,
		  .payload = 0x31323334 },
});

static const uint8_t pds_ctrl_clear_req_b[] = {
	0x59, 0x88,		/* type 11 CTRL, ctl_type 3 CLEAR_REQ, flags AR */
	0x00, 0x00,		/* reserved */
	0x41, 0x42, 0x43, 0x44,	/* psn */
	0x45, 0x46,		/* spdcid */
	0x47, 0x48,		/* dpdcid */
	0x4A, 0x4B, 0x4C, 0x4D,	/* payload: PSN to clear */
};
WT_HDR(pds_ctrl_clear_req, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CLEAR_REQ,
	.flags = UET_PDS_F_AR,
	.ctrl = { .psn = 0x41424344, .spdcid = 0x4546, .dpdcid = 0x4748,
		  .payload = 0x4A4B4C4D },
});

static const uint8_t pds_ctrl_close_b[] = {
	0x5A, 0x10,		/* type 11 CTRL, ctl_type 4 CLOSE, flags RETX */
	0x00, 0x00,		/* reserved */
	0x51, 0x52, 0x53, 0x54,	/* psn */
	0x55, 0x56,		/* spdcid */
	0x57, 0x58,		/* dpdcid */
	0x00, 0x00, 0x00, 0x00,	/* payload 0 */
};
WT_HDR(pds_ctrl_close, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CLOSE,
	.flags = UET_PDS_F_RETX,
	.ctrl = { .psn = 0x51525354, .spdcid = 0x5556, .dpdcid = 0x5758 },
});

static const uint8_t pds_ctrl_close_req_b[] = {
	0x5A, 0x80,		/* type 11 CTRL, ctl_type 5 CLOSE_REQ, flags 0 */
	0x00, 0x00,		/* reserved */
	0x61, 0x62, 0x63, 0x64,	/* psn */
	0x65, 0x66,		/* spdcid */
	0x67, 0x68,		/* dpdcid */
	0x00, 0x00, 0x00, 0x00,	/* payload 0 */
};
WT_HDR(pds_ctrl_close_req, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CLOSE_REQ, .flags = 0,
	.ctrl = { .psn = 0x61626364, .spdcid = 0x6566, .dpdcid = 0x6768 },
});

static const uint8_t pds_ctrl_probe_b[] = {
	0x5B, 0x08,		/* type 11 CTRL, ctl_type 6 PROBE, flags AR */
	0x8F, 0x9E,		/* probe_opaque */
	0x71, 0x72, 0x73, 0x74,	/* psn */
	0x75, 0x76,		/* spdcid */
	0x77, 0x78,		/* dpdcid */
	0x79, 0x7A, 0x7B, 0x7C,	/* payload: SACK base PSN */
};
WT_HDR(pds_ctrl_probe, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_PROBE, .flags = UET_PDS_F_AR,
	.ctrl = { .probe_opaque = 0x8F9E, .psn = 0x71727374,
		  .spdcid = 0x7576, .dpdcid = 0x7778, .payload = 0x797A7B7C },
});

static const uint8_t pds_ctrl_credit_b[] = {
	0x5B, 0x80,		/* type 11 CTRL, ctl_type 7 CREDIT, flags 0 */
	0x00, 0x00,		/* reserved */
	0x81, 0x82, 0x83, 0x84,	/* psn */
	0x85, 0x86,		/* spdcid */
	0x87, 0x88,		/* dpdcid */
	0x89, 0x8A, 0x8B, 0x8C,	/* payload: credit */
};
WT_HDR(pds_ctrl_credit, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CREDIT, .flags = 0,
	.ctrl = { .psn = 0x81828384, .spdcid = 0x8586, .dpdcid = 0x8788,
		  .payload = 0x898A8B8C },
});

static const uint8_t pds_ctrl_credit_req_b[] = {
	0x5C, 0x18,		/* type 11 CTRL, ctl_type 8 CREDIT_REQ, flags RETX|AR */
	0x00, 0x00,		/* reserved */
	0x91, 0x92, 0x93, 0x94,	/* psn */
	0x95, 0x96,		/* spdcid */
	0x97, 0x98,		/* dpdcid */
	0x99, 0x9A, 0x9B, 0x9C,	/* payload: requested credit */
};
WT_HDR(pds_ctrl_credit_req, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_CREDIT_REQ,
	.flags = UET_PDS_F_RETX | UET_PDS_F_AR,
	.ctrl = { .psn = 0x91929394, .spdcid = 0x9596, .dpdcid = 0x9798,
		  .payload = 0x999A9B9C },
});

static const uint8_t pds_ctrl_syn_b[] = {
	0x58, 0x0C,		/* type 11 CTRL, ctl_type 0 NOOP, flags AR|SYN */
	0x00, 0x00,		/* reserved */
	0xA1, 0xA2, 0xA3, 0xA4,	/* psn */
	0xA5, 0xA6,		/* spdcid */
	0x8F, 0x01,		/* pdc_info 0x8 [15:12], psn_offset 0xF01 */
	0x00, 0x00, 0x00, 0x00,	/* payload */
};
WT_HDR(pds_ctrl_syn, WT_PDS, .pds = {
	.type = UET_PDS_CTRL, .next_hdr = UET_CTL_NOOP,
	.flags = UET_PDS_F_AR | UET_PDS_F_SYN,
	.ctrl = { .psn = 0xA1A2A3A4, .spdcid = 0xA5A6,
		  .pdc_info = UET_PDC_INFO_USE_RSV, .psn_offset = 0xF01 },
});

/* ---- RUDI and UUD (docs/protocol.md §4.8, §4.9) ---- */

static const uint8_t pds_rudi_req_b[] = {
	0x21, 0x90,		/* type 4 RUDI_REQ, next_hdr 3 STD, flags RETX */
	0x00, 0x00,		/* reserved */
	0xE1, 0xE2, 0xE3, 0xE4,	/* pkt_id */
};
WT_HDR(pds_rudi_req, WT_PDS, .pds = {
	.type = UET_PDS_RUDI_REQ, .next_hdr = UET_NH_REQ_STD,
	.flags = UET_PDS_F_RETX, .rudi = { .pkt_id = 0xE1E2E3E4 },
});

static const uint8_t pds_rudi_resp_b[] = {
	0x2A, 0x20,		/* type 5 RUDI_RESP, next_hdr 4 RSP, flags M */
	0x00, 0x00,		/* reserved */
	0xF4, 0xF3, 0xF2, 0xF1,	/* pkt_id */
};
WT_HDR(pds_rudi_resp, WT_PDS, .pds = {
	.type = UET_PDS_RUDI_RESP, .next_hdr = UET_NH_RSP,
	.flags = UET_PDS_F_M, .rudi = { .pkt_id = 0xF4F3F2F1 },
});

static const uint8_t pds_uud_b[] = {
	0x31, 0x80,		/* type 6 UUD_REQ, next_hdr 3 STD, flags 0 */
	0x00, 0x00,		/* reserved */
};
WT_HDR(pds_uud, WT_PDS, .pds = {
	.type = UET_PDS_UUD_REQ, .next_hdr = UET_NH_REQ_STD, .flags = 0,
});

/* ---- SES requests (docs/protocol.md §5.2-5.6) ---- */

static const uint8_t req_std_som_b[] = {
	0x09,			/* rsvd [7:6], opcode 0x09 TAGGED_SEND */
	0x2D,			/* version 0, flags DC|REL|HD|SOM */
	0xB1, 0xB2,		/* message_id */
	0xC1,			/* ri_generation */
	0xD2, 0xE3, 0xF4,	/* job_id */
	0x0A, 0xBC,		/* rsvd [15:12], pid_on_fep 0xABC */
	0x0F, 0xED,		/* rsvd [15:12], resource_index 0xFED */
	0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,	/* buffer_offset */
	0x1A, 0x2B, 0x3C, 0x4D,	/* initiator */
	0xF1, 0xE2, 0xD3, 0xC4, 0xB5, 0xA6, 0x97, 0x88,	/* match_bits */
	0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11,	/* header_data (SOM) */
	0x9A, 0xBC, 0xDE, 0xF0,	/* request_length */
};
WT_HDR(req_std_som, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_TAGGED_SEND,
	.flags = UET_SES_F_DC | UET_SES_F_REL | UET_SES_F_HD | UET_SES_F_SOM,
	.message_id = 0xB1B2, .request_length = 0x9ABCDEF0,
	.ri_generation = 0xC1, .job_id = 0xD2E3F4,
	.pid_on_fep = 0xABC, .resource_index = 0xFED,
	.buffer_offset = 0x0102030405060708ULL, .initiator = 0x1A2B3C4D,
	.match_bits = 0xF1E2D3C4B5A69788ULL,
	.header_data = 0x8877665544332211ULL,
});

static const uint8_t req_std_mid_b[] = {
	0x01,			/* opcode 0x01 WRITE */
	0x12,			/* version 0, flags IE|EOM (SOM clear) */
	0xFF, 0xFF,		/* message_id max */
	0x00,			/* ri_generation */
	0xFF, 0xFF, 0xFF,	/* job_id max */
	0x0F, 0xFF,		/* pid_on_fep max */
	0x00, 0x01,		/* resource_index */
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,	/* buffer_offset */
	0xFF, 0xFF, 0xFF, 0xFF,	/* initiator max */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,	/* memory_key */
	0x00, 0x00,		/* rsvd [63:46], */
	0x2A, 0xBC,		/*   payload_length 0x2ABC [45:32] */
	0x13, 0x57, 0x9B, 0xDF,	/* message_offset [31:0] */
	0xFF, 0xFF, 0xFF, 0xFF,	/* request_length max */
};
WT_HDR(req_std_mid, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_WRITE,
	.flags = UET_SES_F_IE | UET_SES_F_EOM,
	.message_id = 0xFFFF, .request_length = 0xFFFFFFFF,
	.ri_generation = 0, .job_id = 0xFFFFFF,
	.pid_on_fep = 0xFFF, .resource_index = 0x001,
	.buffer_offset = 0x8000000000000001ULL, .initiator = 0xFFFFFFFF,
	.match_bits = 0x0123456789ABCDEFULL,
	.payload_length = 0x2ABC, .message_offset = 0x13579BDF,
});

/* A middle packet whose payload_length fits a small packet (pkt vectors). */
static const uint8_t req_std_cont_b[] = {
	0x05,			/* opcode SEND */
	0x02,			/* flags EOM (SOM clear) */
	0x12, 0x34,		/* message_id */
	0x01,			/* ri_generation */
	0x00, 0x00, 0x2A,	/* job_id */
	0x00, 0x11,		/* pid_on_fep */
	0x00, 0x22,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x33,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x44,	/* match_bits */
	0x00, 0x00, 0x00, 0x11,	/* payload_length 17 */
	0x00, 0x00, 0x10, 0x00,	/* message_offset 4096 */
	0x00, 0x00, 0x10, 0x11,	/* request_length 4113 */
};
WT_HDR(req_std_cont, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_SEND,
	.flags = UET_SES_F_EOM, .message_id = 0x1234,
	.request_length = 4113, .ri_generation = 1, .job_id = 0x2A,
	.pid_on_fep = 0x011, .resource_index = 0x022, .initiator = 0x33,
	.match_bits = 0x44, .payload_length = 17, .message_offset = 4096,
});

static const uint8_t req_small_b[] = {
	0x02,			/* opcode READ */
	0x23,			/* version 0, flags DC|EOM|SOM */
	0x3F, 0xFF,		/* rsvd [15:14], request_length 0x3FFF max */
	0x7E,			/* ri_generation */
	0x01, 0x02, 0x03,	/* job_id */
	0x01, 0x23,		/* pid_on_fep */
	0x04, 0x56,		/* resource_index */
	0xA0, 0xA1, 0xA2, 0xA3, 0xA4, 0xA5, 0xA6, 0xA7,	/* buffer_offset */
};
WT_HDR(req_small, WT_REQ, .req = {
	.format = UET_NH_REQ_SMALL, .opcode = UET_SES_READ,
	.flags = UET_SES_F_DC | UET_SES_F_EOM | UET_SES_F_SOM,
	.request_length = 0x3FFF, .ri_generation = 0x7E, .job_id = 0x010203,
	.pid_on_fep = 0x123, .resource_index = 0x456,
	.buffer_offset = 0xA0A1A2A3A4A5A6A7ULL,
});

static const uint8_t req_medium_hd_b[] = {
	0x05,			/* opcode SEND */
	0x0F,			/* flags REL|HD|EOM|SOM */
	0x23, 0x45,		/* request_length 0x2345 */
	0x99,			/* ri_generation */
	0xAA, 0xBB, 0xCC,	/* job_id */
	0x00, 0xFF,		/* pid_on_fep */
	0x0F, 0x00,		/* resource_index */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/* header_data (HD) */
	0xCA, 0xFE, 0xBA, 0xBE,	/* initiator */
	0x0F, 0x1E, 0x2D, 0x3C, 0x4B, 0x5A, 0x69, 0x78,	/* match_bits */
};
WT_HDR(req_medium_hd, WT_REQ, .req = {
	.format = UET_NH_REQ_MEDIUM, .opcode = UET_SES_SEND,
	.flags = UET_SES_F_REL | UET_SES_F_HD | UET_SES_F_EOM | UET_SES_F_SOM,
	.request_length = 0x2345, .ri_generation = 0x99, .job_id = 0xAABBCC,
	.pid_on_fep = 0x0FF, .resource_index = 0xF00,
	.header_data = 0x1122334455667788ULL, .initiator = 0xCAFEBABE,
	.match_bits = 0x0F1E2D3C4B5A6978ULL,
});

static const uint8_t req_medium_b[] = {
	0x09,			/* opcode TAGGED_SEND */
	0x13,			/* flags IE|EOM|SOM */
	0x00, 0x01,		/* request_length */
	0xFF,			/* ri_generation max */
	0x80, 0x00, 0x01,	/* job_id */
	0x08, 0x00,		/* pid_on_fep */
	0x07, 0xFF,		/* resource_index */
	0xFE, 0xDC, 0xBA, 0x98, 0x76, 0x54, 0x32, 0x10,	/* buffer_offset (no HD) */
	0x00, 0x00, 0x00, 0x01,	/* initiator */
	0x80, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* match_bits */
};
WT_HDR(req_medium, WT_REQ, .req = {
	.format = UET_NH_REQ_MEDIUM, .opcode = UET_SES_TAGGED_SEND,
	.flags = UET_SES_F_IE | UET_SES_F_EOM | UET_SES_F_SOM,
	.request_length = 1, .ri_generation = 0xFF, .job_id = 0x800001,
	.pid_on_fep = 0x800, .resource_index = 0x7FF,
	.buffer_offset = 0xFEDCBA9876543210ULL, .initiator = 1,
	.match_bits = 0x8000000000000000ULL,
});

static const uint8_t req_std_amo_b[] = {
	0x04,			/* opcode FETCHING_ATOMIC */
	0x0B,			/* flags REL|EOM|SOM */
	0x00, 0x07,		/* message_id */
	0x02,			/* ri_generation */
	0x00, 0x10, 0x01,	/* job_id */
	0x00, 0x05,		/* pid_on_fep */
	0x00, 0x06,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x09,	/* initiator */
	0x6B, 0x65, 0x79, 0x00, 0x00, 0x00, 0x00, 0x01,	/* memory_key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* header_data (HD clear) */
	0x00, 0x00, 0x00, 0x08,	/* request_length */
	0x0A,			/* atomic ext: atomic_opcode BXOR */
	0x07,			/*   atomic_datatype UINT64 */
	0x03,			/*   semantic_control cacheable|coherent */
	0x00,			/*   reserved */
};
WT_HDR(req_std_amo, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_FETCHING_ATOMIC,
	.flags = UET_SES_F_REL | UET_SES_F_EOM | UET_SES_F_SOM,
	.message_id = 7, .request_length = 8, .ri_generation = 2,
	.job_id = 0x001001, .pid_on_fep = 5, .resource_index = 6,
	.buffer_offset = 0x1000, .initiator = 9,
	.match_bits = 0x6B65790000000001ULL,
	.amo = { .op = UET_AMO_BXOR, .dt = UET_AMO_UINT64,
		 .semantic_control = UET_AMO_SC_CACHEABLE |
				     UET_AMO_SC_COHERENT },
});

static const uint8_t req_medium_amo_b[] = {
	0x03,			/* opcode ATOMIC */
	0x03,			/* flags EOM|SOM */
	0x00, 0x02,		/* request_length */
	0x00,			/* ri_generation */
	0x00, 0x00, 0x02,	/* job_id */
	0x00, 0x03,		/* pid_on_fep */
	0x00, 0x04,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x40,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x05,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x06,	/* memory_key */
	0x14,			/* atomic ext: INVAL (last opcode) */
	0x11,			/*   FP16 (last datatype) */
	0x01,			/*   semantic_control cacheable */
	0x00,			/*   reserved */
};
WT_HDR(req_medium_amo, WT_REQ, .req = {
	.format = UET_NH_REQ_MEDIUM, .opcode = UET_SES_ATOMIC,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM,
	.request_length = 2, .job_id = 2, .pid_on_fep = 3,
	.resource_index = 4, .buffer_offset = 0x40, .initiator = 5,
	.match_bits = 6,
	.amo = { .op = UET_AMO_INVAL, .dt = UET_AMO_FP16,
		 .semantic_control = UET_AMO_SC_CACHEABLE },
});

static const uint8_t req_std_cswap_b[] = {
	0x03,			/* opcode ATOMIC */
	0x03,			/* flags EOM|SOM */
	0xAB, 0xCD,		/* message_id */
	0x10,			/* ri_generation */
	0x20, 0x30, 0x40,	/* job_id */
	0x05, 0x06,		/* pid_on_fep */
	0x07, 0x08,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00,	/* buffer_offset */
	0x00, 0x01, 0x00, 0x02,	/* initiator */
	0x11, 0x11, 0x22, 0x22, 0x33, 0x33, 0x44, 0x44,	/* memory_key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* header_data (HD clear) */
	0x00, 0x00, 0x00, 0x10,	/* request_length 16 */
	0x12,			/* cswap ext: atomic_opcode CSWAP_GT */
	0x08,			/*   datatype INT128 */
	0x02,			/*   semantic_control coherent */
	0x00,			/*   reserved */
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,	/* compare (16 B) */
	0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F,
	0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7,	/* swap (16 B) */
	0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF,
};
WT_HDR(req_std_cswap, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_ATOMIC,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM,
	.message_id = 0xABCD, .request_length = 16, .ri_generation = 0x10,
	.job_id = 0x203040, .pid_on_fep = 0x506, .resource_index = 0x708,
	.buffer_offset = 0x100, .initiator = 0x00010002,
	.match_bits = 0x1111222233334444ULL,
	.amo = { .op = UET_AMO_CSWAP_GT, .dt = UET_AMO_INT128,
		 .semantic_control = UET_AMO_SC_COHERENT,
		 .compare = { 0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07,
			      0x08, 0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x0E, 0x0F },
		 .swap = { 0xF0, 0xF1, 0xF2, 0xF3, 0xF4, 0xF5, 0xF6, 0xF7,
			   0xF8, 0xF9, 0xFA, 0xFB, 0xFC, 0xFD, 0xFE, 0xFF } },
});

/* docs/choices.md §10.1: a tagged atomic with a compare-and-swap
 * op carries the 36-byte form, like the untagged ones. */
static const uint8_t req_medium_tsend_cswap_b[] = {
	0x0E,			/* opcode TSEND_FETCH_ATOMIC */
	0x03,			/* flags EOM|SOM */
	0x00, 0x08,		/* request_length 8 */
	0x01,			/* ri_generation */
	0x0A, 0x0B, 0x0C,	/* job_id */
	0x01, 0x23,		/* pid_on_fep */
	0x04, 0x56,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x2A,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x07, 0x77,	/* match_bits (tag) */
	0x0E,			/* cswap ext: atomic_opcode CSWAP_NE */
	0x07,			/*   datatype UINT64 */
	0x00,			/*   semantic_control */
	0x00,			/*   reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* compare: hi half 0 */
	0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,	/*   u64 in lo half */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* swap: hi half 0 */
	0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x01,	/*   u64 in lo half */
};
WT_HDR(req_medium_tsend_cswap, WT_REQ, .req = {
	.format = UET_NH_REQ_MEDIUM, .opcode = UET_SES_TSEND_FETCH_ATOMIC,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM,
	.request_length = 8, .ri_generation = 1, .job_id = 0x0A0B0C,
	.pid_on_fep = 0x123, .resource_index = 0x456, .initiator = 0x2A,
	.match_bits = 0x777,
	.amo = { .op = UET_AMO_CSWAP_NE, .dt = UET_AMO_UINT64,
		 .compare = { [8] = 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77,
			      0x88 },
		 .swap = { [8] = 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF,
			   0x01 } },
});

/* docs/choices.md §10.2: MSWAP travels in the 36-byte form, the
 * mask in the compare slot. */
static const uint8_t req_std_tsend_mswap_b[] = {
	0x0D,			/* opcode TSEND_ATOMIC */
	0x03,			/* flags EOM|SOM */
	0x12, 0x34,		/* message_id */
	0x00,			/* ri_generation */
	0x00, 0x00, 0x07,	/* job_id */
	0x00, 0x01,		/* pid_on_fep */
	0x00, 0x02,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x03,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04,	/* match_bits (tag) */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* header_data (HD clear) */
	0x00, 0x00, 0x00, 0x04,	/* request_length 4 */
	0x13,			/* cswap ext: atomic_opcode MSWAP */
	0x05,			/*   datatype UINT32 */
	0x01,			/*   semantic_control cacheable */
	0x00,			/*   reserved */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* compare = mask */
	0x00, 0x00, 0x00, 0x00, 0xFF, 0x00, 0xFF, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* swap value */
	0x00, 0x00, 0x00, 0x00, 0xA5, 0xA5, 0xA5, 0xA5,
};
WT_HDR(req_std_tsend_mswap, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_TSEND_ATOMIC,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM,
	.message_id = 0x1234, .request_length = 4, .job_id = 7,
	.pid_on_fep = 1, .resource_index = 2, .initiator = 3,
	.match_bits = 4,
	.amo = { .op = UET_AMO_MSWAP, .dt = UET_AMO_UINT32,
		 .semantic_control = UET_AMO_SC_CACHEABLE,
		 .compare = { [12] = 0xFF, 0x00, 0xFF, 0x00 },
		 .swap = { [12] = 0xA5, 0xA5, 0xA5, 0xA5 } },
});

static const uint8_t req_std_rndv_b[] = {
	0x06,			/* opcode RENDEZVOUS_SEND */
	0x25,			/* flags DC|HD|SOM */
	0x0B, 0x0C,		/* message_id */
	0x3C,			/* ri_generation */
	0x4D, 0x5E, 0x6F,	/* job_id */
	0x0C, 0xDE,		/* pid_on_fep */
	0x0B, 0xA9,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x12, 0x34, 0x56, 0x78,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0xDE, 0xAD, 0xBE, 0xEF,	/* match_bits (tag) */
	0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF,	/* header_data */
	0x00, 0x10, 0x00, 0x00,	/* request_length 1 MiB */
	0x0A, 0x1B, 0x2C, 0x3D,	/* rndv ext: eager_length */
	0x3A, 0xBC,		/*   rsvd 2, read_pid_on_fep 0x3ABC (14, WS) */
	0x0D, 0xEF,		/*   rsvd 4, read_resource_index 0xDEF */
	0x21, 0x32, 0x43, 0x54, 0x65, 0x76, 0x87, 0x98,	/*   read_offset */
	0x0F, 0x0E, 0x0D, 0x0C, 0x0B, 0x0A, 0x09, 0x08,	/*   read_match_bits */
};
WT_HDR(req_std_rndv, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_RENDEZVOUS_SEND,
	.flags = UET_SES_F_DC | UET_SES_F_HD | UET_SES_F_SOM,
	.message_id = 0x0B0C, .request_length = 0x00100000,
	.ri_generation = 0x3C, .job_id = 0x4D5E6F,
	.pid_on_fep = 0xCDE, .resource_index = 0xBA9,
	.initiator = 0x12345678, .match_bits = 0xDEADBEEFULL,
	.header_data = 0x0123456789ABCDEFULL,
	.rndv = { .eager_length = 0x0A1B2C3D, .read_pid_on_fep = 0x3ABC,
		  .read_resource_index = 0xDEF,
		  .read_offset = 0x2132435465768798ULL,
		  .read_match_bits = 0x0F0E0D0C0B0A0908ULL },
});

static const uint8_t req_std_sync_write_b[] = {
	0x10,			/* opcode 0x10 SYNC_WRITE (REF only) */
	0x03,			/* flags EOM|SOM */
	0x00, 0x42,		/* message_id */
	0x00,			/* ri_generation */
	0x00, 0x00, 0x01,	/* job_id */
	0x00, 0x02,		/* pid_on_fep */
	0x00, 0x03,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x04,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,	/* memory_key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* header_data */
	0x00, 0x00, 0x00, 0x00,	/* request_length */
	0xAB, 0xCD,		/* sync ext: group */
	0x12, 0x34,		/*   count */
};
WT_HDR(req_std_sync_write, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_SYNC_WRITE,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM, .message_id = 0x42,
	.job_id = 1, .pid_on_fep = 2, .resource_index = 3, .initiator = 4,
	.match_bits = 5,
	.sync = { .group = 0xABCD, .count = 0x1234 },
});

static const uint8_t req_std_sync_atomic_b[] = {
	0x11,			/* opcode 0x11 SYNC_ATOMIC (REF only) */
	0x03,			/* flags EOM|SOM */
	0x00, 0x43,		/* message_id */
	0x00,			/* ri_generation */
	0x00, 0x00, 0x01,	/* job_id */
	0x00, 0x02,		/* pid_on_fep */
	0x00, 0x03,		/* resource_index */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* buffer_offset */
	0x00, 0x00, 0x00, 0x04,	/* initiator */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x05,	/* memory_key */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,	/* header_data */
	0x00, 0x00, 0x00, 0x00,	/* request_length */
	0x00, 0x01,		/* sync ext: group */
	0xFF, 0xFF,		/*   count max */
};
WT_HDR(req_std_sync_atomic, WT_REQ, .req = {
	.format = UET_NH_REQ_STD, .opcode = UET_SES_SYNC_ATOMIC,
	.flags = UET_SES_F_EOM | UET_SES_F_SOM, .message_id = 0x43,
	.job_id = 1, .pid_on_fep = 2, .resource_index = 3, .initiator = 4,
	.match_bits = 5,
	.sync = { .group = 1, .count = 0xFFFF },
});

/* ---- SES responses (docs/protocol.md §5.8-5.10) ---- */

static const uint8_t rsp_b[] = {
	0x41,			/* list 1 OVERFLOW [7:6], opcode 1 RESPONSE */
	0x22,			/* version 0, return_code TOO_LONG */
	0xB1, 0xB2,		/* message_id */
	0x5C,			/* ri_generation */
	0x6D, 0x7E, 0x8F,	/* job_id */
	0x90, 0xA0, 0xB0, 0xC0,	/* modified_length */
};
WT_HDR(rsp, WT_RSP, .rsp = {
	.format = UET_NH_RSP, .list = UET_SES_LIST_OVERFLOW,
	.opcode = UET_SES_RESPONSE, .return_code = UET_RC_TOO_LONG,
	.message_id = 0xB1B2, .ri_generation = 0x5C, .job_id = 0x6D7E8F,
	.modified_length = 0x90A0B0C0,
});

static const uint8_t rsp_none_b[] = {
	0x03,			/* list 0, opcode 3 NO_RESPONSE */
	0x24,			/* return_code DROPPED (last) */
	0xFF, 0xFF,		/* message_id max */
	0xFF,			/* ri_generation max */
	0xFF, 0xFF, 0xFF,	/* job_id max */
	0xFF, 0xFF, 0xFF, 0xFF,	/* modified_length max */
};
WT_HDR(rsp_none, WT_RSP, .rsp = {
	.format = UET_NH_RSP, .list = UET_SES_LIST_EXPECTED,
	.opcode = UET_SES_NO_RESPONSE, .return_code = UET_RC_DROPPED,
	.message_id = 0xFFFF, .ri_generation = 0xFF, .job_id = 0xFFFFFF,
	.modified_length = 0xFFFFFFFF,
});

static const uint8_t rsp_data_b[] = {
	0x02,			/* list 0, opcode 2 RESPONSE_W_DATA */
	0x01,			/* version 0, return_code OK */
	0xC3, 0xC4,		/* message_id (response id) */
	0x00,			/* reserved [31:24] */
	0xFE, 0xDC, 0xBA,	/* job_id */
	0xD5, 0xD6,		/* read_request_message_id */
	0x12, 0x34,		/* rsvd [15:14], payload_length 0x1234 */
	0xE7, 0xE8, 0xE9, 0xEA,	/* modified_length */
	0xF0, 0xF1, 0xF2, 0xF3,	/* message_offset */
};
WT_HDR(rsp_data, WT_RSP, .rsp = {
	.format = UET_NH_RSP_DATA, .opcode = UET_SES_RESPONSE_W_DATA,
	.return_code = UET_RC_OK, .message_id = 0xC3C4, .job_id = 0xFEDCBA,
	.read_request_message_id = 0xD5D6, .payload_length = 0x1234,
	.modified_length = 0xE7E8E9EA, .message_offset = 0xF0F1F2F3,
});

static const uint8_t rsp_data_pkt_b[] = {
	0x42,			/* list 1, opcode 2 RESPONSE_W_DATA */
	0x01,			/* return_code OK */
	0x00, 0x05,		/* message_id */
	0x00,			/* reserved */
	0x00, 0x00, 0x07,	/* job_id */
	0x00, 0x08,		/* read_request_message_id */
	0x00, 0x09,		/* payload_length 9 */
	0x00, 0x00, 0x00, 0x09,	/* modified_length */
	0x00, 0x00, 0x02, 0x00,	/* message_offset */
};
WT_HDR(rsp_data_pkt, WT_RSP, .rsp = {
	.format = UET_NH_RSP_DATA, .list = UET_SES_LIST_OVERFLOW,
	.opcode = UET_SES_RESPONSE_W_DATA, .return_code = UET_RC_OK,
	.message_id = 5, .job_id = 7, .read_request_message_id = 8,
	.payload_length = 9, .modified_length = 9, .message_offset = 0x200,
});

static const uint8_t rsp_data_small_b[] = {
	0x02,			/* list 0, opcode 2 RESPONSE_W_DATA */
	0x24,			/* return_code DROPPED */
	0x2A, 0x5A,		/* rsvd [15:14], payload_length 0x2A5A */
	0x00,			/* reserved [31:24] */
	0x12, 0x34, 0x56,	/* job_id */
	0x89, 0xAB, 0xCD, 0xEF,	/* original_request_psn */
};
WT_HDR(rsp_data_small, WT_RSP, .rsp = {
	.format = UET_NH_RSP_DATA_SMALL, .opcode = UET_SES_RESPONSE_W_DATA,
	.return_code = UET_RC_DROPPED, .payload_length = 0x2A5A,
	.job_id = 0x123456, .original_request_psn = 0x89ABCDEF,
});

static const uint8_t rsp_data_small_pkt_b[] = {
	0x02,			/* opcode 2 RESPONSE_W_DATA */
	0x01,			/* return_code OK */
	0x00, 0x03,		/* payload_length 3 */
	0x00,			/* reserved */
	0x00, 0x00, 0x0A,	/* job_id */
	0x00, 0x01, 0x02, 0x03,	/* original_request_psn */
};
WT_HDR(rsp_data_small_pkt, WT_RSP, .rsp = {
	.format = UET_NH_RSP_DATA_SMALL, .opcode = UET_SES_RESPONSE_W_DATA,
	.return_code = UET_RC_OK, .payload_length = 3, .job_id = 0x0A,
	.original_request_psn = 0x00010203,
});

const struct wt_hdr *const wt_hdrs[] = {
	&entropy, &tss, &tss_ssi,
	&pds_rud_req, &pds_rod_req, &pds_rod_req_syn, &pds_rud_req_syn,
	&pds_rud_cc_req, &pds_rod_cc_req_syn,
	&pds_ack, &pds_ack_probe, &pds_ack_clear, &pds_ack_close,
	&pds_ack_cc_nscc, &pds_ack_cc_credit, &pds_ack_ccx,
	&pds_nack, &pds_nack_rudi, &pds_nack_ccx,
	&pds_ctrl_noop, &pds_ctrl_ack_req, &pds_ctrl_clear,
	&pds_ctrl_clear_req, &pds_ctrl_close, &pds_ctrl_close_req,
	&pds_ctrl_probe, &pds_ctrl_credit, &pds_ctrl_credit_req,
	&pds_ctrl_syn,
	&pds_rudi_req, &pds_rudi_resp, &pds_uud,
	&req_std_som, &req_std_mid, &req_std_cont, &req_small,
	&req_medium_hd, &req_medium, &req_std_amo, &req_medium_amo,
	&req_std_cswap, &req_medium_tsend_cswap, &req_std_tsend_mswap,
	&req_std_rndv, &req_std_sync_write,
	&req_std_sync_atomic,
	&rsp, &rsp_none, &rsp_data, &rsp_data_pkt, &rsp_data_small,
	&rsp_data_small_pkt,
	NULL,
};

/* ---- Whole packets ---- */

static const uint8_t pl_data[] = "UET data";	/* 8 B + NUL */
static const uint8_t pl_17[17] = {
	0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
	0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x5A,
};
static const uint8_t pl_cipher[20] = {	/* TSS: ciphertext + ICV, opaque */
	0x3C, 0x1F, 0xA2, 0x70, 0x9D, 0x44, 0xE1, 0x0B, 0x66, 0xC8,
	0x17, 0x52, 0xBE, 0x09, 0xF3, 0x8A, 0x2D, 0x91, 0x04, 0x7E,
};

#define PKT(nm, fl, pl, pll, ...) \
	{ .name = nm, .flags = fl, .hdrs = { __VA_ARGS__, NULL }, \
	  .payload = pl, .payload_len = pll }

const struct wt_pkt wt_pkts[] = {
	PKT("rud_std_som", 0, pl_data, 8, &pds_rud_req, &req_std_som),
	PKT("rud_std_cont", 0, pl_17, 17, &pds_rud_req, &req_std_cont),
	PKT("rud_std_sync_write", 0, NULL, 0, &pds_rud_req,
	    &req_std_sync_write),
	PKT("rod_small", 0, NULL, 0, &pds_rod_req, &req_small),
	PKT("rod_syn_medium_hd", 0, pl_data, 5, &pds_rod_req_syn,
	    &req_medium_hd),
	PKT("rod_syn_medium", 0, pl_data, 1, &pds_rod_req_syn, &req_medium),
	PKT("rod_syn_medium_amo", 0, pl_17, 4, &pds_rod_req_syn,
	    &req_medium_amo),
	PKT("rud_syn_rsp_data_small", 0, pl_17, 3, &pds_rud_req_syn,
	    &rsp_data_small_pkt),
	PKT("rud_cc_std_cswap", 0, NULL, 0, &pds_rud_cc_req, &req_std_cswap),
	PKT("rod_cc_syn_rsp_data", 0, pl_17, 9, &pds_rod_cc_req_syn,
	    &rsp_data_pkt),
	PKT("rudi_std_amo", 0, pl_17, 8, &pds_rudi_req, &req_std_amo),
	PKT("rudi_std_sync_atomic", 0, NULL, 0, &pds_rudi_req,
	    &req_std_sync_atomic),
	PKT("rudi_resp_rsp", 0, NULL, 0, &pds_rudi_resp, &rsp),
	PKT("uud_std_rndv", 0, pl_data, 4, &pds_uud, &req_std_rndv),
	PKT("ack", 0, NULL, 0, &pds_ack),
	PKT("ack_probe_rsp_none", 0, NULL, 0, &pds_ack_probe, &rsp_none),
	PKT("ack_clear_rsp_data", 0, pl_17, 9, &pds_ack_clear,
	    &rsp_data_pkt),
	PKT("ack_close_rsp_data_small", 0, pl_data, 3, &pds_ack_close,
	    &rsp_data_small_pkt),
	PKT("ack_cc_nscc_rsp", 0, NULL, 0, &pds_ack_cc_nscc, &rsp),
	PKT("ack_cc_credit", 0, NULL, 0, &pds_ack_cc_credit),
	PKT("ack_ccx_rsp_data", 0, pl_17, 9, &pds_ack_ccx, &rsp_data_pkt),
	PKT("nack", 0, NULL, 0, &pds_nack),
	PKT("nack_rudi", 0, NULL, 0, &pds_nack_rudi),
	PKT("nack_ccx", 0, NULL, 0, &pds_nack_ccx),
	PKT("ctrl_noop", 0, NULL, 0, &pds_ctrl_noop),
	PKT("ctrl_ack_req", 0, NULL, 0, &pds_ctrl_ack_req),
	PKT("ctrl_clear", 0, NULL, 0, &pds_ctrl_clear),
	PKT("ctrl_clear_req", 0, NULL, 0, &pds_ctrl_clear_req),
	PKT("ctrl_close", 0, NULL, 0, &pds_ctrl_close),
	PKT("ctrl_close_req", 0, NULL, 0, &pds_ctrl_close_req),
	PKT("ctrl_probe", 0, NULL, 0, &pds_ctrl_probe),
	PKT("ctrl_credit", 0, NULL, 0, &pds_ctrl_credit),
	PKT("ctrl_credit_req", 0, NULL, 0, &pds_ctrl_credit_req),
	PKT("ctrl_syn", 0, NULL, 0, &pds_ctrl_syn),
	PKT("tss", 0, pl_cipher, 20, &tss),
	PKT("tss_ssi", 0, pl_cipher, 16, &tss_ssi),
	PKT("ip_rud_std_som", UET_PKT_ENTROPY, pl_data, 8, &entropy,
	    &pds_rud_req, &req_std_som),
	PKT("ip_tss_ssi", UET_PKT_ENTROPY, pl_cipher, 20, &entropy, &tss_ssi),
	PKT("ip_nack", UET_PKT_ENTROPY, NULL, 0, &entropy, &pds_nack),
};
const size_t wt_npkts = sizeof(wt_pkts) / sizeof(wt_pkts[0]);

void wt_pkt_build(const struct wt_pkt *k, uint8_t **buf, size_t *len,
		  struct uet_pkt *want)
{
	const struct wt_hdr *const *h;
	size_t off = 0;

	memset(want, 0, sizeof(*want));
	for (h = k->hdrs; *h; h++)
		off += (*h)->len;
	*len = off + k->payload_len;
	*buf = malloc(*len);
	cr_assert(*buf);
	off = 0;
	for (h = k->hdrs; *h; h++) {
		memcpy(*buf + off, (*h)->bytes, (*h)->len);
		off += (*h)->len;
		switch ((*h)->kind) {
		case WT_ENTROPY:
			want->has_entropy = true;
			want->entropy = (*h)->want.entropy;
			break;
		case WT_TSS:
			want->has_tss = true;
			want->tss = (*h)->want.tss;
			break;
		case WT_PDS:
			want->pds = (*h)->want.pds;
			break;
		case WT_REQ:
			want->has_req = true;
			want->req = (*h)->want.req;
			break;
		case WT_RSP:
			want->has_rsp = true;
			want->rsp = (*h)->want.rsp;
			break;
		}
	}
	if (k->payload_len)
		memcpy(*buf + off, k->payload, k->payload_len);
	want->hdr_len = off;
	want->payload_len = k->payload_len;
}

const struct wt_hdr *wt_hdr_find(const char *name)
{
	const struct wt_hdr *const *h;

	for (h = wt_hdrs; *h; h++)
		if (!strcmp((*h)->name, name))
			return *h;
	cr_assert_fail("no header vector %s", name);
	return NULL;
}

const struct wt_pkt *wt_pkt_find(const char *name)
{
	size_t i;

	for (i = 0; i < wt_npkts; i++)
		if (!strcmp(wt_pkts[i].name, name))
			return &wt_pkts[i];
	cr_assert_fail("no packet vector %s", name);
	return NULL;
}

/* ---- The checks ---- */

static void check_hdr(const struct wt_hdr *g)
{
	uint8_t enc[160];
	union wt_any got;
	char why[200];
	uint8_t *buf;
	size_t i;
	int n;

	/* encode: exactly the golden bytes and nothing past them */
	memset(enc, 0xEE, sizeof(enc));
	n = wt_encode(g->kind, enc, sizeof(enc), &g->want);
	cr_assert_eq(n, (int)g->len, "%s: encode returned %d (%s), want %zu",
		     g->name, n, uet_err_str(n), g->len);
	wt_bytes_diff(enc, g->bytes, g->len, why, sizeof(why));
	cr_assert(!memcmp(enc, g->bytes, g->len), "%s: encode: %s",
		  g->name, why);
	for (i = g->len; i < sizeof(enc); i++)
		cr_assert_eq(enc[i], 0xEE, "%s: encode wrote byte %zu",
			     g->name, i);

	/* a buffer of exactly the header length is enough */
	buf = malloc(g->len);
	n = wt_encode(g->kind, buf, g->len, &g->want);
	cr_assert_eq(n, (int)g->len, "%s: encode with cap %zu returned %d",
		     g->name, g->len, n);
	free(buf);

	/* decode from an exact-size copy: every field back, whole header */
	buf = wt_dup(g->bytes, g->len);
	memset(&got, 0xA5, sizeof(got));
	n = wt_decode(g, &got, buf, g->len);
	cr_assert_eq(n, (int)g->len, "%s: decode returned %d (%s), want %zu",
		     g->name, n, uet_err_str(n), g->len);
	cr_assert(wt_cmp(g->kind, &got, &g->want, why, sizeof(why)),
		  "%s: decode: %s", g->name, why);
	free(buf);

	/* bytes after the header are not consumed, and the result does not
	 * depend on what the out-struct held before */
	buf = malloc(g->len + 9);
	memcpy(buf, g->bytes, g->len);
	memset(buf + g->len, 0xFF, 9);
	memset(&got, 0x00, sizeof(got));
	n = wt_decode(g, &got, buf, g->len + 9);
	cr_assert_eq(n, (int)g->len, "%s: decode with trailer returned %d",
		     g->name, n);
	cr_assert(wt_cmp(g->kind, &got, &g->want, why, sizeof(why)),
		  "%s: decode with trailer: %s", g->name, why);
	free(buf);
}

#define GOLDEN(id) Test(golden, id) { check_hdr(&id); }

GOLDEN(entropy)
GOLDEN(tss)
GOLDEN(tss_ssi)
GOLDEN(pds_rud_req)
GOLDEN(pds_rod_req)
GOLDEN(pds_rod_req_syn)
GOLDEN(pds_rud_req_syn)
GOLDEN(pds_rud_cc_req)
GOLDEN(pds_rod_cc_req_syn)
GOLDEN(pds_ack)
GOLDEN(pds_ack_probe)
GOLDEN(pds_ack_clear)
GOLDEN(pds_ack_close)
GOLDEN(pds_ack_cc_nscc)
GOLDEN(pds_ack_cc_credit)
GOLDEN(pds_ack_ccx)
GOLDEN(pds_nack)
GOLDEN(pds_nack_rudi)
GOLDEN(pds_nack_ccx)
GOLDEN(pds_ctrl_noop)
GOLDEN(pds_ctrl_ack_req)
GOLDEN(pds_ctrl_clear)
GOLDEN(pds_ctrl_clear_req)
GOLDEN(pds_ctrl_close)
GOLDEN(pds_ctrl_close_req)
GOLDEN(pds_ctrl_probe)
GOLDEN(pds_ctrl_credit)
GOLDEN(pds_ctrl_credit_req)
GOLDEN(pds_ctrl_syn)
GOLDEN(pds_rudi_req)
GOLDEN(pds_rudi_resp)
GOLDEN(pds_uud)
GOLDEN(req_std_som)
GOLDEN(req_std_mid)
GOLDEN(req_std_cont)
GOLDEN(req_small)
GOLDEN(req_medium_hd)
GOLDEN(req_medium)
GOLDEN(req_std_amo)
GOLDEN(req_medium_amo)
GOLDEN(req_std_cswap)
GOLDEN(req_medium_tsend_cswap)
GOLDEN(req_std_tsend_mswap)
GOLDEN(req_std_rndv)
GOLDEN(req_std_sync_write)
GOLDEN(req_std_sync_atomic)
GOLDEN(rsp)
GOLDEN(rsp_none)
GOLDEN(rsp_data)
GOLDEN(rsp_data_pkt)
GOLDEN(rsp_data_small)
GOLDEN(rsp_data_small_pkt)

/* The length helpers agree with the vectors. */
Test(golden, lengths)
{
	const struct wt_hdr *const *h;

	for (h = wt_hdrs; *h; h++) {
		if ((*h)->kind == WT_PDS)
			cr_expect_eq(uet_pds_hdr_len((*h)->want.pds.type),
				     (int)(*h)->len, "uet_pds_hdr_len: %s",
				     (*h)->name);
		if ((*h)->kind == WT_REQ)
			cr_expect_eq(uet_ses_req_len(&(*h)->want.req),
				     (int)(*h)->len, "uet_ses_req_len: %s",
				     (*h)->name);
	}
}

/* Every packet vector through uet_pkt_decode and uet_pkt_encode. */
Test(golden, packets)
{
	struct uet_pkt want, got;
	struct wt_prop prop;
	uint8_t enc[UET_MAX_HDR_LEN + 16];
	char why[200];
	uint8_t *buf;
	size_t i, len;
	int n;

	for (i = 0; i < wt_npkts; i++) {
		const struct wt_pkt *k = &wt_pkts[i];

		wt_pkt_build(k, &buf, &len, &want);
		memset(&got, 0xA5, sizeof(got));
		n = uet_pkt_decode(&got, buf, len, k->flags);
		cr_expect_eq(n, (int)want.hdr_len,
			     "%s: pkt decode returned %d (%s), want %zu",
			     k->name, n, uet_err_str(n), want.hdr_len);
		if (n == (int)want.hdr_len) {
			cr_expect(wt_cmp_pkt(&got, &want, why, sizeof(why)),
				  "%s: pkt decode: %s", k->name, why);
			cr_expect(got.payload == buf + want.hdr_len,
				  "%s: payload pointer", k->name);
		}

		memset(enc, 0xEE, sizeof(enc));
		n = uet_pkt_encode(enc, sizeof(enc), &want);
		cr_expect_eq(n, (int)want.hdr_len,
			     "%s: pkt encode returned %d (%s), want %zu",
			     k->name, n, uet_err_str(n), want.hdr_len);
		if (n == (int)want.hdr_len) {
			wt_bytes_diff(enc, buf, want.hdr_len, why, sizeof(why));
			cr_expect(!memcmp(enc, buf, want.hdr_len),
				  "%s: pkt encode: %s", k->name, why);
		}

		cr_expect(wt_pkt_property(buf, len, k->flags, &prop),
			  "%s: %s", k->name, prop.why);
		cr_expect(prop.canonical, "%s: re-encode not canonical",
			  k->name);
		free(buf);
	}
}

/* uet_pkt_decode_sg: every packet vector with its payload in memory of
 * its own decodes as it does whole, the payload where it lies; headers
 * given with a byte too many, or TSS, are refused. */
Test(golden, packets_apart)
{
	struct uet_pkt want, got;
	char why[200];
	uint8_t *buf, *pay;
	size_t i, len, plen;
	int n;

	for (i = 0; i < wt_npkts; i++) {
		const struct wt_pkt *k = &wt_pkts[i];

		wt_pkt_build(k, &buf, &len, &want);
		if (k->flags & UET_PKT_ENTROPY) {
			free(buf);
			continue;
		}
		plen = len - want.hdr_len;
		pay = malloc(plen + 1);
		cr_assert_not_null(pay);
		memcpy(pay, buf + want.hdr_len, plen);
		memset(&got, 0, sizeof(got));
		n = uet_pkt_decode_sg(&got, buf, want.hdr_len, pay, plen);
		if (want.has_tss) {
			cr_expect_eq(n, UET_ERR_WIRE_TYPE, "%s: TSS apart",
				     k->name);
		} else {
			cr_expect_eq(n, (int)want.hdr_len,
				     "%s: decode apart returned %d (%s)",
				     k->name, n, uet_err_str(n));
			if (n == (int)want.hdr_len) {
				want.payload = pay;
				cr_expect(wt_cmp_pkt(&got, &want, why,
						     sizeof(why)),
					  "%s: decode apart: %s", k->name, why);
				cr_expect(got.payload == pay &&
					  got.payload_len == plen,
					  "%s: payload", k->name);
			}
			if (plen) {
				memset(&got, 0, sizeof(got));
				cr_expect_lt(uet_pkt_decode_sg(&got, buf,
						want.hdr_len + 1, pay + 1,
						plen - 1), 0,
					     "%s: a header byte too many",
					     k->name);
			}
		}
		free(pay);
		free(buf);
	}
}

/* Regenerates fuzz/corpus from the packet vectors:
 *   UET_WIRE_WRITE_CORPUS=$srcdir/fuzz/corpus uet/wire/wire_test \
 *	--filter 'golden/write_corpus'
 * Skipped unless that variable names a directory. */
Test(golden, write_corpus)
{
	const char *dir = getenv("UET_WIRE_WRITE_CORPUS");
	char path[4096];
	uint8_t *buf;
	size_t i, len;
	struct uet_pkt want;
	FILE *f;

	if (!dir || !*dir)
		cr_skip_test("UET_WIRE_WRITE_CORPUS not set");
	for (i = 0; i < wt_npkts; i++) {
		wt_pkt_build(&wt_pkts[i], &buf, &len, &want);
		snprintf(path, sizeof(path), "%s/%s", dir, wt_pkts[i].name);
		f = fopen(path, "wb");
		cr_assert(f, "%s: %s", path, strerror(errno));
		cr_assert_eq(fwrite(buf, 1, len, f), len);
		cr_assert_eq(fclose(f), 0);
		free(buf);
	}
}
