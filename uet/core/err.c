/* Names of engine error codes, for logs and tools. */
#include "uet/err.h"

const char *uet_err_str(int err)
{
	switch (err) {
	case UET_OK: return "ok";
	case UET_ERR_WIRE_TRUNC: return "wire: truncated header";
	case UET_ERR_WIRE_TYPE: return "wire: reserved PDS type";
	case UET_ERR_WIRE_NEXT_HDR: return "wire: next header not allowed for type";
	case UET_ERR_WIRE_RESERVED: return "wire: reserved bits set";
	case UET_ERR_WIRE_FLAGS: return "wire: flag combination not allowed";
	case UET_ERR_WIRE_CTL_TYPE: return "wire: reserved control type";
	case UET_ERR_WIRE_OPCODE: return "wire: reserved SES opcode";
	case UET_ERR_WIRE_VERSION: return "wire: unsupported SES version";
	case UET_ERR_WIRE_CC_TYPE: return "wire: reserved CC type";
	case UET_ERR_WIRE_AMO: return "wire: reserved atomic opcode or datatype";
	case UET_ERR_WIRE_LENGTH: return "wire: length field disagrees with packet";
	case UET_ERR_WIRE_RANGE: return "wire: field value out of range";
	case UET_ERR_WIRE_NOSPACE: return "wire: output buffer too small";
	case UET_ERR_INVAL: return "invalid argument";
	case UET_ERR_NOMEM: return "out of memory";
	case UET_ERR_IO: return "I/O error";
	case UET_ERR_DROPPED: return "packet dropped (counted)";
	case UET_ERR_AGAIN: return "resources busy, try again";
	case UET_ERR_TRUNC: return "message truncated";
	case UET_ERR_CANCELED: return "operation canceled";
	case UET_ERR_PEER: return "peer unreachable";
	case UET_ERR_REMOTE: return "target returned an error";
	case UET_ERR_NOENT: return "no such operation";
	case UET_ERR_MSGSIZE: return "message too long";
	case UET_ERR_BUSY: return "in use";
	case UET_ERR_NOSYS: return "not implemented";
	case UET_ERR_TSS_AUTH: return "tss: authentication failed";
	case UET_ERR_TSS_REPLAY: return "tss: replayed packet";
	case UET_ERR_TSS_STALE: return "tss: packet older than the window";
	case UET_ERR_TSS_SDI: return "tss: unknown secure domain";
	case UET_ERR_TSS_CLEAR: return "tss: plaintext packet on a secured job";
	case UET_ERR_TSS_EXHAUSTED: return "tss: counter exhausted";
	case UET_ERR_TSS_BINDING: return "tss: JobID not bound to the secure domain";
	}
	return "unknown error";
}

bool uet_err_is_drop(int err)
{
	return (err <= UET_ERR_WIRE_TRUNC && err >= UET_ERR_WIRE_LENGTH) ||
	       (err <= UET_ERR_TSS_AUTH && err >= UET_ERR_TSS_BINDING) ||
	       err == UET_ERR_DROPPED || err == UET_ERR_NOMEM;
}

bool uet_err_is_fatal(int err)
{
	return err == UET_ERR_NOMEM || err == UET_ERR_IO;
}
