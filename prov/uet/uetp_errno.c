/* The one map from engine errors (UET_ERR_*) and UET codes to -FI_E*
 * (docs/architecture.md §8.8), and the text fi_cq_strerror prints. */
#include <stdio.h>
#include <string.h>

#include "uet/err.h"
#include "uet/wire.h"
#include "uetp.h"

int uetp_errno(int uet_err)
{
	switch (uet_err) {
	case UET_OK:
		return 0;
	case UET_ERR_INVAL:
		return -FI_EINVAL;
	case UET_ERR_NOMEM:
		return -FI_ENOMEM;
	case UET_ERR_IO:
		return -FI_EIO;
	case UET_ERR_AGAIN:
		return -FI_EAGAIN;
	case UET_ERR_TRUNC:
		return -FI_ETRUNC;
	case UET_ERR_CANCELED:
		return -FI_ECANCELED;
	case UET_ERR_PEER:
		return -FI_EHOSTUNREACH;
	case UET_ERR_REMOTE:
		return -FI_EREMOTEIO;
	case UET_ERR_NOENT:
		return -FI_ENOENT;
	case UET_ERR_MSGSIZE:
		return -FI_EMSGSIZE;
	case UET_ERR_BUSY:
		return -FI_EBUSY;
	case UET_ERR_NOSYS:
		return -FI_ENOSYS;
	}
	/* wire codec errors never reach the application as such */
	if (uet_err <= UET_ERR_WIRE_TRUNC && uet_err >= UET_ERR_WIRE_NOSPACE)
		return -FI_EIO;
	return -FI_EOTHER;
}

/* SES return codes (docs/choices.md §5.4). */
int uetp_errno_rc(unsigned rc)
{
	switch (rc) {
	case UET_RC_NULL:
	case UET_RC_OK:
		return 0;
	case UET_RC_DISABLED:
		return -FI_ECONNREFUSED;
	case UET_RC_NO_MATCH:
		return -FI_ENOMSG;
	case UET_RC_UNSUPPORTED_OP:
	case UET_RC_AMO_UNSUPPORTED_OP:
	case UET_RC_AMO_UNSUPPORTED_DT:
	case UET_RC_AMO_UNSUPPORTED_SIZE:
		return -FI_EOPNOTSUPP;
	case UET_RC_UNSUPPORTED_SIZE:
	case UET_RC_TOO_LONG:
		return -FI_EMSGSIZE;
	case UET_RC_AT_INVALID:
	case UET_RC_AT_ATS_ERROR:
	case UET_RC_AT_NO_TRANS:
	case UET_RC_AT_OUT_OF_RANGE:
	case UET_RC_BAD_ADDR:
		return -FI_EFAULT;
	case UET_RC_AT_PERM:
	case UET_RC_PERM_VIOLATION:
	case UET_RC_BAD_JOB_ID:
		return -FI_EACCES;
	case UET_RC_AMO_UNALIGNED:
	case UET_RC_AMO_FP_NAN:
	case UET_RC_AMO_FP_UNDERFLOW:
	case UET_RC_AMO_FP_OVERFLOW:
	case UET_RC_AMO_FP_INEXACT:
	case UET_RC_OP_VIOLATION:
		return -FI_EINVAL;
	case UET_RC_BAD_INDEX:
	case UET_RC_BAD_PID:
		return -FI_EADDRNOTAVAIL;
	case UET_RC_BAD_MKEY:
		return -FI_EKEYREJECTED;
	case UET_RC_CANCELLED:
		return -FI_ECANCELED;
	case UET_RC_UNDELIVERABLE:
		return -FI_EHOSTUNREACH;
	case UET_RC_UNCOR_TRNSNT:
		return -FI_EAGAIN;
	}
	return -FI_EIO;
}

int uetp_errno_prov(int uet_err, int code)
{
	if (code && uet_err == UET_ERR_REMOTE)
		return code & 0xff;
	if (code && uet_err == UET_ERR_PEER)
		return UETP_PE_NACK | (code & 0xff);
	return uet_err;
}

const char *uetp_errno_str(int prov_errno, const void *err_data, char *buf,
			  size_t len)
{
	const struct uetp_err_data *ed = err_data;
	char peer[80] = "";
	const char *name;

	if (ed && ed->peer[0])
		snprintf(peer, sizeof(peer), " (peer %.56s)", ed->peer);
	if (prov_errno > 0 && prov_errno < UETP_PE_NACK) {
		name = uet_name_rc((unsigned)prov_errno);
		snprintf(buf, len, "UET return code 0x%02x %s%s", prov_errno,
			 name ? name : "(unknown)", peer);
	} else if (prov_errno >= UETP_PE_NACK &&
		   prov_errno <= (UETP_PE_NACK | 0xff)) {
		name = uet_name_nack_code((unsigned)prov_errno & 0xff);
		snprintf(buf, len, "UET NACK code 0x%02x %s%s",
			 prov_errno & 0xff, name ? name : "(unknown)", peer);
	} else if (prov_errno < 0) {
		snprintf(buf, len, "uet: %s%s", uet_err_str(prov_errno), peer);
	} else {
		snprintf(buf, len, "uet: no error code%s", peer);
	}
	return buf;
}
