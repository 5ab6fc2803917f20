/* fid_domain: one FEP, i.e. one interface address (docs/choices.md §1.1).
 * Endpoints opened on it each get their own UDP home port and engine. */
#include <stdlib.h>
#include <string.h>

#include "uetp.h"

static int uetp_domain_close(struct fid *fid)
{
	struct uetp_domain *dom = uet_container_of(fid, struct uetp_domain,
						    fid.fid);

	if (atomic_load(&dom->ref))
		return -FI_EBUSY;
	uetp_progress_stop(dom);
	uetp_rescue_stop(dom);
	if (dom->eq)
		atomic_fetch_sub(&dom->eq->ref, 1);
	atomic_fetch_sub(&dom->fabric->ref, 1);
	free(dom->mr_hash);
	free(dom->amo_max);
	uetp_trigger_fini(&dom->trig);
	pthread_mutex_destroy(&dom->lock);
	fi_freeinfo(dom->info);
	free(dom);
	return 0;
}

static int uetp_domain_bind(struct fid *fid, struct fid *bfid, uint64_t flags)
{
	struct uetp_domain *dom = uet_container_of(fid, struct uetp_domain,
						    fid.fid);
	struct uetp_eq *eq;

	if (bfid->fclass != FI_CLASS_EQ)
		return -FI_EINVAL;
	/* FI_REG_MR asks for asynchronous registration: ours is synchronous */
	if (flags & ~(uint64_t)FI_REG_MR)
		return -FI_EBADFLAGS;
	if (dom->eq)
		return -FI_EALREADY;
	eq = uet_container_of(bfid, struct uetp_eq, fid.fid);
	dom->eq = eq;
	atomic_fetch_add(&eq->ref, 1);
	return 0;
}

static int uetp_endpoint2(struct fid_domain *domain, struct fi_info *info,
			  struct fid_ep **ep, uint64_t flags, void *context)
{
	if (flags)
		return -FI_EBADFLAGS;
	return uetp_ep_open(domain, info, ep, context);
}

static struct fi_ops uetp_domain_fi_ops = {
	.size = sizeof(struct fi_ops),
	.close = uetp_domain_close,
	.bind = uetp_domain_bind,
	.control = uetp_enosys_control,
	.ops_open = uetp_enosys_ops_open,
	.tostr = uetp_enosys_tostr,
	.ops_set = uetp_enosys_ops_set,
};

static struct fi_ops_domain uetp_domain_ops = {
	.size = sizeof(struct fi_ops_domain),
	.av_open = uetp_av_open,
	.cq_open = uetp_cq_open,
	.endpoint = uetp_ep_open,
	.scalable_ep = uetp_sep_open,
	.cntr_open = uetp_cntr_open,
	.poll_open = uetp_poll_open,
	.stx_ctx = uetp_stx_open,
	.srx_ctx = uetp_srx_open,
	.query_atomic = uetp_atomic_query,
	.query_collective = uetp_enosys_query_collective,
	.endpoint2 = uetp_endpoint2,
};

/* Which interface address this fi_info names: its src_addr if any, else
 * the first address of the named interface in the right family. */
static int uetp_domain_iface(const struct fi_info *info,
			     struct uetp_iface *ifc)
{
	struct uetp_iface *list;
	struct uetp_name n;
	uint8_t af = 0;
	size_t cnt;
	int ret;

	if (info->src_addr) {
		if (uetp_addr_decode(info->src_addr, info->src_addrlen, &n) < 0)
			return -FI_EINVAL;
		return uetp_iface_find(&n.addr, ifc) ? -FI_EADDRNOTAVAIL : 0;
	}
	if (info->addr_format == FI_SOCKADDR_IN)
		af = UET_AF_INET;
	else if (info->addr_format == FI_SOCKADDR_IN6)
		af = UET_AF_INET6;
	ret = uetp_iface_list(&list, &cnt);
	if (ret)
		return -FI_ENODEV;
	ret = -FI_ENODEV;
	for (size_t i = 0; i < cnt; i++) {
		if (af && list[i].addr.af != af)
			continue;
		if (info->domain_attr->name &&
		    strcmp(info->domain_attr->name, list[i].name))
			continue;
		*ifc = list[i];
		ret = 0;
		break;
	}
	free(list);
	return ret;
}

int uetp_domain_open(struct fid_fabric *fabric, struct fi_info *info,
		     struct fid_domain **domp, void *context)
{
	struct uetp_fabric *fab = uet_container_of(fabric, struct uetp_fabric,
						    fid);
	uint32_t version = fabric->api_version ? fabric->api_version :
			   UETP_FI_VERSION;
	struct uetp_domain *dom;
	const struct fi_domain_attr *da;
	uint32_t job;
	int ret;

	ret = uetp_attr_check(version, info);
	if (ret)
		return -FI_EINVAL;
	dom = calloc(1, sizeof(*dom));
	if (!dom)
		return -FI_ENOMEM;
	ret = uetp_domain_iface(info, &dom->iface);
	if (ret) {
		FI_WARN(&uetp_prov, FI_LOG_DOMAIN,
			"no local interface for domain %s\n",
			info->domain_attr->name ? info->domain_attr->name :
			"(unnamed)");
		goto err1;
	}
	dom->info = fi_dupinfo(info);
	if (!dom->info) {
		ret = -FI_ENOMEM;
		goto err1;
	}
	da = dom->info->domain_attr;
	dom->api_version = version;
	dom->fabric = fab;
	dom->job_id = uetp_env.job_id;
	if (da->auth_key && da->auth_key_size == UETP_AUTH_KEY_SIZE) {
		memcpy(&job, da->auth_key, sizeof(job));
		dom->job_id = job;
	}
	/* FI_THREAD_DOMAIN: the application serialises everything in the
	 * domain, so no locks unless our own thread runs too */
	dom->locking = !(da->threading == FI_THREAD_DOMAIN &&
			 !uetp_env.progress_thread && !uetp_env.rescue_ms);
	dom->mtu = uetp_iface_mtu(&dom->iface);
	dom->host_mtu = uetp_iface_host_mtu(&dom->iface, dom->mtu);
	dom->mr_mode = uetp_mr_mode_bits(version, (uint64_t)da->mr_mode);
	atomic_init(&dom->ref, 0);
	pthread_mutex_init(&dom->lock, NULL);
	uet_list_init(&dom->eps);
	uet_list_init(&dom->mrs);
	uetp_trigger_init(&dom->trig);

	dom->fid.fid.fclass = FI_CLASS_DOMAIN;
	dom->fid.fid.context = context;
	dom->fid.fid.ops = &uetp_domain_fi_ops;
	dom->fid.ops = &uetp_domain_ops;
	dom->fid.mr = &uetp_mr_ops;

	if (uetp_env.progress_thread)
		ret = uetp_progress_start(dom);
	else if (uetp_env.rescue_ms)
		ret = uetp_rescue_start(dom);
	if (ret)
		goto err2;
	atomic_fetch_add(&fab->ref, 1);
	*domp = &dom->fid;
	return 0;
err2:
	uetp_trigger_fini(&dom->trig);
	pthread_mutex_destroy(&dom->lock);
	fi_freeinfo(dom->info);
err1:
	free(dom);
	return ret;
}
