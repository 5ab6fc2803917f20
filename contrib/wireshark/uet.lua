-- uet.lua: Wireshark/tshark dissector for Ultra Ethernet Transport (UE 1.0).
--
-- Decodes every header the uet wire codec knows (include/uet/wire.h): the
-- raw-IP entropy header, the TSS header, all PDS packet types and the SES
-- request/response headers with their extensions. Byte layouts follow the
-- protocol as written in docs/protocol.md and the wire decisions of
-- docs/choices.md §10 (TSS is the reference provider's 12/16-byte layout,
-- the rendezvous extension the Wireshark one). Field names are those of
-- uet/tools/FIELDS.md under "uet." so `tshark -T fields -e uet.pds.psn` matches
-- uetdump and uetgen.
--
-- If the running Wireshark already has a built-in "uet" protocol, this
-- script registers itself as "uetlua" (fields "uetlua.*") instead.
--
-- Install and test notes: contrib/wireshark/README.md.

-- Loaded twice (personal plugin dir and -X lua_script:)? Keep the first.
if uet_lua_dissector_loaded then
	return
end
uet_lua_dissector_loaded = true

local NAME = "uet"
do
	local ok, d = pcall(Dissector.get, "uet")
	if ok and d then
		NAME = "uetlua"
	end
end
local DESC = "Ultra Ethernet Transport (uet Lua dissector)"
local ok_proto, uet = pcall(Proto.new, NAME, DESC)
if not ok_proto then
	NAME = "uetlua"
	uet = Proto.new(NAME, DESC .. " [" .. NAME .. "]")
end
-- Raw-IP entry point: same decoder, entropy header first (docs/protocol.md
-- §1.3).
local uet_ip = Proto.new(NAME .. "_ip", "UET over IP (uet Lua dissector)")

local DEFAULT_UDP_PORT = 4793	-- docs/protocol.md §1.2
local DEFAULT_IP_PROTO = 253	-- docs/protocol.md §1.3

-- ---------------------------------------------------------------------
-- Arithmetic helpers: plain numbers only, so the script runs on the Lua
-- 5.2 of Wireshark 4.0 and on the 5.3/5.4 of later releases alike.

local TWO32 = 4294967296

local function psn_add(a, b)
	return (a + b) % TWO32
end

local function bit_set(v, mask)
	return math.floor(v / mask) % 2 == 1
end

-- ---------------------------------------------------------------------
-- Names (docs/protocol.md §3.1, §3.2, §4.5, §4.7, §5.1, §5.7, §5.8, §5.9)

local pds_types = {
	[0] = "RESERVED", [1] = "TSS", [2] = "RUD_REQ", [3] = "ROD_REQ",
	[4] = "RUDI_REQ", [5] = "RUDI_RESP", [6] = "UUD_REQ", [7] = "ACK",
	[8] = "ACK_CC", [9] = "ACK_CCX", [10] = "NACK", [11] = "CTRL",
	[12] = "NACK_CCX", [13] = "RUD_CC_REQ", [14] = "ROD_CC_REQ",
}
for v = 15, 31 do pds_types[v] = "RESERVED" end

local next_hdrs = {
	[0] = "NONE", [1] = "REQUEST_SMALL", [2] = "REQUEST_MEDIUM",
	[3] = "REQUEST_STD", [4] = "RESPONSE", [5] = "RESPONSE_DATA",
	[6] = "RESPONSE_DATA_SMALL",
}
for v = 7, 15 do next_hdrs[v] = "RESERVED" end

local ctl_types = {
	[0] = "NOOP", [1] = "ACK_REQ", [2] = "CLEAR", [3] = "CLEAR_REQ",
	[4] = "CLOSE", [5] = "CLOSE_REQ", [6] = "PROBE", [7] = "CREDIT",
	[8] = "CREDIT_REQ", [9] = "NEGOTIATION (reference provider only)",
}
for v = 10, 15 do ctl_types[v] = "RESERVED" end

local ack_reqs = {
	[0] = "None", [1] = "Request CLEAR", [2] = "Request CLOSE",
	[3] = "Reserved",
}

local cc_types = { [0] = "NSCC", [1] = "Credit" }

local nack_codes = {
	[0x01] = "TRIMMED", [0x02] = "TRIMMED_LASTHOP", [0x03] = "TRIMMED_ACK",
	[0x04] = "NO_PDC_AVAIL", [0x05] = "NO_CCC_AVAIL", [0x06] = "NO_BITMAP",
	[0x07] = "NO_PKT_BUFFER", [0x08] = "NO_GTD_DEL_AVAIL",
	[0x09] = "NO_SES_MSG_AVAIL", [0x0A] = "NO_RESOURCE",
	[0x0B] = "PSN_OOR_WINDOW", [0x0C] = "RESERVED", [0x0D] = "ROD_OOO",
	[0x0E] = "INV_DPDCID", [0x0F] = "PDC_HDR_MISMATCH",
	[0x10] = "CLOSING", [0x11] = "CLOSING_IN_ERR", [0x12] = "PKT_NOT_RCVD",
	[0x13] = "GTD_RESP_UNAVAIL", [0x14] = "ACK_WITH_DATA",
	[0x15] = "INVALID_SYN", [0x16] = "PDC_MODE_MISMATCH",
	[0x17] = "NEW_START_PSN", [0x18] = "RCVD_SES_PROCG",
	[0x19] = "UNEXP_EVENT", [0x1A] = "RCVR_INFER_LOSS",
	[0xFD] = "EXP_NACK_NORMAL", [0xFE] = "EXP_NACK_ERR",
	[0xFF] = "EXP_NACK_FATAL",
}

local ses_opcodes = {
	[0x00] = "NO_OP", [0x01] = "WRITE", [0x02] = "READ", [0x03] = "ATOMIC",
	[0x04] = "FETCHING_ATOMIC", [0x05] = "SEND",
	[0x06] = "RENDEZVOUS_SEND", [0x07] = "DATAGRAM_SEND",
	[0x08] = "DEFERRABLE_SEND", [0x09] = "TAGGED_SEND",
	[0x0A] = "RENDEZVOUS_TSEND", [0x0B] = "DEFERRABLE_TSEND",
	[0x0C] = "DEFERRABLE_RTR", [0x0D] = "TSEND_ATOMIC",
	[0x0E] = "TSEND_FETCH_ATOMIC", [0x0F] = "MSG_ERROR",
	[0x10] = "SYNC_WRITE", [0x11] = "SYNC_ATOMIC",
}
for v = 0x12, 0x2F do ses_opcodes[v] = "RESERVED" end
for v = 0x30, 0x3E do ses_opcodes[v] = "VENDOR" end
ses_opcodes[0x3F] = "EXTENDED"

local rsp_opcodes = {
	[0x00] = "DEFAULT_RESPONSE", [0x01] = "RESPONSE",
	[0x02] = "RESPONSE_W_DATA", [0x03] = "NO_RESPONSE",
}
for v = 0x04, 0x2F do rsp_opcodes[v] = "RESERVED" end
for v = 0x30, 0x3F do rsp_opcodes[v] = "VENDOR" end

local ses_lists = {
	[0] = "EXPECTED", [1] = "OVERFLOW", [2] = "VENDOR", [3] = "VENDOR",
}

