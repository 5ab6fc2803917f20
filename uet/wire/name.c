/* Names of wire values for logs and tools: the short names of the tables in
 * docs/protocol.md (§3.1, §3.2, §4.5, §4.7, §5.1, §5.7-§5.9). Values without
 * a name there, and values uet refuses, are "RESERVED"; never NULL.
 */
#include "uet/wire.h"

#define RESERVED	"RESERVED"
#define NELEM(a)	(sizeof(a) / sizeof((a)[0]))

static const char *lookup(const char *const *tab, size_t n, unsigned v)
{
	return v < n && tab[v] ? tab[v] : RESERVED;
}

#define NAME(tab, v)	lookup((tab), NELEM(tab), (v))

static const char *const pds_types[] = {
	[UET_PDS_TYPE_TSS] = "TSS",
	[UET_PDS_RUD_REQ] = "RUD_REQ",
	[UET_PDS_ROD_REQ] = "ROD_REQ",
	[UET_PDS_RUDI_REQ] = "RUDI_REQ",
	[UET_PDS_RUDI_RESP] = "RUDI_RESP",
	[UET_PDS_UUD_REQ] = "UUD_REQ",
	[UET_PDS_ACK] = "ACK",
	[UET_PDS_ACK_CC] = "ACK_CC",
	[UET_PDS_ACK_CCX] = "ACK_CCX",
	[UET_PDS_NACK] = "NACK",
	[UET_PDS_CTRL] = "CTRL",
	[UET_PDS_NACK_CCX] = "NACK_CCX",
	[UET_PDS_RUD_CC_REQ] = "RUD_CC_REQ",
	[UET_PDS_ROD_CC_REQ] = "ROD_CC_REQ",
};

static const char *const next_hdrs[] = {
	[UET_NH_NONE] = "NONE",
	[UET_NH_REQ_SMALL] = "REQUEST_SMALL",
	[UET_NH_REQ_MEDIUM] = "REQUEST_MEDIUM",
	[UET_NH_REQ_STD] = "REQUEST_STD",
	[UET_NH_RSP] = "RESPONSE",
	[UET_NH_RSP_DATA] = "RESPONSE_DATA",
	[UET_NH_RSP_DATA_SMALL] = "RESPONSE_DATA_SMALL",
};

/* 9 (NEGOTIATION) is REF-only and refused by the codec. */
static const char *const ctl_types[] = {
	[UET_CTL_NOOP] = "NOOP",
	[UET_CTL_ACK_REQ] = "ACK_REQ",
	[UET_CTL_CLEAR] = "CLEAR",
	[UET_CTL_CLEAR_REQ] = "CLEAR_REQ",
	[UET_CTL_CLOSE] = "CLOSE",
	[UET_CTL_CLOSE_REQ] = "CLOSE_REQ",
	[UET_CTL_PROBE] = "PROBE",
	[UET_CTL_CREDIT] = "CREDIT",
	[UET_CTL_CREDIT_REQ] = "CREDIT_REQ",
};

static const char *const nack_codes[] = {
	[UET_NACK_TRIMMED] = "TRIMMED",
	[UET_NACK_TRIMMED_LASTHOP] = "TRIMMED_LASTHOP",
	[UET_NACK_TRIMMED_ACK] = "TRIMMED_ACK",
	[UET_NACK_NO_PDC_AVAIL] = "NO_PDC_AVAIL",
	[UET_NACK_NO_CCC_AVAIL] = "NO_CCC_AVAIL",
	[UET_NACK_NO_BITMAP] = "NO_BITMAP",
	[UET_NACK_NO_PKT_BUFFER] = "NO_PKT_BUFFER",
	[UET_NACK_NO_GTD_DEL_AVAIL] = "NO_GTD_DEL_AVAIL",
	[UET_NACK_NO_SES_MSG_AVAIL] = "NO_SES_MSG_AVAIL",
	[UET_NACK_NO_RESOURCE] = "NO_RESOURCE",
	[UET_NACK_PSN_OOR_WINDOW] = "PSN_OOR_WINDOW",
	[UET_NACK_ROD_OOO] = "ROD_OOO",
	[UET_NACK_INV_DPDCID] = "INV_DPDCID",
	[UET_NACK_PDC_HDR_MISMATCH] = "PDC_HDR_MISMATCH",
	[UET_NACK_CLOSING] = "CLOSING",
	[UET_NACK_CLOSING_IN_ERR] = "CLOSING_IN_ERR",
	[UET_NACK_PKT_NOT_RCVD] = "PKT_NOT_RCVD",
	[UET_NACK_GTD_RESP_UNAVAIL] = "GTD_RESP_UNAVAIL",
	[UET_NACK_ACK_WITH_DATA] = "ACK_WITH_DATA",
	[UET_NACK_INVALID_SYN] = "INVALID_SYN",
	[UET_NACK_PDC_MODE_MISMATCH] = "PDC_MODE_MISMATCH",
	[UET_NACK_NEW_START_PSN] = "NEW_START_PSN",
	[UET_NACK_RCVD_SES_PROCG] = "RCVD_SES_PROCG",
	[UET_NACK_UNEXP_EVENT] = "UNEXP_EVENT",
	[UET_NACK_RCVR_INFER_LOSS] = "RCVR_INFER_LOSS",
	[UET_NACK_EXP_NORMAL] = "EXP_NACK_NORMAL",
	[UET_NACK_EXP_ERR] = "EXP_NACK_ERR",
	[UET_NACK_EXP_FATAL] = "EXP_NACK_FATAL",
};

