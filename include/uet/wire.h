/* UET wire codec: every header of UE 1.0 transport packets (TSS, PDS, SES),
 * encoded to and decoded from network byte order into host-order structs.
 *
 * Layouts follow docs/protocol.md byte for byte, and docs/choices.md §10
 * where sources disagree. Decoders are bounds-checked: they never read
 * past `len`, validate lengths, reserved values and type/next-header
 * combinations, and return a distinct negative UET_ERR_WIRE_* per kind of
 * bad input. Encoders return the number of bytes written, UET_ERR_WIRE_NOSPACE
 * when `cap` is too small, or UET_ERR_WIRE_RANGE when a field does not fit.
 * Out-structs are written only on success. No state, no allocation.
 */
#ifndef UET_WIRE_H
#define UET_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "uet/err.h"

/* ---- Encapsulation (docs/protocol.md §1) ---- */

#define UET_UDP_PORT		4793	/* IANA UET port */
#define UET_IPPROTO		253	/* raw-IP protocol number (configurable) */

/* ---- Header sizes (docs/protocol.md §6) ---- */

#define UET_ENTROPY_HDR_LEN	4
#define UET_TSS_HDR_LEN		12
#define UET_TSS_HDR_SSI_LEN	16
#define UET_TSS_ICV_LEN		16
#define UET_PDS_REQ_LEN		12
#define UET_PDS_CC_REQ_LEN	16
#define UET_PDS_ACK_LEN		12
#define UET_PDS_ACK_CC_LEN	32
#define UET_PDS_ACK_CCX_LEN	40
#define UET_PDS_NACK_LEN	16
#define UET_PDS_NACK_CCX_LEN	32
#define UET_PDS_CTRL_LEN	16
#define UET_PDS_RUDI_LEN	8
#define UET_PDS_UUD_LEN		4
#define UET_SES_STD_LEN		44
#define UET_SES_SMALL_LEN	20
#define UET_SES_MEDIUM_LEN	32
#define UET_SES_AMO_EXT_LEN	4
#define UET_SES_CSWAP_EXT_LEN	36
#define UET_SES_RNDV_EXT_LEN	24
#define UET_SES_SYNC_EXT_LEN	4
#define UET_SES_RSP_LEN		12
#define UET_SES_RSP_DATA_LEN	20
#define UET_SES_RSP_DATA_SMALL_LEN 12
#define UET_SES_MAX_REQ_LEN	(UET_SES_STD_LEN + UET_SES_CSWAP_EXT_LEN)

/* Largest header stack uet builds: entropy + TSS(SSI) + PDS CC req + SES. */
#define UET_MAX_HDR_LEN \
	(UET_ENTROPY_HDR_LEN + UET_TSS_HDR_SSI_LEN + UET_PDS_ACK_CCX_LEN + \
	 UET_SES_MAX_REQ_LEN)

/* ---- PDS prologue (docs/protocol.md §3) ---- */

enum uet_pds_type {
	UET_PDS_TYPE_TSS = 1,	/* not PDS: a TSS header sits here */
	UET_PDS_RUD_REQ = 2,
	UET_PDS_ROD_REQ = 3,
	UET_PDS_RUDI_REQ = 4,
	UET_PDS_RUDI_RESP = 5,
	UET_PDS_UUD_REQ = 6,
	UET_PDS_ACK = 7,
	UET_PDS_ACK_CC = 8,
	UET_PDS_ACK_CCX = 9,
	UET_PDS_NACK = 10,
	UET_PDS_CTRL = 11,
	UET_PDS_NACK_CCX = 12,
	UET_PDS_RUD_CC_REQ = 13,
	UET_PDS_ROD_CC_REQ = 14,
};

enum uet_next_hdr {
	UET_NH_NONE = 0,
	UET_NH_REQ_SMALL = 1,
	UET_NH_REQ_MEDIUM = 2,
	UET_NH_REQ_STD = 3,
	UET_NH_RSP = 4,
	UET_NH_RSP_DATA = 5,
	UET_NH_RSP_DATA_SMALL = 6,
};

/* CTRL packets carry ctl_type where other types carry next_hdr
 * (docs/protocol.md §4.7). */
enum uet_ctl_type {
	UET_CTL_NOOP = 0,
	UET_CTL_ACK_REQ = 1,
	UET_CTL_CLEAR = 2,
	UET_CTL_CLEAR_REQ = 3,
	UET_CTL_CLOSE = 4,
	UET_CTL_CLOSE_REQ = 5,
	UET_CTL_PROBE = 6,
	UET_CTL_CREDIT = 7,
	UET_CTL_CREDIT_REQ = 8,
	UET_CTL_MAX = UET_CTL_CREDIT_REQ,
};