local return_codes = {
	[0x00] = "RC_NULL", [0x01] = "RC_OK", [0x02] = "RC_BAD_GENERATION",
	[0x03] = "RC_DISABLED", [0x04] = "RC_DISABLED_GEN",
	[0x05] = "RC_NO_MATCH", [0x06] = "RC_UNSUPPORTED_OP",
	[0x07] = "RC_UNSUPPORTED_SIZE", [0x08] = "RC_AT_INVALID",
	[0x09] = "RC_AT_PERM", [0x0A] = "RC_AT_ATS_ERROR",
	[0x0B] = "RC_AT_NO_TRANS", [0x0C] = "RC_AT_OUT_OF_RANGE",
	[0x0D] = "RC_HOST_POISONED", [0x0E] = "RC_HOST_UNSUCCESS_CMPL",
	[0x0F] = "RC_AMO_UNSUPPORTED_OP", [0x10] = "RC_AMO_UNSUPPORTED_DT",
	[0x11] = "RC_AMO_UNSUPPORTED_SIZE", [0x12] = "RC_AMO_UNALIGNED",
	[0x13] = "RC_AMO_FP_NAN", [0x14] = "RC_AMO_FP_UNDERFLOW",
	[0x15] = "RC_AMO_FP_OVERFLOW", [0x16] = "RC_AMO_FP_INEXACT",
	[0x17] = "RC_PERM_VIOLATION", [0x18] = "RC_OP_VIOLATION",
	[0x19] = "RC_BAD_INDEX", [0x1A] = "RC_BAD_PID", [0x1B] = "RC_BAD_JOB_ID",
	[0x1C] = "RC_BAD_MKEY", [0x1D] = "RC_BAD_ADDR", [0x1E] = "RC_CANCELLED",
	[0x1F] = "RC_UNDELIVERABLE", [0x20] = "RC_UNCOR",
	[0x21] = "RC_UNCOR_TRNSNT", [0x22] = "RC_TOO_LONG",
	[0x23] = "RC_INITIATOR_ERR", [0x24] = "RC_DROPPED",
}
for v = 0x25, 0x2F do return_codes[v] = "RESERVED" end
for v = 0x30, 0x37 do return_codes[v] = "VENDOR" end
for v = 0x38, 0x3D do return_codes[v] = "RESERVED" end
return_codes[0x3E] = "EXTENDED"
return_codes[0x3F] = "RESERVED"

local amo_ops = {
	[0x00] = "MIN", [0x01] = "MAX", [0x02] = "SUM", [0x03] = "DIFF",
	[0x04] = "PROD", [0x05] = "LOR", [0x06] = "LAND", [0x07] = "BOR",
	[0x08] = "BAND", [0x09] = "LXOR", [0x0A] = "BXOR", [0x0B] = "READ",
	[0x0C] = "WRITE", [0x0D] = "CSWAP", [0x0E] = "CSWAP_NE",
	[0x0F] = "CSWAP_LE", [0x10] = "CSWAP_LT", [0x11] = "CSWAP_GE",
	[0x12] = "CSWAP_GT", [0x13] = "MSWAP", [0x14] = "INVAL",
}
for v = 0xE0, 0xFE do amo_ops[v] = "VENDOR" end

local amo_dts = {
	[0x00] = "INT8", [0x01] = "UINT8", [0x02] = "INT16", [0x03] = "UINT16",
	[0x04] = "INT32", [0x05] = "UINT32", [0x06] = "INT64", [0x07] = "UINT64",
	[0x08] = "INT128", [0x09] = "UINT128", [0x0A] = "FLOAT",
	[0x0B] = "DOUBLE", [0x0C] = "FLOAT_COMPLEX", [0x0D] = "DOUBLE_COMPLEX",
	[0x0E] = "LONG_DOUBLE", [0x0F] = "LONG_DOUBLE_COMPLEX",
	[0x10] = "BF16", [0x11] = "FP16",
}
for v = 0xE0, 0xFE do amo_dts[v] = "VENDOR" end

local function name_of(tbl, v)
	return tbl[v] or "RESERVED"
end

-- ---------------------------------------------------------------------
-- Fields. Names without the protocol prefix are those of FIELDS.md; the
-- rest (flag bits, derived PSNs, reserved fields) are extras.

local F = {}
local function field(ctor, name, label, ...)
	F[name] = ctor(NAME .. "." .. name, label, ...)
end
local U8, U16, U24, U32, U64 = ProtoField.uint8, ProtoField.uint16,
	ProtoField.uint24, ProtoField.uint32, ProtoField.uint64
local I16, BOOL, BYTES = ProtoField.int16, ProtoField.bool, ProtoField.bytes
local DEC, HEX, DEC_HEX = base.DEC, base.HEX, base.DEC_HEX

-- Entropy header (docs/protocol.md §1.3)
field(U16, "entropy.entropy", "Entropy", DEC_HEX)
field(U16, "entropy.reserved", "Reserved", HEX)

-- TSS header (docs/protocol.md §2, REF layout)
field(U32, "tss.type", "Type", DEC, pds_types, 0xF8000000)
field(BOOL, "tss.sp", "SSI present (SP)", 32, nil, 0x04000000)
field(U32, "tss.reserved", "Reserved", DEC, nil, 0x02000000)
field(U32, "tss.an", "Association number (AN)", DEC, nil, 0x01000000)
field(U32, "tss.sdi", "Secure domain identifier (SDI)", DEC_HEX, nil, 0x00FFFFFF)
field(U32, "tss.ssi", "Secure source identifier (SSI)", HEX)
field(U16, "tss.epoch", "Epoch", DEC)
field(U64, "tss.tsc", "Transmit security counter (TSC)", DEC)
field(BYTES, "tss.encrypted", "Encrypted payload")
field(BYTES, "tss.icv", "Integrity check value (ICV)")

-- PDS prologue (docs/protocol.md §3)
field(U16, "pds.type", "Type", DEC, pds_types, 0xF800)
field(U16, "pds.next_hdr", "Next header", DEC, next_hdrs, 0x0780)
field(U16, "pds.ctl_type", "Control type", DEC, ctl_types, 0x0780)
field(U16, "pds.flags", "Flags", HEX, nil, 0x007F)
field(BOOL, "pds.flags.epsn", "EPSN (reference provider only)", 16, nil, 0x0040)
field(BOOL, "pds.flags.m", "M (ECN-marked)", 16, nil, 0x0020)
field(BOOL, "pds.flags.isrod", "ISROD (reference provider only)", 16, nil, 0x0020)
field(BOOL, "pds.flags.retx", "RETX (retransmission)", 16, nil, 0x0010)
field(BOOL, "pds.flags.ar", "AR (ACK requested)", 16, nil, 0x0008)
field(BOOL, "pds.flags.p", "P (answers a PROBE)", 16, nil, 0x0008)
field(BOOL, "pds.flags.nt", "NT (RUDI NACK)", 16, nil, 0x0008)
field(BOOL, "pds.flags.syn", "SYN (PDC establishment)", 16, nil, 0x0004)
field(U16, "pds.flags.req", "REQ", DEC, ack_reqs, 0x0006)

-- PDS request, ACK, NACK, CTRL, RUDI (docs/protocol.md §4)
field(I16, "pds.clear_psn_offset", "Clear PSN offset", DEC)
field(U32, "pds.clear_psn", "CLEAR_PSN", DEC)
field(U32, "pds.psn", "PSN", DEC)
field(U16, "pds.spdcid", "Source PDCID", DEC)
field(U16, "pds.dpdcid", "Destination PDCID", DEC)
field(U16, "pds.pdc_info", "PDC info", HEX, nil, 0xF000)
field(BOOL, "pds.pdc_info.use_rsv_pdc", "Use reserved PDC", 16, nil, 0x8000)
field(U16, "pds.psn_offset", "PSN offset", DEC, nil, 0x0FFF)
field(U32, "pds.start_psn", "Start_PSN", DEC)
field(U8, "pds.ccc_id", "CCC ID", DEC)
field(U24, "pds.credit_target", "Credit target", DEC)
field(I16, "pds.ack_psn_offset", "ACK PSN offset", DEC)
field(U32, "pds.ack_psn", "ACK_PSN", DEC)
field(U16, "pds.probe_opaque", "Probe opaque", HEX)
field(U32, "pds.cack_psn", "Cumulative ACK PSN", DEC)
field(U32, "pds.epsn", "Expected PSN (reference provider only)", DEC)
field(U8, "pds.cc_type", "CC type", DEC, nil, 0xF0)
field(U8, "pds.cc_flags", "CC flags", HEX, nil, 0x0F)
field(U8, "pds.mpr", "MPR", DEC)
field(U32, "pds.mp_range", "MP_RANGE (PSNs)", DEC)
field(I16, "pds.sack_psn_offset", "SACK PSN offset", DEC)
field(U32, "pds.sack_base", "SACK base PSN", DEC)
field(U64, "pds.sack_bitmap", "SACK bitmap", HEX)
field(U32, "pds.sacked_psn", "SACKed PSN", DEC)
field(U64, "pds.ack_cc_state", "ACK CC state", HEX)
field(U16, "pds.service_time", "Service time", DEC)
field(BOOL, "pds.restore_cwnd", "Restore cwnd", 8, nil, 0x80)
field(U8, "pds.rcv_cwnd_pend", "Receive cwnd pending", DEC, nil, 0x7F)
field(U24, "pds.rcvd_bytes", "Received bytes", DEC)
field(U24, "pds.credit", "Credit", DEC)
field(U24, "pds.cc_reserved", "Reserved", HEX)
field(U16, "pds.ooo_count", "Out-of-order count", DEC)
field(BYTES, "pds.ccx_state", "Extended CC state")
field(U8, "pds.nack_code", "NACK code", HEX, nack_codes)
field(U8, "pds.vendor_code", "Vendor code", HEX)
field(U32, "pds.nack_psn", "NACK PSN", DEC)
field(U32, "pds.payload", "Payload", DEC)
field(U8, "pds.nccx_type", "NCCX type", DEC, nil, 0xF0)
field(U64, "pds.nccx_state1", "NCCX state 1", HEX)
field(U64, "pds.nccx_state2", "NCCX state 2", HEX)
field(U32, "pds.pkt_id", "Packet ID", HEX)
field(U16, "pds.reserved", "Reserved", HEX)

