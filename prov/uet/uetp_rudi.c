/* FI_UET_RUDI: RMA writes and reads over RUDI, the connectionless
 * delivery for idempotent operations (uet/ses/cless.c, rudi.c;
 * docs/choices.md §8.1, §6.4).
 *
 * Every endpoint gets cfg.rudi (it serves RUDI requests and sends them).
 * A region becomes IDEMPOTENT - its key carries UET_MKEY_IDEMPOTENT_SAFE
 * (bit 63), which is what makes an initiator use RUDI for it - when it is
 * registered with FI_REMOTE_READ and/or FI_REMOTE_WRITE, without
 * FI_RMA_EVENT, under FI_MR_PROV_KEY (the application passes on the key
 * fi_mr_key gives, never one it chose), and while no enabled endpoint of
 * the domain has a remote counter bound: the target keeps no record of a
 * RUDI operation, so it raises no remote completion or counter event for
 * it.
 */
#include "uetp.h"

bool uetp_rudi_mr(const struct uetp_domain *dom, uint64_t access,
		  uint64_t flags)
{
	const struct uet_list *e;

	if (!uetp_env.rudi || !(access & (FI_REMOTE_READ | FI_REMOTE_WRITE)) ||
	    (flags & FI_RMA_EVENT) || !(dom->mr_mode & FI_MR_PROV_KEY))
		return false;
	for (e = dom->eps.next; e != &dom->eps; e = e->next) {
		const struct uetp_ep *ep = uet_container_of(e, struct uetp_ep,
							     dom_entry);

		if (ep->rrd_cntr || ep->rwr_cntr)
			return false;
	}
	return true;
}
