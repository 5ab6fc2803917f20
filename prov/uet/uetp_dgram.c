/* FI_EP_DGRAM (docs/choices.md §8.2: it rides UUD): what such an
 * endpoint offers and how it is set up.
 *
 * A DGRAM endpoint is the same struct uetp_ep over the same engine,
 * opened with cfg.uud: every send is one UUD datagram (uet/ses/cless.c),
 * at most uet_fep_dgram_max(mtu) bytes (max_msg_size; longer ones are
 * refused with -FI_EMSGSIZE at post), complete once handed to the socket,
 * unacknowledged, unordered (msg_order none), possibly lost or duplicated
 * by the network. Receives match posted untagged receives in order; the
 * source of a completion (FI_SOURCE, fi_cq_readfrom) is the sender's home
 * address as its datagram showed it. FI_MSG only: fi_ops_msg is the RDM
 * one (uetp_msg.c, the engine tells the two apart), the tagged, RMA and
 * atomic tables answer -FI_ENOSYS.
 *
 * Layering (docs/architecture.md §8.3): a DGRAM entry is what ofi_rxd
 * looks for to build an RDM endpoint over us; uetp_attr.c refuses every
 * getinfo a utility provider makes for its core unless
 * FI_UET_ALLOW_LAYERING=1, so FI_PROVIDER=uet with FI_EP_RDM stays our own
 * RDM endpoint.
 */
#include <string.h>

#include "uet/fep.h"
#include "uetp.h"

#define UETP_DGRAM_TX_OP_FLAGS	(FI_COMPLETION | FI_INJECT | \
				 FI_INJECT_COMPLETE | FI_TRANSMIT_COMPLETE)

bool uetp_dgram_wanted(const struct fi_info *h)
{
	return !h || !h->ep_attr || h->ep_attr->type == FI_EP_UNSPEC ||
	       h->ep_attr->type == FI_EP_DGRAM;
}

/* On top of uetp_attr.c's checks, which every DGRAM hint passes too. */
const char *uetp_dgram_check(const struct fi_info *h)
{
	const struct fi_ep_attr *ep = h->ep_attr;

	if (h->caps & ~(uint64_t)UETP_DGRAM_CAPS)
		return "caps (FI_EP_DGRAM: FI_MSG and its modifiers only)";
	if (ep && ep->max_msg_size > UETP_PKT_MAX)
		return "ep_attr->max_msg_size (FI_EP_DGRAM: one packet)";
	if (h->tx_attr &&
	    (h->tx_attr->op_flags & ~(uint64_t)UETP_DGRAM_TX_OP_FLAGS))
		return "tx_attr->op_flags (FI_EP_DGRAM: no delivery "
		       "complete)";
	if ((h->tx_attr && h->tx_attr->msg_order) ||
	    (h->rx_attr && h->rx_attr->msg_order))
		return "msg_order (FI_EP_DGRAM: unordered)";
	if (h->tx_attr && h->tx_attr->rma_iov_limit)
		return "tx_attr->rma_iov_limit";
	return NULL;
}

size_t uetp_dgram_max(const struct uetp_iface *ifc)
{
	return uet_fep_dgram_max(uetp_iface_mtu(ifc));
}

int uetp_dgram_info(struct fi_info *fi, const struct fi_info *h,
		    const struct uetp_iface *ifc)
{
	size_t max = uetp_dgram_max(ifc);
	uint64_t caps = fi->caps & UETP_DGRAM_CAPS;

	if (h && h->ep_attr && h->ep_attr->max_msg_size > max)
		return -FI_ENODATA;	/* this interface's packets are smaller */
	if (!(caps & (FI_SEND | FI_RECV)))
		caps |= FI_SEND | FI_RECV;
	fi->caps = caps | FI_MSG;
	fi->tx_attr->caps = fi->caps & UETP_TX_CAPS;
	fi->rx_attr->caps = fi->caps & UETP_RX_CAPS;
	fi->tx_attr->msg_order = FI_ORDER_NONE;
	fi->rx_attr->msg_order = FI_ORDER_NONE;
	if (fi->tx_attr->inject_size > max)
		fi->tx_attr->inject_size = max;
	fi->tx_attr->rma_iov_limit = 0;
	fi->ep_attr->type = FI_EP_DGRAM;
	fi->ep_attr->max_msg_size = max;
	fi->ep_attr->mem_tag_format = 0;
	if (fi->domain_attr->mr_mode != FI_MR_BASIC &&
	    fi->domain_attr->mr_mode != FI_MR_SCALABLE)
		fi->domain_attr->mr_mode = 0;	/* no remote access */
	return 0;
}

/* ---- the endpoint ---- */

bool uetp_dgram_ep(const struct fi_info *info)
{
	return info && info->ep_attr && info->ep_attr->type == FI_EP_DGRAM;
}

void uetp_dgram_ep_init(struct uetp_ep *ep)
{
	ep->caps &= UETP_DGRAM_CAPS;
	ep->fid.tagged = &uetp_enosys_tagged;	/* no tagged datagrams */
	ep->fid.rma = &uetp_enosys_rma;
	ep->fid.atomic = &uetp_enosys_atomic;
}