-- SES request (docs/protocol.md §5.2-§5.6)
field(U8, "ses.reserved", "Reserved", HEX, nil, 0xC0)
field(U8, "ses.opcode", "Opcode", HEX, ses_opcodes, 0x3F)
field(U8, "ses.version", "Version", DEC, nil, 0xC0)
field(U8, "ses.flags", "Flags", HEX, nil, 0x3F)
field(BOOL, "ses.flags.dc", "DC (delivery complete)", 8, nil, 0x20)
field(BOOL, "ses.flags.ie", "IE (initiator error)", 8, nil, 0x10)
field(BOOL, "ses.flags.rel", "REL (relative addressing)", 8, nil, 0x08)
field(BOOL, "ses.flags.hd", "HD (header data present)", 8, nil, 0x04)
field(BOOL, "ses.flags.eom", "EOM (end of message)", 8, nil, 0x02)
field(BOOL, "ses.flags.som", "SOM (start of message)", 8, nil, 0x01)
field(U16, "ses.message_id", "Message ID", DEC)
field(U32, "ses.request_length", "Request length", DEC)
field(U8, "ses.ri_generation", "Resource index generation", DEC)
field(U24, "ses.job_id", "JobID", DEC)
field(U16, "ses.pid_on_fep", "PID on FEP", DEC, nil, 0x0FFF)
field(U16, "ses.resource_index", "Resource index", DEC, nil, 0x0FFF)
field(U64, "ses.buffer_offset", "Buffer offset", DEC)
field(U32, "ses.initiator", "Initiator", HEX)
field(U64, "ses.match_bits", "Memory key / match bits", HEX)
field(U64, "ses.header_data", "Header data", HEX)
field(U16, "ses.payload_length", "Payload length", DEC, nil, 0x3FFF)
field(U32, "ses.message_offset", "Message offset", DEC)
field(U32, "ses.initiator_token", "Initiator restart token", HEX)
field(U32, "ses.target_token", "Target restart token", HEX)
field(U8, "ses.amo_op", "Atomic opcode", HEX, amo_ops)
field(U8, "ses.amo_dt", "Atomic datatype", HEX, amo_dts)
field(U8, "ses.semantic_control", "Semantic control", HEX)
field(BOOL, "ses.semantic_control.cacheable", "Cacheable", 8, nil, 0x01)
field(BOOL, "ses.semantic_control.coherent", "CPU-coherent", 8, nil, 0x02)
field(U8, "ses.amo_reserved", "Reserved", HEX)
field(BYTES, "ses.compare", "Compare value (MSWAP: mask)")
field(BYTES, "ses.swap", "Swap value")
field(U32, "ses.eager_length", "Eager length", DEC)
field(U16, "ses.read_pid_on_fep", "Read PID on FEP", DEC, nil, 0x3FFF)
field(U16, "ses.read_resource_index", "Read resource index", DEC, nil, 0x0FFF)
field(U64, "ses.read_offset", "Read offset", DEC)
field(U64, "ses.read_match_bits", "Read match bits", HEX)
field(U16, "ses.sync_group", "Sync group", DEC)
field(U16, "ses.sync_count", "Sync count", DEC)

-- SES response (docs/protocol.md §5.8-§5.10)
field(U8, "ses.list", "List", DEC, ses_lists, 0xC0)
field(U8, "ses.rsp_opcode", "Response opcode", HEX, rsp_opcodes, 0x3F)
field(U8, "ses.return_code", "Return code", HEX, return_codes, 0x3F)
field(U32, "ses.modified_length", "Modified length", DEC)
field(U16, "ses.read_request_message_id", "Read request message ID", DEC)
field(U32, "ses.original_request_psn", "Original request PSN", DEC)

-- Payload and optional trailer (docs/protocol.md §1.5)
field(BYTES, "payload", "Payload")
field(U32, "payload_length", "Payload length", DEC)
field(U32, "crc", "UET CRC", HEX)