static const char *const ses_opcodes[] = {
	[UET_SES_NO_OP] = "UET_NO_OP",
	[UET_SES_WRITE] = "UET_WRITE",
	[UET_SES_READ] = "UET_READ",
	[UET_SES_ATOMIC] = "UET_ATOMIC",
	[UET_SES_FETCHING_ATOMIC] = "UET_FETCHING_ATOMIC",
	[UET_SES_SEND] = "UET_SEND",
	[UET_SES_RENDEZVOUS_SEND] = "UET_RENDEZVOUS_SEND",
	[UET_SES_DATAGRAM_SEND] = "UET_DATAGRAM_SEND",
	[UET_SES_DEFERRABLE_SEND] = "UET_DEFERRABLE_SEND",
	[UET_SES_TAGGED_SEND] = "UET_TAGGED_SEND",
	[UET_SES_RENDEZVOUS_TSEND] = "UET_RENDEZVOUS_TSEND",
	[UET_SES_DEFERRABLE_TSEND] = "UET_DEFERRABLE_TSEND",
	[UET_SES_DEFERRABLE_RTR] = "UET_DEFERRABLE_RTR",
	[UET_SES_TSEND_ATOMIC] = "UET_TSEND_ATOMIC",
	[UET_SES_TSEND_FETCH_ATOMIC] = "UET_TSEND_FETCH_ATOMIC",
	[UET_SES_MSG_ERROR] = "UET_MSG_ERROR",
	/* REF-only sync extension (docs/protocol.md §5.1): decoded, so
	 * named. */
	[UET_SES_SYNC_WRITE] = "SYNC_WRITE",
	[UET_SES_SYNC_ATOMIC] = "SYNC_ATOMIC",
};

static const char *const rsp_opcodes[] = {
	[UET_SES_DEFAULT_RESPONSE] = "UET_DEFAULT_RESPONSE",
	[UET_SES_RESPONSE] = "UET_RESPONSE",
	[UET_SES_RESPONSE_W_DATA] = "UET_RESPONSE_W_DATA",
	[UET_SES_NO_RESPONSE] = "UET_NO_RESPONSE",
};

static const char *const rcs[] = {
	"RC_NULL", "RC_OK", "BAD_GENERATION", "DISABLED", "DISABLED_GEN",
	"NO_MATCH", "UNSUPPORTED_OP", "UNSUPPORTED_SIZE", "AT_INVALID",
	"AT_PERM", "AT_ATS_ERROR", "AT_NO_TRANS", "AT_OUT_OF_RANGE",
	"HOST_POISONED", "HOST_UNSUCCESS_CMPL", "AMO_UNSUPPORTED_OP",
	"AMO_UNSUPPORTED_DT", "AMO_UNSUPPORTED_SIZE", "AMO_UNALIGNED",
	"AMO_FP_NAN", "AMO_FP_UNDERFLOW", "AMO_FP_OVERFLOW", "AMO_FP_INEXACT",
	"PERM_VIOLATION", "OP_VIOLATION", "BAD_INDEX", "BAD_PID",
	"BAD_JOB_ID", "BAD_MKEY", "BAD_ADDR", "CANCELLED", "UNDELIVERABLE",
	"UNCOR", "UNCOR_TRNSNT", "TOO_LONG", "INITIATOR_ERR", "DROPPED",
};

static const char *const amo_ops[] = {
	"MIN", "MAX", "SUM", "DIFF", "PROD", "LOR", "LAND", "BOR", "BAND",
	"LXOR", "BXOR", "READ", "WRITE", "CSWAP", "CSWAP_NE", "CSWAP_LE",
	"CSWAP_LT", "CSWAP_GE", "CSWAP_GT", "MSWAP", "INVAL",
};

static const char *const amo_dts[] = {
	"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64",
	"UINT64", "INT128", "UINT128", "FLOAT", "DOUBLE", "FLOAT_COMPLEX",
	"DOUBLE_COMPLEX", "LONG_DOUBLE", "LONG_DOUBLE_COMPLEX", "BF16", "FP16",
};

static const char *const cc_types[] = {
	[UET_CC_NSCC] = "NSCC",
	[UET_CC_CREDIT] = "CREDIT",
};

/* The positional tables must end where their enums do. */
_Static_assert(NELEM(rcs) == UET_RC_MAX + 1, "rc names");
_Static_assert(NELEM(amo_ops) == UET_AMO_OP_MAX + 1, "amo op names");
_Static_assert(NELEM(amo_dts) == UET_AMO_DT_MAX + 1, "amo dt names");

const char *uet_name_pds_type(unsigned type)
{
	return NAME(pds_types, type);
}

const char *uet_name_next_hdr(unsigned nh)
{
	return NAME(next_hdrs, nh);
}

const char *uet_name_ctl_type(unsigned ctl)
{
	return NAME(ctl_types, ctl);
}

const char *uet_name_nack_code(unsigned code)
{
	return NAME(nack_codes, code);
}

const char *uet_name_ses_opcode(unsigned op)
{
	return NAME(ses_opcodes, op);
}

const char *uet_name_rsp_opcode(unsigned op)
{
	return NAME(rsp_opcodes, op);
}

const char *uet_name_rc(unsigned rc)
{
	return NAME(rcs, rc);
}

const char *uet_name_amo_op(unsigned op)
{
	return NAME(amo_ops, op);
}

const char *uet_name_amo_dt(unsigned dt)
{
	return NAME(amo_dts, dt);
}

const char *uet_name_cc_type(unsigned cc)
{
	return NAME(cc_types, cc);
}