/* Flag bits of the 7-bit prologue field, per type (docs/protocol.md §3.3). */
#define UET_PDS_F_RETX		0x10	/* all types but UUD */
#define UET_PDS_F_AR		0x08	/* request, CTRL */
#define UET_PDS_F_SYN		0x04	/* request, CTRL */
#define UET_PDS_F_M		0x20	/* ACK, NACK, RUDI_RESP: ECN-marked */
#define UET_PDS_F_P		0x08	/* ACK: answers a PROBE */
#define UET_PDS_F_REQ_MASK	0x06	/* ACK: 2-bit request field */
#define UET_PDS_F_REQ_CLEAR	0x02
#define UET_PDS_F_REQ_CLOSE	0x04
#define UET_PDS_F_NT		0x08	/* NACK: RUDI NACK (pkt_id valid) */

/* pdc_info nibble (SYN only). uet sends 0; the PDS refuses any set bit. */
#define UET_PDC_INFO_USE_RSV	0x8

enum uet_nack_code {
	UET_NACK_TRIMMED = 0x01,
	UET_NACK_TRIMMED_LASTHOP = 0x02,
	UET_NACK_TRIMMED_ACK = 0x03,
	UET_NACK_NO_PDC_AVAIL = 0x04,
	UET_NACK_NO_CCC_AVAIL = 0x05,
	UET_NACK_NO_BITMAP = 0x06,
	UET_NACK_NO_PKT_BUFFER = 0x07,
	UET_NACK_NO_GTD_DEL_AVAIL = 0x08,
	UET_NACK_NO_SES_MSG_AVAIL = 0x09,
	UET_NACK_NO_RESOURCE = 0x0A,
	UET_NACK_PSN_OOR_WINDOW = 0x0B,
	UET_NACK_ROD_OOO = 0x0D,
	UET_NACK_INV_DPDCID = 0x0E,
	UET_NACK_PDC_HDR_MISMATCH = 0x0F,
	UET_NACK_CLOSING = 0x10,
	UET_NACK_CLOSING_IN_ERR = 0x11,
	UET_NACK_PKT_NOT_RCVD = 0x12,
	UET_NACK_GTD_RESP_UNAVAIL = 0x13,
	UET_NACK_ACK_WITH_DATA = 0x14,
	UET_NACK_INVALID_SYN = 0x15,
	UET_NACK_PDC_MODE_MISMATCH = 0x16,
	UET_NACK_NEW_START_PSN = 0x17,
	UET_NACK_RCVD_SES_PROCG = 0x18,
	UET_NACK_UNEXP_EVENT = 0x19,
	UET_NACK_RCVR_INFER_LOSS = 0x1A,
	UET_NACK_EXP_NORMAL = 0xFD,
	UET_NACK_EXP_ERR = 0xFE,
	UET_NACK_EXP_FATAL = 0xFF,
};

enum uet_cc_type {
	UET_CC_NSCC = 0,
	UET_CC_CREDIT = 1,
};

/* ---- Entropy header (raw-IP encapsulation, docs/protocol.md §1.3) ---- */

struct uet_entropy_hdr {
	uint16_t entropy;
};

/* ---- TSS header (docs/protocol.md §2, REF layout) ---- */

struct uet_tss_hdr {
	bool sp;		/* SSI present: 16-byte header */
	bool an;		/* association number (key slot) */
	uint32_t sdi;		/* 24 bits */
	uint32_t ssi;		/* only when sp */
	uint16_t epoch;
	uint64_t tsc;		/* 48 bits */
};

/* ---- PDS headers (docs/protocol.md §4) ---- */

/* RUD/ROD request (12 B) and RUD/ROD CC request (16 B). */
struct uet_pds_req {
	int16_t clear_psn_offset;	/* CLEAR_PSN = psn + clear_psn_offset */
	uint32_t psn;
	uint16_t spdcid;
	uint16_t dpdcid;		/* SYN clear */
	uint8_t pdc_info;		/* SYN set: 4 bits */
	uint16_t psn_offset;		/* SYN set: 12 bits, psn - Start_PSN */
	uint8_t ccc_id;			/* CC types only */
	uint32_t credit_target;		/* CC types only: 24 bits */
};