local fields = {}
for _, f in pairs(F) do
	fields[#fields + 1] = f
end
uet.fields = fields

-- Expert info. Group MALFORMED also sets _ws.malformed on the frame.
local E = {}
local function add_expert(name, text, group, sev)
	E[name] = ProtoExpert.new(NAME .. ".expert." .. name, text, group, sev)
end
local G, S = expert.group, expert.severity
add_expert("truncated", "Truncated header", G.MALFORMED, S.ERROR)
add_expert("bad_type", "Reserved PDS type", G.MALFORMED, S.ERROR)
add_expert("bad_next_hdr", "next_hdr not allowed for this PDS type", G.MALFORMED, S.ERROR)
add_expert("bad_ctl_type", "Reserved control packet type", G.MALFORMED, S.ERROR)
add_expert("lua_error", "Dissector error", G.MALFORMED, S.ERROR)
add_expert("reserved", "Reserved bits or value set", G.PROTOCOL, S.WARN)
add_expert("bad_opcode", "Reserved SES opcode or code", G.PROTOCOL, S.WARN)
add_expert("bad_version", "SES version other than 0", G.PROTOCOL, S.WARN)
add_expert("bad_length", "Length field disagrees with the packet", G.PROTOCOL, S.WARN)
add_expert("ref_only", "Reference-provider extension, not in UE 1.0.1", G.PROTOCOL, S.NOTE)
local experts = {}
for _, e in pairs(E) do
	experts[#experts + 1] = e
end
uet.experts = experts

-- Preferences
uet.prefs.udp_port = Pref.uint("UDP port", DEFAULT_UDP_PORT,
	"UDP destination port of UET (4793; 49150 for an unmodified uet-ref-prov)")
uet.prefs.ip_proto = Pref.uint("IP protocol", DEFAULT_IP_PROTO,
	"IPv4 protocol / IPv6 next header of raw-IP UET (entropy header first)")
uet.prefs.tss_cleartext = Pref.bool("Decode headers after TSS", false,
	"Treat the bytes after a TSS header as cleartext (e.g. a null cipher) and decode them")
uet.prefs.crc_trailer = Pref.bool("UET CRC trailer", false,
	"Packets without TSS end in a 4-byte CRC32C (uet itself never sends one)")

-- ---------------------------------------------------------------------
-- Dissection state for one packet.

local Pkt = {}
Pkt.__index = Pkt

local function new_pkt(tvb, pinfo, root)
	return setmetatable({ tvb = tvb, pinfo = pinfo, root = root,
		info = {}, errors = {}, trailer = 0 }, Pkt)
end

function Pkt:avail(off)
	return self.tvb:len() - self.trailer - off
end

function Pkt:note(s)
	self.info[#self.info + 1] = s
end

-- Expert item on `tree`, over the bytes from off (if any).
function Pkt:expert(tree, e, text, off, len)
	local tvb = self.tvb
	if off and off < tvb:len() then
		if not len or off + len > tvb:len() then
			len = tvb:len() - off
		end
		tree:add_tvb_expert_info(e, tvb(off, len), text)
	else
		tree:add_proto_expert_info(e, text)
	end
end

function Pkt:error(tree, e, text, off, len)
	self:expert(tree, e, text, off, len)
	self.errors[#self.errors + 1] = text
end

-- True when `n` header bytes are there at `off`; otherwise flags it.
function Pkt:need(tree, off, n, what)
	local have = self:avail(off)
	if have >= n then
		return true
	end
	if have < 0 then
		have = 0
	end
	self:error(tree, E.truncated, string.format(
		"Truncated %s header: %d bytes needed, %d present", what, n, have),
		off)
	return false
end

-- ---------------------------------------------------------------------
-- PDS (docs/protocol.md §3, §4)

local PDS_LEN = {
	[2] = 12, [3] = 12, [4] = 8, [5] = 8, [6] = 4, [7] = 12, [8] = 32,
	[9] = 40, [10] = 16, [11] = 16, [12] = 32, [13] = 16, [14] = 16,
}

-- next_hdr values allowed per type (docs/protocol.md §3.2, REF-PARSE rules).
local REQ_NH = { [1] = true, [2] = true, [3] = true, [5] = true, [6] = true }
local FWD_NH = { [1] = true, [2] = true, [3] = true }
local RSP_NH = { [4] = true, [5] = true, [6] = true }
local ACK_NH = { [0] = true, [4] = true, [5] = true, [6] = true }
local NONE_NH = { [0] = true }
local NH_OK = {
	[2] = REQ_NH, [3] = REQ_NH, [13] = REQ_NH, [14] = REQ_NH,
	[4] = FWD_NH, [5] = RSP_NH, [6] = FWD_NH,
	[7] = ACK_NH, [8] = ACK_NH, [9] = ACK_NH,
	[10] = NONE_NH, [12] = NONE_NH,
}

local function is_req(t) return t == 2 or t == 3 or t == 13 or t == 14 end
local function is_ack(t) return t == 7 or t == 8 or t == 9 end
local function is_nack(t) return t == 10 or t == 12 end

-- Flag bits per type (docs/protocol.md §3.3): { mask, field, short name [, only
-- on this type] } and the reserved mask.
local FLAGS = {
	req = { bits = { { 0x10, "retx", "RETX" }, { 0x08, "ar", "AR" },
		{ 0x04, "syn", "SYN" } }, rsvd = 0x63 },
	ack = { bits = { { 0x40, "epsn", "EPSN", 7 }, { 0x20, "m", "M" },
		{ 0x10, "retx", "RETX" }, { 0x08, "p", "P" } }, rsvd = 0x01 },
	nack = { bits = { { 0x20, "m", "M" }, { 0x10, "retx", "RETX" },
		{ 0x08, "nt", "NT" } }, rsvd = 0x47 },
	ctrl = { bits = { { 0x20, "isrod", "ISROD" }, { 0x10, "retx", "RETX" },
		{ 0x08, "ar", "AR" }, { 0x04, "syn", "SYN" } }, rsvd = 0x43 },
	rudi_req = { bits = { { 0x10, "retx", "RETX" } }, rsvd = 0x6F },
	rudi_resp = { bits = { { 0x20, "m", "M" }, { 0x10, "retx", "RETX" } },
		rsvd = 0x4F },
	uud = { bits = {}, rsvd = 0x7F },
}

local function flag_kind(t)
	if is_req(t) then return "req" end
	if is_ack(t) then return "ack" end
	if is_nack(t) then return "nack" end
	if t == 11 then return "ctrl" end
	if t == 4 then return "rudi_req" end
	if t == 5 then return "rudi_resp" end
	return "uud"
end

function Pkt:pds_flags(pt, off, t, flags)
	local tvb = self.tvb
	local fi = pt:add(F["pds.flags"], tvb(off, 2))
	local spec = FLAGS[flag_kind(t)]
	local names = {}
	for _, b in ipairs(spec.bits) do
		if not b[4] or b[4] == t then
			fi:add(F["pds.flags." .. b[2]], tvb(off, 2))
			if bit_set(flags, b[1]) then
				names[#names + 1] = b[3]
			end
		end
	end
	if is_ack(t) then
		fi:add(F["pds.flags.req"], tvb(off, 2))
		local req = math.floor(flags / 2) % 4
		if req ~= 0 then
			names[#names + 1] = "REQ_" .. (req == 1 and "CLEAR" or
				req == 2 and "CLOSE" or "RSVD")
		end
		if req == 3 then
			self:expert(fi, E.reserved, "ACK REQ value 3 is reserved", off, 2)
		end
		if t ~= 7 and bit_set(flags, 0x40) then
			self:expert(fi, E.reserved, "Reserved flag 0x40 set", off, 2)
		end
	end
	local rsvd = 0
	for m = 0, 6 do
		local v = 2 ^ m
		if bit_set(spec.rsvd, v) and bit_set(flags, v) then
			rsvd = rsvd + v
		end
	end
	if rsvd ~= 0 then
		self:expert(fi, E.reserved, string.format(
			"Reserved flag bits 0x%02x set", rsvd), off, 2)
	end
	if #names > 0 then
		fi:append_text(" (" .. table.concat(names, ", ") .. ")")
		self:note("[" .. table.concat(names, ",") .. "]")
	end
end

-- dpdcid, or pdc_info/psn_offset when SYN is set (docs/protocol.md §4.1, §4.7).
function Pkt:pds_dpdcid(pt, off, psn, syn)
	local tvb = self.tvb
	if not syn then
		pt:add(F["pds.dpdcid"], tvb(off + 10, 2))
		self:note("dpdcid=" .. tvb(off + 10, 2):uint())
		return
	end
	local w = tvb(off + 10, 2):uint()
	local info = math.floor(w / 4096)
	local pso = w % 4096
	local ii = pt:add(F["pds.pdc_info"], tvb(off + 10, 2))
	ii:add(F["pds.pdc_info.use_rsv_pdc"], tvb(off + 10, 2))
	if info ~= 0 then
		-- docs/choices.md §10.4: uet never asks for a reserved PDC; bit
		-- 15 (WS, XDP2) and bit 12 (REF) are both "use_rsv_pdc".
		self:expert(ii, E.reserved, string.format(
			"pdc_info 0x%x: reserved PDC requested (unsupported by uet)", info),
			off + 10, 2)
	end
	pt:add(F["pds.psn_offset"], tvb(off + 10, 2))
	pt:add(F["pds.start_psn"], tvb(off + 10, 2), psn_add(psn, -pso)):set_generated()
	self:note("start_psn=" .. psn_add(psn, -pso))
end

function Pkt:pds_req(pt, off, t, flags)
	local tvb = self.tvb
	local cpo = tvb(off + 2, 2):int()
	local psn = tvb(off + 4, 4):uint()
	pt:add(F["pds.clear_psn_offset"], tvb(off + 2, 2))
	pt:add(F["pds.psn"], tvb(off + 4, 4))
	pt:add(F["pds.clear_psn"], tvb(off + 2, 2), psn_add(psn, cpo)):set_generated()
	pt:add(F["pds.spdcid"], tvb(off + 8, 2))
	self:note("psn=" .. psn .. " spdcid=" .. tvb(off + 8, 2):uint())
	self:pds_dpdcid(pt, off, psn, bit_set(flags, 0x04))
	if t == 13 or t == 14 then
		pt:add(F["pds.ccc_id"], tvb(off + 12, 1))
		pt:add(F["pds.credit_target"], tvb(off + 13, 3))
	end
end

function Pkt:sack(pt, off, cack)
	local tvb = self.tvb
	local so = tvb(off + 14, 2):int()
	local base = psn_add(cack, so)
	pt:add(F["pds.sack_psn_offset"], tvb(off + 14, 2))
	pt:add(F["pds.sack_base"], tvb(off + 14, 2), base):set_generated()
	-- Bit i (LSB = 0) <-> PSN sack_base + i (docs/choices.md §10.4).
	local bi = pt:add(F["pds.sack_bitmap"], tvb(off + 16, 8))
	local hi = tvb(off + 16, 4):uint()
	local lo = tvb(off + 20, 4):uint()
	local n = 0
	for i = 0, 63 do
		local word = i < 32 and lo or hi
		if bit_set(word, 2 ^ (i % 32)) then
			bi:add(F["pds.sacked_psn"], tvb(off + 16, 8),
				psn_add(base, i)):set_generated()
			n = n + 1
		end
	end
	self:note("sack_base=" .. base .. " sacked=" .. n)
end

function Pkt:pds_ack(pt, off, t, flags, nh)
	local tvb = self.tvb
	local cack = tvb(off + 4, 4):uint()
	if bit_set(flags, 0x08) then
		pt:add(F["pds.probe_opaque"], tvb(off + 2, 2))
		self:note(string.format("probe_opaque=0x%04x", tvb(off + 2, 2):uint()))
	else
		local apo = tvb(off + 2, 2):int()
		pt:add(F["pds.ack_psn_offset"], tvb(off + 2, 2))
		pt:add(F["pds.ack_psn"], tvb(off + 2, 2), psn_add(cack, apo)):set_generated()
		self:note("ack_psn=" .. psn_add(cack, apo))
	end
	pt:add(F["pds.cack_psn"], tvb(off + 4, 4))
	pt:add(F["pds.spdcid"], tvb(off + 8, 2))
	pt:add(F["pds.dpdcid"], tvb(off + 10, 2))
	self:note("cack_psn=" .. cack)
	if t == 8 or t == 9 then
		local ct = tvb(off + 12, 1):bitfield(0, 4)
		local ci = pt:add(F["pds.cc_type"], tvb(off + 12, 1))
		pt:add(F["pds.cc_flags"], tvb(off + 12, 1))
		local mpr = tvb(off + 13, 1):uint()
		pt:add(F["pds.mpr"], tvb(off + 13, 1))
		-- REF encoding: units of 128 PSNs (docs/choices.md §10.4).
		pt:add(F["pds.mp_range"], tvb(off + 13, 1), mpr * 128):set_generated()
		self:sack(pt, off, cack)
		if t == 8 then
			ci:append_text(" (" .. (cc_types[ct] or "RESERVED") .. ")")
			local st = pt:add(F["pds.ack_cc_state"], tvb(off + 24, 8))
			if ct == 0 then
				local sv = tvb(off + 24, 2):uint()
				st:add(F["pds.service_time"], tvb(off + 24, 2)):append_text(
					" (" .. sv * 128 .. " ns in uet's 128 ns units)")
				st:add(F["pds.restore_cwnd"], tvb(off + 26, 1))
				st:add(F["pds.rcv_cwnd_pend"], tvb(off + 26, 1))
				st:add(F["pds.rcvd_bytes"], tvb(off + 27, 3))
				st:add(F["pds.ooo_count"], tvb(off + 30, 2))
			elseif ct == 1 then
				st:add(F["pds.credit"], tvb(off + 24, 3))
				st:add(F["pds.cc_reserved"], tvb(off + 27, 3))
				st:add(F["pds.ooo_count"], tvb(off + 30, 2))
			else
				self:expert(ci, E.reserved, "Reserved cc_type " .. ct,
					off + 12, 1)
			end
			self:note("cc=" .. (cc_types[ct] or ct))
		else
			ci:append_text(" (CCX type)")
			pt:add(F["pds.ccx_state"], tvb(off + 24, 16))
			self:note("ccx_type=" .. ct)
		end
	elseif bit_set(flags, 0x40) then
		-- REF 0-RTT closing ACK: 4 more bytes with the expected PSN
		-- (docs/protocol.md §4.10).
		if nh ~= 0 then
			self:expert(pt, E.reserved, "EPSN flag on an ACK carrying SES", off, 2)
		elseif self:need(pt, off + 12, 4, "EPSN payload") then
			pt:add(F["pds.epsn"], tvb(off + 12, 4))
			self:expert(pt, E.ref_only, "Closing ACK with expected PSN (EPSN)",
				off + 12, 4)
			return 16
		end
	end
	return PDS_LEN[t]
end

function Pkt:pds_nack(pt, off, t, flags)
	local tvb = self.tvb
	local code = tvb(off + 2, 1):uint()
	local ci = pt:add(F["pds.nack_code"], tvb(off + 2, 1))
	if not nack_codes[code] or code == 0x0C then
		self:expert(ci, E.bad_opcode, string.format(
			"Reserved NACK code 0x%02x", code), off + 2, 1)
	end
	pt:add(F["pds.vendor_code"], tvb(off + 3, 1))
	self:note(name_of(nack_codes, code))
	local pi = pt:add(F["pds.nack_psn"], tvb(off + 4, 4))
	local v = tvb(off + 4, 4):uint()
	-- NT switches the meaning of the PSN slot (docs/protocol.md §4.5).
	if bit_set(flags, 0x08) then
		pi:set_text(string.format("NACK packet ID: 0x%08x", v))
		self:note(string.format("pkt_id=0x%08x", v))
	else
		self:note("psn=" .. v)
	end
	pt:add(F["pds.spdcid"], tvb(off + 8, 2))
	pt:add(F["pds.dpdcid"], tvb(off + 10, 2))
	local pl = pt:add(F["pds.payload"], tvb(off + 12, 4))
	if code == 0x17 then
		pl:append_text(" (new Start_PSN)")
	end
	if t == 12 then
		pt:add(F["pds.nccx_type"], tvb(off + 16, 1))
		pt:add(F["pds.nccx_state1"], tvb(off + 16, 8),
			tvb(off + 16, 8):bitfield(4, 60))
		pt:add(F["pds.nccx_state2"], tvb(off + 24, 8))
	end
end

local CTRL_PAYLOAD = {
	[1] = "message ID in the low 16 bits", [2] = "CLEAR_PSN",
	[3] = "PSN to clear", [6] = "SACK base PSN",
	-- uet: 24-bit cumulative counts of 256-byte quanta (uet/cms/rccc.c)
	[7] = "credit granted, cumulative 256-byte quanta",
	[8] = "credit wanted, cumulative 256-byte quanta",
}

function Pkt:pds_ctrl(pt, off, ctl, flags)
	local tvb = self.tvb
	local po = pt:add(F["pds.probe_opaque"], tvb(off + 2, 2))
	if ctl ~= 6 then
		po:append_text(" (reserved unless PROBE)")
	end
	local psn = tvb(off + 4, 4):uint()
	pt:add(F["pds.psn"], tvb(off + 4, 4))
	pt:add(F["pds.spdcid"], tvb(off + 8, 2))
	self:note("psn=" .. psn .. " spdcid=" .. tvb(off + 8, 2):uint())
	self:pds_dpdcid(pt, off, psn, bit_set(flags, 0x04))
	local pl = pt:add(F["pds.payload"], tvb(off + 12, 4))
	if CTRL_PAYLOAD[ctl] then
		pl:append_text(" (" .. CTRL_PAYLOAD[ctl] .. ")")
	end
	if bit_set(flags, 0x20) then
		self:expert(pt, E.ref_only, "CTRL ISROD flag", off, 2)
	end
end

-- Returns the PDS header length, or nil when nothing after it can be
-- decoded; second value is the next_hdr to follow.
function Pkt:pds(off)
	local tvb, root = self.tvb, self.root
	if not self:need(root, off, 2, "PDS") then
		return nil
	end
	local w = tvb(off, 2):uint()
	local t = math.floor(w / 2048)
	local nh = math.floor(w / 128) % 16
	local flags = w % 128
	local tname = name_of(pds_types, t)
	local len = PDS_LEN[t]
	local avail = self:avail(off)
	local pt = root:add(tvb(off, math.min(len or 2, avail)),
		"Packet Delivery Sublayer (PDS): " .. tname)
	local ti = pt:add(F["pds.type"], tvb(off, 2))
	self:note(tname)
	if not len then
		self:error(ti, E.bad_type, "Reserved PDS type " .. t, off, 2)
		return nil
	end
	if t == 11 then
		local ci = pt:add(F["pds.ctl_type"], tvb(off, 2))
		self:note(name_of(ctl_types, nh))
		if nh == 9 then
			self:expert(ci, E.ref_only, "CTRL NEGOTIATION", off, 2)
		elseif nh > 9 then
			self:error(ci, E.bad_ctl_type, "Reserved ctl_type " .. nh, off, 2)
		end
	else
		local ni = pt:add(F["pds.next_hdr"], tvb(off, 2))
		if not NH_OK[t][nh] then
			self:error(ni, E.bad_next_hdr, string.format(
				"next_hdr %d (%s) not allowed on %s", nh,
				name_of(next_hdrs, nh), tname), off, 2)
		end
	end
	self:pds_flags(pt, off, t, flags)
	if not self:need(pt, off, len, tname) then
		return nil
	end
	if is_req(t) then
		self:pds_req(pt, off, t, flags)
	elseif is_ack(t) then
		len = self:pds_ack(pt, off, t, flags, nh)
	elseif is_nack(t) then
		self:pds_nack(pt, off, t, flags)
	elseif t == 11 then
		self:pds_ctrl(pt, off, nh, flags)
		nh = 0
	else
		-- RUDI and UUD: 16 reserved bits, then RUDI's packet id
		-- (docs/protocol.md §4.8, §4.9)
		local ri = pt:add(F["pds.reserved"], tvb(off + 2, 2))
		if tvb(off + 2, 2):uint() ~= 0 then
			self:expert(ri, E.reserved, "Reserved PDS field not 0", off + 2, 2)
		end
		if t == 4 or t == 5 then
			pt:add(F["pds.pkt_id"], tvb(off + 4, 4))
			self:note(string.format("pkt_id=0x%08x", tvb(off + 4, 4):uint()))
		end
	end
	if t ~= 11 and nh ~= 0 and not NH_OK[t][nh] then
		return nil
	end
	pt:set_len(len)
	return len, nh
end

-- ---------------------------------------------------------------------
-- SES (docs/protocol.md §5)

local SES_LEN = { [1] = 20, [2] = 32, [3] = 44, [4] = 12, [5] = 20, [6] = 12 }
local SES_FMT = { [1] = "small request", [2] = "medium request",
	[3] = "standard request", [4] = "response",
	[5] = "response with data", [6] = "small response with data" }

local function amo_opcode(op)
	return op == 0x03 or op == 0x04 or op == 0x0D or op == 0x0E
end

function Pkt:ses_flags(st, off)
	local tvb = self.tvb
	local fi = st:add(F["ses.flags"], tvb(off + 1, 1))
	local names = {}
	for _, b in ipairs({ { "dc", "DC", 0x20 }, { "ie", "IE", 0x10 },
			{ "rel", "REL", 0x08 }, { "hd", "HD", 0x04 },
			{ "eom", "EOM", 0x02 }, { "som", "SOM", 0x01 } }) do
		fi:add(F["ses.flags." .. b[1]], tvb(off + 1, 1))
		if bit_set(tvb(off + 1, 1):uint(), b[3]) then
			names[#names + 1] = b[2]
		end
	end
	if #names > 0 then
		fi:append_text(" (" .. table.concat(names, ", ") .. ")")
	end
	return names
end

function Pkt:ses_version(st, off)
	local tvb = self.tvb
	local vi = st:add(F["ses.version"], tvb(off + 1, 1))
	local v = tvb(off + 1, 1):bitfield(0, 2)
	if v ~= 0 then
		self:expert(vi, E.bad_version, "SES version " .. v, off + 1, 1)
	end
end

-- Deferrable sends carry restart tokens in a 64-bit slot (docs/protocol.md
-- §5.3).
function Pkt:tokens(item, off)
	item:add(F["ses.initiator_token"], self.tvb(off, 4))
	item:add(F["ses.target_token"], self.tvb(off + 4, 4))
end

-- Extension header after the request; returns its length or nil.
function Pkt:ses_ext(st, off, op)
	local tvb = self.tvb
	if amo_opcode(op) then
		if not self:need(st, off, 4, "atomic extension") then
			return nil
		end
		local aop = tvb(off, 1):uint()
		local dt = tvb(off + 1, 1):uint()
		local sc = tvb(off + 2, 1):uint()
		local cswap = aop >= 0x0D and aop <= 0x13
		local elen = cswap and 36 or 4
		local et = st:add(tvb(off, math.min(elen, self:avail(off))),
			cswap and "Compare-and-swap extension" or "Atomic extension")
		local oi = et:add(F["ses.amo_op"], tvb(off, 1))
		if not amo_ops[aop] then
			self:expert(oi, E.bad_opcode, string.format(
				"Reserved atomic opcode 0x%02x", aop), off, 1)
		end
		local di = et:add(F["ses.amo_dt"], tvb(off + 1, 1))
		if not amo_dts[dt] then
			self:expert(di, E.bad_opcode, string.format(
				"Reserved atomic datatype 0x%02x", dt), off + 1, 1)
		end
		local si = et:add(F["ses.semantic_control"], tvb(off + 2, 1))
		si:add(F["ses.semantic_control.cacheable"], tvb(off + 2, 1))
		si:add(F["ses.semantic_control.coherent"], tvb(off + 2, 1))
		if sc >= 4 then
			self:expert(si, E.reserved, "Reserved semantic-control bits",
				off + 2, 1)
		end
		local ai = et:add(F["ses.amo_reserved"], tvb(off + 3, 1))
		if tvb(off + 3, 1):uint() ~= 0 then
			self:expert(ai, E.reserved, "Reserved atomic byte not 0", off + 3, 1)
		end
		self:note(name_of(amo_ops, aop) .. "/" .. name_of(amo_dts, dt))
		if cswap then
			if not self:need(et, off, 36, "compare-and-swap extension") then
				return nil
			end
			et:add(F["ses.compare"], tvb(off + 4, 16))
			et:add(F["ses.swap"], tvb(off + 20, 16))
		end
		return elen
	elseif op == 0x06 or op == 0x0A then
		if not self:need(st, off, 24, "rendezvous extension") then
			return nil
		end
		-- WS layout (docs/choices.md §10.4): 14-bit PID, 12-bit index.
		local et = st:add(tvb(off, 24), "Rendezvous extension")
		et:add(F["ses.eager_length"], tvb(off, 4))
		et:add(F["ses.read_pid_on_fep"], tvb(off + 4, 2))
		et:add(F["ses.read_resource_index"], tvb(off + 6, 2))
		et:add(F["ses.read_offset"], tvb(off + 8, 8))
		et:add(F["ses.read_match_bits"], tvb(off + 16, 8))
		if tvb(off + 4, 1):bitfield(0, 2) ~= 0 or
				tvb(off + 6, 1):bitfield(0, 4) ~= 0 then
			self:expert(et, E.reserved, "Reserved rendezvous bits set",
				off + 4, 4)
		end
		self:note("eager=" .. tvb(off, 4):uint())
		return 24
	elseif op == 0x10 or op == 0x11 then
		if not self:need(st, off, 4, "sync extension") then
			return nil
		end
		local et = st:add(tvb(off, 4), "Sync extension")
		et:add(F["ses.sync_group"], tvb(off, 2))
		et:add(F["ses.sync_count"], tvb(off + 2, 2))
		return 4
	end
	return 0
end

function Pkt:ses_req(st, off, nh)
	local tvb = self.tvb
	local op = tvb(off, 1):bitfield(2, 6)
	local fl = tvb(off + 1, 1):uint() % 64
	local som = bit_set(fl, 0x01)
	local hd = bit_set(fl, 0x04)
	local ri = st:add(F["ses.reserved"], tvb(off, 1))
	if tvb(off, 1):bitfield(0, 2) ~= 0 then
		self:expert(ri, E.reserved, "Reserved opcode bits set", off, 1)
	end
	local oi = st:add(F["ses.opcode"], tvb(off, 1))
	local oname = name_of(ses_opcodes, op)
	if oname == "RESERVED" then
		self:expert(oi, E.bad_opcode, string.format(
			"Reserved SES opcode 0x%02x", op), off, 1)
	elseif op == 0x10 or op == 0x11 then
		self:expert(oi, E.ref_only, "SES " .. oname .. " opcode", off, 1)
	end
	self:ses_version(st, off)
	local names = self:ses_flags(st, off)
	self:note(oname)
	if nh == 3 then
		st:add(F["ses.message_id"], tvb(off + 2, 2))
		self:note("msg_id=" .. tvb(off + 2, 2):uint())
	else
		local rl = tvb(off + 2, 2):uint()
		st:add(F["ses.request_length"], tvb(off + 2, 2), rl % 16384)
		if rl >= 16384 then
			self:expert(st, E.reserved, "Reserved request_length bits", off + 2, 2)
		end
		self:note("len=" .. rl % 16384)
	end
	st:add(F["ses.ri_generation"], tvb(off + 4, 1))
	st:add(F["ses.job_id"], tvb(off + 5, 3))
	st:add(F["ses.pid_on_fep"], tvb(off + 8, 2))
	st:add(F["ses.resource_index"], tvb(off + 10, 2))
	local deferrable = op == 0x08 or op == 0x0B
	if nh == 3 then
		local bo = st:add(F["ses.buffer_offset"], tvb(off + 12, 8))
		if deferrable then
			self:tokens(bo, off + 12)
		end
		st:add(F["ses.initiator"], tvb(off + 20, 4))
		local mk = st:add(F["ses.match_bits"], tvb(off + 24, 8))
		if op == 0x0C then
			self:tokens(mk, off + 24)
		end
		if som then
			st:add(F["ses.header_data"], tvb(off + 32, 8))
		else
			st:add(F["ses.payload_length"], tvb(off + 34, 2))
			st:add(F["ses.message_offset"], tvb(off + 36, 4))
			if tvb(off + 32, 3):bitfield(0, 18) ~= 0 then
				self:expert(st, E.reserved, "Reserved bits above payload_length",
					off + 32, 3)
			end
			self:note("off=" .. tvb(off + 36, 4):uint())
		end
		st:add(F["ses.request_length"], tvb(off + 40, 4))
		self:note("len=" .. tvb(off + 40, 4):uint())
	elseif nh == 1 then
		st:add(F["ses.buffer_offset"], tvb(off + 12, 8))
		if hd then
			self:expert(st, E.reserved, "HD is reserved in the small request",
				off + 1, 1)
		end
	else
		if hd then
			st:add(F["ses.header_data"], tvb(off + 12, 8))
		else
			st:add(F["ses.buffer_offset"], tvb(off + 12, 8))
		end
		st:add(F["ses.initiator"], tvb(off + 20, 4))
		st:add(F["ses.match_bits"], tvb(off + 24, 8))
	end
	if nh ~= 3 and not (som and bit_set(fl, 0x02)) then
		self:expert(st, E.reserved, "Small/medium request without SOM and EOM",
			off + 1, 1)
	end
	if #names > 0 then
		self:note("[" .. table.concat(names, ",") .. "]")
	end
	local elen = self:ses_ext(st, off + SES_LEN[nh], op)
	if not elen then
		return nil
	end
	local plen = self:avail(off + SES_LEN[nh] + elen)
	if nh == 3 and not som then
		local pl = tvb(off + 34, 2):uint() % 16384
		if pl ~= plen then
			self:expert(st, E.bad_length, string.format(
				"payload_length %d but %d payload bytes", pl, plen), off + 34, 2)
		end
	end
	return SES_LEN[nh] + elen
end

function Pkt:ses_rsp(st, off, nh)
	local tvb = self.tvb
	local op = tvb(off, 1):bitfield(2, 6)
	local rc = tvb(off + 1, 1):bitfield(2, 6)
	st:add(F["ses.list"], tvb(off, 1))
	local oi = st:add(F["ses.rsp_opcode"], tvb(off, 1))
	local oname = name_of(rsp_opcodes, op)
	if oname == "RESERVED" then
		self:expert(oi, E.bad_opcode, string.format(
			"Reserved response opcode 0x%02x", op), off, 1)
	elseif oname ~= "VENDOR" and (nh == 4) == (op == 0x02) then
		self:expert(oi, E.bad_opcode, oname .. " in a " .. SES_FMT[nh] ..
			" header", off, 1)
	end
	self:ses_version(st, off)
	local ci = st:add(F["ses.return_code"], tvb(off + 1, 1))
	if name_of(return_codes, rc) == "RESERVED" then
		self:expert(ci, E.bad_opcode, string.format(
			"Reserved return code 0x%02x", rc), off + 1, 1)
	end
	self:note(oname .. " rc=" .. name_of(return_codes, rc))
	local plen = self:avail(off + SES_LEN[nh])
	local pl
	if nh ~= 4 and (tvb(off + 4, 1):uint() ~= 0 or
			tvb(off + (nh == 5 and 10 or 2), 1):bitfield(0, 2) ~= 0) then
		self:expert(st, E.reserved, "Reserved response bits set", off, 12)
	end
	if nh == 4 then
		st:add(F["ses.message_id"], tvb(off + 2, 2))
		st:add(F["ses.ri_generation"], tvb(off + 4, 1))
		st:add(F["ses.job_id"], tvb(off + 5, 3))
		st:add(F["ses.modified_length"], tvb(off + 8, 4))
		self:note("msg_id=" .. tvb(off + 2, 2):uint())
	elseif nh == 5 then
		st:add(F["ses.message_id"], tvb(off + 2, 2))
		st:add(F["ses.job_id"], tvb(off + 5, 3))
		st:add(F["ses.read_request_message_id"], tvb(off + 8, 2))
		st:add(F["ses.payload_length"], tvb(off + 10, 2))
		st:add(F["ses.modified_length"], tvb(off + 12, 4))
		st:add(F["ses.message_offset"], tvb(off + 16, 4))
		pl = tvb(off + 10, 2):uint() % 16384
		self:note("msg_id=" .. tvb(off + 2, 2):uint() .. " read_msg_id=" ..
			tvb(off + 8, 2):uint() .. " off=" .. tvb(off + 16, 4):uint())
	else
		st:add(F["ses.payload_length"], tvb(off + 2, 2))
		st:add(F["ses.job_id"], tvb(off + 5, 3))
		st:add(F["ses.original_request_psn"], tvb(off + 8, 4))
		pl = tvb(off + 2, 2):uint() % 16384
		self:note("orig_psn=" .. tvb(off + 8, 4):uint())
	end
	if pl then
		self:note("len=" .. pl)
		if pl ~= plen then
			self:expert(st, E.bad_length, string.format(
				"payload_length %d but %d payload bytes", pl, plen), off, 12)
		end
	end
	return SES_LEN[nh]
end

-- Returns the SES header length (with extension) or nil.
function Pkt:ses(off, nh)
	local len = SES_LEN[nh]
	if not self:need(self.root, off, len, "SES " .. SES_FMT[nh]) then
		return nil
	end
	local st = self.root:add(self.tvb(off, len),
		"Semantic Sublayer (SES): " .. SES_FMT[nh])
	local n
	if nh <= 3 then
		n = self:ses_req(st, off, nh)
	else
		n = self:ses_rsp(st, off, nh)
	end
	if n then
		st:set_len(n)
	end
	return n
end

-- ---------------------------------------------------------------------
-- Whole packet

function Pkt:tss(off)
	local tvb, root = self.tvb, self.root
	if not self:need(root, off, 12, "TSS") then
		return nil
	end
	local sp = bit_set(tvb(off, 1):uint(), 0x04)
	local len = sp and 16 or 12
	if not self:need(root, off, len, "TSS") then
		return nil
	end
	local tt = root:add(tvb(off, len), "Transport Security Sublayer (TSS)")
	tt:add(F["tss.type"], tvb(off, 4))
	tt:add(F["tss.sp"], tvb(off, 4))
	local ri = tt:add(F["tss.reserved"], tvb(off, 4))
	if bit_set(tvb(off, 1):uint(), 0x02) then
		self:expert(ri, E.reserved, "Reserved TSS bit set", off, 1)
	end
	tt:add(F["tss.an"], tvb(off, 4))
	tt:add(F["tss.sdi"], tvb(off, 4))
	local o = off + 4
	local note = string.format("TSS sdi=0x%06x", tvb(off + 1, 3):uint())
	if sp then
		tt:add(F["tss.ssi"], tvb(o, 4))
		note = note .. string.format(" ssi=0x%08x", tvb(o, 4):uint())
		o = o + 4
	end
	tt:add(F["tss.epoch"], tvb(o, 2))
	tt:add(F["tss.tsc"], tvb(o + 2, 6), tvb(o + 2, 6):uint64())
	self:note(string.format("%s an=%d epoch=%d tsc=%s", note,
		bit_set(tvb(off, 1):uint(), 0x01) and 1 or 0, tvb(o, 2):uint(),
		tostring(tvb(o + 2, 6):uint64())))
	return len
end

function Pkt:dissect(off, with_entropy)
	local tvb, root = self.tvb, self.root
	if with_entropy then
		if not self:need(root, off, 4, "entropy") then
			return
		end
		local et = root:add(tvb(off, 4), "Entropy header")
		et:add(F["entropy.entropy"], tvb(off, 2))
		local ri = et:add(F["entropy.reserved"], tvb(off + 2, 2))
		if tvb(off + 2, 2):uint() ~= 0 then
			self:expert(ri, E.reserved, "Entropy reserved field not 0", off + 2, 2)
		end
		off = off + 4
	end
	if self:avail(off) >= 1 and tvb(off, 1):bitfield(0, 5) == 1 then
		local n = self:tss(off)
		if not n then
			return
		end
		off = off + n
		-- AES-GCM ICV at the end; what is between is ciphertext
		-- (docs/protocol.md §2).
		local rest = tvb:len() - off
		if rest >= 16 then
			self.trailer = 16
		else
			self:error(root, E.truncated, string.format(
				"No room for the 16-byte ICV: %d bytes after the TSS header",
				rest), off)
		end
		if not uet.prefs.tss_cleartext and self.trailer == 16 then
			self:note(string.format("(encrypted %d bytes, ICV 16)",
				rest - 16))
		end
		if not uet.prefs.tss_cleartext then
			if rest > self.trailer then
				root:add(F["tss.encrypted"], tvb(off, rest - self.trailer))
			end
			if self.trailer > 0 then
				root:add(F["tss.icv"], tvb(tvb:len() - 16, 16))
			end
			return
		end
	elseif uet.prefs.crc_trailer and tvb:len() - off >= 4 then
		self.trailer = 4
	end
	local n, nh = self:pds(off)
	if n then
		off = off + n
		if nh ~= 0 then
			n = self:ses(off, nh)
			if n then
				off = off + n
			end
		end
	end
	if n then
		local plen = self:avail(off)
		if plen > 0 then
			root:add(F["payload"], tvb(off, plen))
			root:add(F["payload_length"], tvb(off, plen), plen):set_generated()
		end
	end
	if self.trailer == 16 then
		root:add(F["tss.icv"], tvb(tvb:len() - 16, 16))
	elseif self.trailer == 4 then
		root:add(F["crc"], tvb(tvb:len() - 4, 4))
	end
end

local function dissect(tvb, pinfo, tree, with_entropy)
	pinfo.cols.protocol = "UET"
	local root
	if tvb:len() > 0 then
		root = tree:add(uet, tvb())
	else
		root = tree:add(uet)
	end
	local pkt = new_pkt(tvb, pinfo, root)
	local ok, err = pcall(pkt.dissect, pkt, 0, with_entropy)
	if not ok then
		pkt:error(root, E.lua_error, "Dissector error: " .. tostring(err))
	end
	local info = table.concat(pkt.info, " ")
	if #pkt.errors > 0 then
		info = info .. " [Malformed: " .. pkt.errors[1] .. "]"
	end
	pinfo.cols.info:set(info)
	root:append_text(", " .. info)
	return tvb:len()
end

-- A UDP payload: one packet, or a GSO train of them (dissect_udp, below).
local dissect_udp

function uet.dissector(tvb, pinfo, tree)
	return dissect_udp(tvb, pinfo, tree)
end

function uet_ip.dissector(tvb, pinfo, tree)
	return dissect(tvb, pinfo, tree, true)
end

-- ---------------------------------------------------------------------
-- Registration

local udp_table = DissectorTable.get("udp.port")
local ip_table = DissectorTable.get("ip.proto")	-- IPv4 and IPv6
local cur_udp_port, cur_ip_proto = 0, 0

local function register()
	local port, proto = uet.prefs.udp_port, uet.prefs.ip_proto
	if port ~= cur_udp_port then
		if cur_udp_port ~= 0 then
			udp_table:remove(cur_udp_port, uet)
		end
		if port ~= 0 then
			udp_table:add(port, uet)
		end
		cur_udp_port = port
	end
	if proto ~= cur_ip_proto then
		if cur_ip_proto ~= 0 then
			ip_table:remove(cur_ip_proto, uet_ip)
		end
		if proto ~= 0 and proto < 256 then
			ip_table:add(proto, uet_ip)
		end
		cur_ip_proto = proto
	end
end

uet.prefs_changed = register
register()
udp_table:add_for_decode_as(uet)

-- uet's endpoints off the IANA port (the second endpoint on an address)
-- and its spray source ports make conversations between two ports no
-- table names (docs/choices.md §1.3). Claim a UDP payload no other
-- dissector took when it starts with a PDS header uet could send: a
-- known type, long enough, a next_hdr the type allows, no reserved flag
-- and, for an SES header, version 0 and a known opcode. TSS packets are
-- not guessed (too little to check before the ciphertext).
local HEUR_RSVD = { req = 0x63, ack = 0x41, nack = 0x47, ctrl = 0x63,
	rudi_req = 0x6F, rudi_resp = 0x4F, uud = 0x7F }

local function any_set(v, mask)
	local b = 1
	while b <= mask do
		if bit_set(mask, b) and bit_set(v, b) then
			return true
		end
		b = b * 2
	end
	return false
end

local function looks_like_uet(tvb)
	local len = tvb:len()
	if len < 4 then
		return false
	end
	local w = tvb(0, 2):uint()
	local t = math.floor(w / 2048)
	local nh = math.floor(w / 128) % 16
	local flags = w % 128
	local hl = PDS_LEN[t]
	if not hl or len < hl then
		return false
	end
	if t == 11 then
		return nh <= 8 and not any_set(flags, HEUR_RSVD.ctrl)
	end
	if not NH_OK[t][nh] or any_set(flags, HEUR_RSVD[flag_kind(t)]) then
		return false
	end
	if (t == 4 or t == 5 or t == 6) and tvb(2, 2):uint() ~= 0 then
		return false
	end
	if nh == 0 then
		return true
	end
	if len < hl + (SES_LEN[nh] or 0) then
		return false
	end
	local b0, b1 = tvb(hl, 1):uint(), tvb(hl + 1, 1):uint()
	if b1 >= 64 then
		return false		-- SES version 0
	end
	if nh <= 3 then
		return b0 <= 0x11	-- reserved bits clear, a known opcode
	end
	return b0 % 64 <= 3
end

-- A capture taken before the kernel cut a UDP GSO send into datagrams
-- (on a veth, or on the sending host) holds the whole train in one UDP
-- payload: packets as long as the first, the last one shorter, one PDC's
-- requests with an ACK at most behind them. As uetdump(1) does, cut it
-- where the next request of the same PDC, PSN + 1, begins and every
-- piece looks like UET; nil when no such cut fits.
local function train_fits(tvb, s, psn, spdc)
	local len, i, off = tvb:len(), 0, 0
	while off < len do
		local n = math.min(s, len - off)
		local piece = tvb(off, n):tvb()
		if not looks_like_uet(piece) then
			return false
		end
		if off + s < len and (not is_req(math.floor(piece(0, 1):uint() / 8))
		    or piece(4, 4):uint() ~= (psn + i) % 4294967296
		    or piece(8, 2):uint() ~= spdc) then
			return false
		end
		off, i = off + s, i + 1
	end
	return true
end

local function train_seg(tvb)
	local len = tvb:len()
	if len < 24 or not is_req(math.floor(tvb(0, 1):uint() / 8)) then
		return nil
	end
	local psn, spdc = tvb(4, 4):uint(), tvb(8, 2):uint()
	local nx = (psn + 1) % 4294967296
	local want = string.char(math.floor(nx / 16777216),
		math.floor(nx / 65536) % 256, math.floor(nx / 256) % 256, nx % 256)
	local raw = tvb:raw()
	-- the PSN (bytes 4-7) of a next packet at byte 12 or later, after the
	-- shortest request header, as a 1-based index into raw
	local from = 12 + 4 + 1
	while true do
		local at = raw:find(want, from, true)
		if not at then
			return nil
		end
		local s = at - 1 - 4
		if s + 12 <= len and train_fits(tvb, s, psn, spdc) then
			return s
		end
		from = at + 1
	end
end

dissect_udp = function(tvb, pinfo, tree)
	local s = train_seg(tvb)
	if not s then
		return dissect(tvb, pinfo, tree, false)
	end
	local len = tvb:len()
	local n = math.ceil(len / s)
	local infos = {}
	for i = 0, n - 1 do
		local off = i * s
		dissect(tvb(off, math.min(s, len - off)):tvb(), pinfo, tree, false)
		infos[#infos + 1] = string.format("[GSO %d/%d] %s", i + 1, n,
			tostring(pinfo.cols.info))
	end
	pinfo.cols.info:set(table.concat(infos, " | "))
	return len
end

uet:register_heuristic("udp", function(tvb, pinfo, tree)
	if not looks_like_uet(tvb) then
		return false
	end
	dissect_udp(tvb, pinfo, tree)
	return true
end)