/* ACK_CC state word (docs/protocol.md §4.3), laid out by cc_type. */
struct uet_pds_cc_state {
	/* NSCC */
	uint16_t service_time;
	bool restore_cwnd;
	uint8_t rcv_cwnd_pend;		/* 7 bits */
	uint32_t rcvd_bytes;		/* 24 bits */
	/* credit */
	uint32_t credit;		/* 24 bits */
	/* both */
	uint16_t ooo_count;
};

/* ACK (12 B), ACK_CC (32 B), ACK_CCX (40 B). */
struct uet_pds_ack {
	union {
		int16_t ack_psn_offset;	/* ACK_PSN = cack_psn + ack_psn_offset */
		uint16_t probe_opaque;	/* when UET_PDS_F_P */
	};
	uint32_t cack_psn;
	uint16_t spdcid;
	uint16_t dpdcid;
	/* ACK_CC and ACK_CCX */
	uint8_t cc_type;		/* 4 bits: enum uet_cc_type / ccx_type */
	uint8_t cc_flags;		/* 4 bits */
	uint8_t mpr;
	int16_t sack_psn_offset;	/* SACK_BASE = cack_psn + offset */
	uint64_t sack_bitmap;		/* bit i <-> PSN SACK_BASE + i */
	struct uet_pds_cc_state cc;	/* ACK_CC */
	uint8_t ccx_state[16];		/* ACK_CCX: opaque extended state */
};

/* NACK (16 B), NACK_CCX (32 B). */
struct uet_pds_nack {
	uint8_t code;			/* enum uet_nack_code */
	uint8_t vendor_code;
	uint32_t psn;			/* nack_pkt_id when UET_PDS_F_NT */
	uint16_t spdcid;
	uint16_t dpdcid;
	uint32_t payload;
	/* NACK_CCX */
	uint8_t nccx_type;		/* 4 bits */
	uint64_t nccx_state1;		/* 60 bits */
	uint64_t nccx_state2;
};

/* CTRL (16 B). */
struct uet_pds_ctrl {
	uint16_t probe_opaque;		/* PROBE only; reserved (0) otherwise */
	uint32_t psn;
	uint16_t spdcid;
	uint16_t dpdcid;		/* SYN clear */
	uint8_t pdc_info;		/* SYN set */
	uint16_t psn_offset;		/* SYN set */
	uint32_t payload;
};

/* RUDI request / response (8 B). */
struct uet_pds_rudi {
	uint32_t pkt_id;
};

struct uet_pds_hdr {
	uint8_t type;			/* enum uet_pds_type */
	uint8_t next_hdr;		/* enum uet_next_hdr; ctl_type on CTRL */
	uint8_t flags;			/* 7 bits, UET_PDS_F_* */
	union {
		struct uet_pds_req req;
		struct uet_pds_ack ack;
		struct uet_pds_nack nack;
		struct uet_pds_ctrl ctrl;
		struct uet_pds_rudi rudi;
	};
};

/* ---- SES (docs/protocol.md §5) ---- */

enum uet_ses_opcode {
	UET_SES_NO_OP = 0x00,
	UET_SES_WRITE = 0x01,
	UET_SES_READ = 0x02,
	UET_SES_ATOMIC = 0x03,
	UET_SES_FETCHING_ATOMIC = 0x04,
	UET_SES_SEND = 0x05,
	UET_SES_RENDEZVOUS_SEND = 0x06,
	UET_SES_DATAGRAM_SEND = 0x07,
	UET_SES_DEFERRABLE_SEND = 0x08,
	UET_SES_TAGGED_SEND = 0x09,
	UET_SES_RENDEZVOUS_TSEND = 0x0A,
	UET_SES_DEFERRABLE_TSEND = 0x0B,
	UET_SES_DEFERRABLE_RTR = 0x0C,
	UET_SES_TSEND_ATOMIC = 0x0D,
	UET_SES_TSEND_FETCH_ATOMIC = 0x0E,
	UET_SES_MSG_ERROR = 0x0F,
	/* Reference-provider sync extension: decoded so captures can show it;
	 * the SES engine answers it with UNSUPPORTED_OP and never sends it. */
	UET_SES_SYNC_WRITE = 0x10,
	UET_SES_SYNC_ATOMIC = 0x11,
};

/* Request flags, byte 1 of the common fields (docs/protocol.md §5.2). */
#define UET_SES_F_DC		0x20
#define UET_SES_F_IE		0x10
#define UET_SES_F_REL		0x08
#define UET_SES_F_HD		0x04
#define UET_SES_F_EOM		0x02
#define UET_SES_F_SOM		0x01

enum uet_amo_op {
	UET_AMO_MIN = 0x00, UET_AMO_MAX, UET_AMO_SUM, UET_AMO_DIFF,
	UET_AMO_PROD, UET_AMO_LOR, UET_AMO_LAND, UET_AMO_BOR, UET_AMO_BAND,
	UET_AMO_LXOR, UET_AMO_BXOR, UET_AMO_READ, UET_AMO_WRITE,
	UET_AMO_CSWAP, UET_AMO_CSWAP_NE, UET_AMO_CSWAP_LE, UET_AMO_CSWAP_LT,
	UET_AMO_CSWAP_GE, UET_AMO_CSWAP_GT, UET_AMO_MSWAP,
	UET_AMO_INVAL = 0x14,
	UET_AMO_OP_MAX = UET_AMO_INVAL,
};

enum uet_amo_dt {
	UET_AMO_INT8 = 0x00, UET_AMO_UINT8, UET_AMO_INT16, UET_AMO_UINT16,
	UET_AMO_INT32, UET_AMO_UINT32, UET_AMO_INT64, UET_AMO_UINT64,
	UET_AMO_INT128, UET_AMO_UINT128, UET_AMO_FLOAT, UET_AMO_DOUBLE,
	UET_AMO_FLOAT_COMPLEX, UET_AMO_DOUBLE_COMPLEX, UET_AMO_LONG_DOUBLE,
	UET_AMO_LONG_DOUBLE_COMPLEX, UET_AMO_BF16, UET_AMO_FP16 = 0x11,
	UET_AMO_DT_MAX = UET_AMO_FP16,
};

#define UET_AMO_SC_CACHEABLE	0x01
#define UET_AMO_SC_COHERENT	0x02

/* Atomic extension (4 B); for CSWAP..CSWAP_GT and MSWAP the compare-and-swap
 * extension (36 B) adds the two 16-byte operands (MSWAP: compare = mask),
 * for every atomic request opcode (docs/choices.md §10.1, §10.2). */
struct uet_ses_amo_ext {
	uint8_t op;			/* enum uet_amo_op */
	uint8_t dt;			/* enum uet_amo_dt */
	uint8_t semantic_control;	/* UET_AMO_SC_* */
	uint8_t compare[16];
	uint8_t swap[16];
};

/* Rendezvous extension (24 B), WS layout (docs/choices.md §10.4). */
struct uet_ses_rndv_ext {
	uint32_t eager_length;
	uint16_t read_pid_on_fep;	/* 14 bits */
	uint16_t read_resource_index;	/* 12 bits */
	uint64_t read_offset;
	uint64_t read_match_bits;	/* read key */
};

/* Sync extension (4 B, reference provider only). */
struct uet_ses_sync_ext {
	uint16_t group;
	uint16_t count;
};

enum uet_ses_ext {
	UET_SES_EXT_NONE = 0,
	UET_SES_EXT_AMO,
	UET_SES_EXT_CSWAP,
	UET_SES_EXT_RNDV,
	UET_SES_EXT_SYNC,
};

/* A request header: standard (44 B), small (20 B) or medium (32 B), plus the
 * extension its opcode implies. Fields a format lacks must be zero on
 * encode and are zero after decode. */
struct uet_ses_req {
	uint8_t format;			/* UET_NH_REQ_SMALL/MEDIUM/STD */
	uint8_t opcode;			/* enum uet_ses_opcode */
	uint8_t version;		/* 2 bits, 0 */
	uint8_t flags;			/* UET_SES_F_* */
	uint16_t message_id;		/* std */
	uint32_t request_length;	/* 14 bits in small/medium */
	uint8_t ri_generation;
	uint32_t job_id;		/* 24 bits */
	uint16_t pid_on_fep;		/* 12 bits */
	uint16_t resource_index;	/* 12 bits */
	uint64_t buffer_offset;		/* std, small, medium without HD */
	uint32_t initiator;		/* std, medium */
	uint64_t match_bits;		/* memory_key or tag: std, medium */
	uint64_t header_data;		/* std with SOM, medium with HD */
	uint16_t payload_length;	/* std without SOM: 14 bits */
	uint32_t message_offset;	/* std without SOM */
	union {
		struct uet_ses_amo_ext amo;
		struct uet_ses_rndv_ext rndv;
		struct uet_ses_sync_ext sync;
	};
};

enum uet_ses_rsp_opcode {
	UET_SES_DEFAULT_RESPONSE = 0x00,
	UET_SES_RESPONSE = 0x01,
	UET_SES_RESPONSE_W_DATA = 0x02,
	UET_SES_NO_RESPONSE = 0x03,
};

enum uet_ses_list {
	UET_SES_LIST_EXPECTED = 0,
	UET_SES_LIST_OVERFLOW = 1,
};

/* SES return codes (docs/protocol.md §5.9), 6 bits. */
enum uet_ses_rc {
	UET_RC_NULL = 0x00, UET_RC_OK, UET_RC_BAD_GENERATION, UET_RC_DISABLED,
	UET_RC_DISABLED_GEN, UET_RC_NO_MATCH, UET_RC_UNSUPPORTED_OP,
	UET_RC_UNSUPPORTED_SIZE, UET_RC_AT_INVALID, UET_RC_AT_PERM,
	UET_RC_AT_ATS_ERROR, UET_RC_AT_NO_TRANS, UET_RC_AT_OUT_OF_RANGE,
	UET_RC_HOST_POISONED, UET_RC_HOST_UNSUCCESS_CMPL,
	UET_RC_AMO_UNSUPPORTED_OP, UET_RC_AMO_UNSUPPORTED_DT,
	UET_RC_AMO_UNSUPPORTED_SIZE, UET_RC_AMO_UNALIGNED, UET_RC_AMO_FP_NAN,
	UET_RC_AMO_FP_UNDERFLOW, UET_RC_AMO_FP_OVERFLOW, UET_RC_AMO_FP_INEXACT,
	UET_RC_PERM_VIOLATION, UET_RC_OP_VIOLATION, UET_RC_BAD_INDEX,
	UET_RC_BAD_PID, UET_RC_BAD_JOB_ID, UET_RC_BAD_MKEY, UET_RC_BAD_ADDR,
	UET_RC_CANCELLED, UET_RC_UNDELIVERABLE, UET_RC_UNCOR,
	UET_RC_UNCOR_TRNSNT, UET_RC_TOO_LONG, UET_RC_INITIATOR_ERR,
	UET_RC_DROPPED = 0x24,
	UET_RC_MAX = UET_RC_DROPPED,
};

/* A response header: plain (12 B), with data (20 B), small with data (12 B). */
struct uet_ses_rsp {
	uint8_t format;			/* UET_NH_RSP/RSP_DATA/RSP_DATA_SMALL */
	uint8_t list;			/* 2 bits, enum uet_ses_list */
	uint8_t opcode;			/* enum uet_ses_rsp_opcode */
	uint8_t version;		/* 2 bits, 0 */
	uint8_t return_code;		/* enum uet_ses_rc */
	uint16_t message_id;		/* RSP: request's id; RSP_DATA: response id */
	uint8_t ri_generation;		/* RSP only */
	uint32_t job_id;		/* 24 bits */
	uint32_t modified_length;	/* RSP, RSP_DATA */
	uint16_t read_request_message_id; /* RSP_DATA */
	uint16_t payload_length;	/* RSP_DATA, RSP_DATA_SMALL: 14 bits */
	uint32_t message_offset;	/* RSP_DATA */
	uint32_t original_request_psn;	/* RSP_DATA_SMALL */
};

/* ---- Whole packet ---- */

/* uet_pkt_decode flags */
#define UET_PKT_ENTROPY		0x1	/* raw-IP: an entropy header comes first */

struct uet_pkt {
	bool has_entropy;
	struct uet_entropy_hdr entropy;
	bool has_tss;			/* when set, nothing after TSS is decoded */
	struct uet_tss_hdr tss;
	struct uet_pds_hdr pds;
	bool has_req;
	struct uet_ses_req req;
	bool has_rsp;
	struct uet_ses_rsp rsp;
	size_t hdr_len;			/* bytes of headers */
	const uint8_t *payload;		/* after the headers (ciphertext + ICV with TSS) */
	size_t payload_len;
};

/* Each *_decode returns the header length consumed or a UET_ERR_WIRE_*;
 * each *_encode returns the length written or UET_ERR_WIRE_NOSPACE/RANGE. */

int uet_entropy_hdr_decode(struct uet_entropy_hdr *h, const uint8_t *buf, size_t len);
int uet_entropy_hdr_encode(uint8_t *buf, size_t cap, const struct uet_entropy_hdr *h);

int uet_tss_hdr_decode(struct uet_tss_hdr *h, const uint8_t *buf, size_t len);
int uet_tss_hdr_encode(uint8_t *buf, size_t cap, const struct uet_tss_hdr *h);

/* Header length of a PDS type, or UET_ERR_WIRE_TYPE for reserved types and
 * for 1 (TSS, which is not a PDS header). */
int uet_pds_hdr_len(uint8_t type);
/* Whether a PDS type is a RUD or ROD request, with or without CC state:
 * the types whose header is a struct uet_pds_req. */
bool uet_pds_is_req(uint8_t type);
int uet_pds_hdr_decode(struct uet_pds_hdr *h, const uint8_t *buf, size_t len);
/* The same into an *h the caller zeroed, with no copy of its own: on
 * failure *h is partly written (uet_pkt_decode keeps the whole packet's
 * copy instead). */
int uet_pds_hdr_decode_into(struct uet_pds_hdr *h, const uint8_t *buf,
			    size_t len);
int uet_pds_hdr_encode(uint8_t *buf, size_t cap, const struct uet_pds_hdr *h);

/* Which extension a request carries, from its opcode and atomic opcode. */
enum uet_ses_ext uet_ses_req_ext(uint8_t opcode, uint8_t amo_op);
/* Encoded length of a request header with its extension, or
 * UET_ERR_WIRE_RANGE for a format other than UET_NH_REQ_*. */
int uet_ses_req_len(const struct uet_ses_req *h);
/* SES decoders return UET_ERR_WIRE_NEXT_HDR for a format of the other kind. */
int uet_ses_req_decode(struct uet_ses_req *h, uint8_t format, const uint8_t *buf, size_t len);
/* Into a zeroed *h, partly written on failure (uet_pds_hdr_decode_into). */
int uet_ses_req_decode_into(struct uet_ses_req *h, uint8_t format,
			    const uint8_t *buf, size_t len);
int uet_ses_req_encode(uint8_t *buf, size_t cap, const struct uet_ses_req *h);

int uet_ses_rsp_decode(struct uet_ses_rsp *h, uint8_t format, const uint8_t *buf, size_t len);
int uet_ses_rsp_encode(uint8_t *buf, size_t cap, const struct uet_ses_rsp *h);

/* Decode a packet starting at the UDP payload (or, with UET_PKT_ENTROPY, at
 * the IP payload). Payload points into buf. Returns hdr_len or an error:
 * UET_ERR_INVAL for unknown flags, UET_ERR_WIRE_LENGTH when the
 * payload_length of a std request without SOM or of a response with data
 * differs from the bytes after the headers (no trailer is expected; a
 * READ request asks for payload_length bytes and must carry none).
 * The SES header is the one next_hdr names: 1-3 -> req, 4-6 -> rsp, none
 * on CTRL. */
int uet_pkt_decode(struct uet_pkt *p, const uint8_t *buf, size_t len, unsigned flags);
/* The same into a *p the caller zeroed, without a copy of the whole packet:
 * on failure *p is partly written. For a caller that drops such a packet
 * unread (uet_fep_recv). */
int uet_pkt_decode_into(struct uet_pkt *p, const uint8_t *buf, size_t len,
			unsigned flags);
/* The same for a packet whose payload lies apart from its headers (a
 * placed one, uet/net.h): hdr[0 .. hdr_len) must be exactly its headers
 * (UET_ERR_WIRE_LENGTH otherwise), without entropy header or TSS; p's
 * payload is then payload[0 .. payload_len). */
int uet_pkt_decode_sg(struct uet_pkt *p, const uint8_t *hdr, size_t hdr_len,
		      const uint8_t *payload, size_t payload_len);
/* Encode the headers p says are present; returns their length. The caller
 * appends the payload. With has_tss only [entropy +] TSS is written (the
 * rest is ciphertext). has_req/has_rsp must match pds.next_hdr and the
 * SES struct's format, else UET_ERR_WIRE_RANGE. */
int uet_pkt_encode(uint8_t *buf, size_t cap, const struct uet_pkt *p);

/* ---- Names for logs and tools (NULL-safe: unknown -> "RESERVED") ---- */

const char *uet_name_pds_type(unsigned type);
const char *uet_name_next_hdr(unsigned nh);
const char *uet_name_ctl_type(unsigned ctl);
const char *uet_name_nack_code(unsigned code);
const char *uet_name_ses_opcode(unsigned op);
const char *uet_name_rsp_opcode(unsigned op);
const char *uet_name_rc(unsigned rc);
const char *uet_name_amo_op(unsigned op);
const char *uet_name_amo_dt(unsigned dt);
const char *uet_name_cc_type(unsigned cc);

#endif
