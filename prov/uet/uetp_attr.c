/* What we advertise and how hints are matched (docs/architecture.md §8.6).
 *
 * The libfabric core filters nothing for an external provider: every rule
 * below is ours. One fi_info per usable interface address (= FEP =
 * domain), loopback last; a hint we cannot honour exactly means
 * -FI_ENODATA with an FI_INFO log line saying which one.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "uetp.h"

/* ---- hint checks ---- */

static bool uetp_auth_key_ok(size_t size, const uint8_t *key)
{
	uint32_t job;

	if (!size)
		return true;
	if (size != UETP_AUTH_KEY_SIZE)
		return false;
	if (!key)
		return true;
	memcpy(&job, key, sizeof(job));
	return job <= UETP_JOB_ID_MAX;
}

/* mr_mode bits we implement when the application allows them (fi_mr.3:
 * "a provider will clear an mr_mode bit if it is not needed"). Provider
 * keys are kept as allowed (FI_UET_RUDI marks only keys of ours
 * idempotent). A region is addressed by offset, which UET's
 * buffer_offset is; FI_MR_VIRT_ADDR is granted only to FI_MR_BASIC, or
 * whenever allowed under FI_UET_MR_VIRT_ADDR=1: applications that allow
 * it are not all ready for it to be cleared, nor the other way round
 * (fabtests' fi_multi_mr allows it and writes to address 0).
 * FI_MR_ENDPOINT, FI_MR_ALLOCATED and FI_MR_VIRT_ADDR are honoured when
 * an fi_info carrying them is handed back, but never required; we need
 * no FI_MR_LOCAL. */
#define UETP_MR_MODE_OK		(FI_MR_LOCAL | FI_MR_VIRT_ADDR | \
				 FI_MR_ALLOCATED | FI_MR_PROV_KEY | \
				 FI_MR_ENDPOINT)

static int uetp_mr_mode_keep(void)
{
	return FI_MR_PROV_KEY |
	       (uetp_env.mr_virt_addr ? FI_MR_VIRT_ADDR : 0);
}

/* mr_mode we report for a hint, or -1 when the hint cannot be honoured.
 * Before 1.5 the two old modes are both ours (FI_MR_BASIC ⇔
 * VIRT_ADDR|ALLOCATED|PROV_KEY, FI_MR_SCALABLE ⇔ 0); after it, the bits
 * of uetp_mr_mode_keep() the application allows, for endpoints that do
 * one-sided operations (none are needed otherwise). */
static int uetp_mr_mode(uint32_t version, int hint, uint64_t caps)
{
	if (FI_VERSION_LT(version, FI_VERSION(1, 5))) {
		switch (hint) {
		case FI_MR_UNSPEC:
		case FI_MR_SCALABLE:
			return FI_MR_SCALABLE;
		case FI_MR_BASIC:
			return FI_MR_BASIC;
		}
		return -1;
	}
	/* old-style values in a new API: answer in the same style */
	if (hint == FI_MR_BASIC || hint == FI_MR_SCALABLE)
		return hint;
	if (!(caps & (FI_RMA | FI_ATOMIC)))
		return 0;
	return hint & uetp_mr_mode_keep();
}

/* An mr_mode in an fi_info given to fi_domain/fi_endpoint. */
static bool uetp_mr_mode_usable(uint32_t version, int mode)
{
	if (FI_VERSION_LT(version, FI_VERSION(1, 5)) ||
	    mode == FI_MR_BASIC || mode == FI_MR_SCALABLE)
		return uetp_mr_mode(version, mode, 0) >= 0;
	return !((uint64_t)mode & ~(uint64_t)UETP_MR_MODE_OK);
}

static const char *uetp_check_ep_attr(const struct fi_ep_attr *a)
{
	if (a->type != FI_EP_UNSPEC && a->type != FI_EP_RDM &&
	    a->type != FI_EP_DGRAM)
		return "ep_type (FI_EP_RDM or FI_EP_DGRAM)";
	if (a->protocol != FI_PROTO_UNSPEC)
		return "ep_attr->protocol";
	if (a->protocol_version > UETP_PROTO_VERSION)
		return "ep_attr->protocol_version";
	if (a->max_msg_size > UETP_MAX_MSG_SIZE)
		return "ep_attr->max_msg_size";
	if (a->msg_prefix_size)
		return "ep_attr->msg_prefix_size (no prefix)";
	if (a->max_order_raw_size || a->max_order_war_size ||
	    a->max_order_waw_size)
		return "ep_attr->max_order_*_size (no RMA ordering)";
	/* one context, a shared one, or a scalable endpoint's contexts */
	if (a->tx_ctx_cnt > UETP_SEP_CTX_MAX &&
	    a->tx_ctx_cnt != FI_SHARED_CONTEXT)
		return "ep_attr->tx_ctx_cnt";
	if (a->rx_ctx_cnt > UETP_SEP_CTX_MAX &&
	    a->rx_ctx_cnt != FI_SHARED_CONTEXT)
		return "ep_attr->rx_ctx_cnt";
	if (!uetp_auth_key_ok(a->auth_key_size, a->auth_key))
		return "ep_attr->auth_key (a 4-byte JobID)";
	return NULL;
}

static const char *uetp_check_domain_attr(uint32_t version,
					  const struct fi_domain_attr *a)
{
	if (a->threading > FI_THREAD_ENDPOINT)
		return "domain_attr->threading";
	if (a->control_progress > FI_PROGRESS_MANUAL ||
	    a->data_progress > FI_PROGRESS_MANUAL)
		return "domain_attr->progress";
	if (a->data_progress == FI_PROGRESS_AUTO && !uetp_env.progress_thread)
		return "data_progress FI_PROGRESS_AUTO (set "
		       "FI_UET_PROGRESS_THREAD=1)";
	if (a->resource_mgmt > FI_RM_ENABLED)
		return "domain_attr->resource_mgmt";
	if (a->av_type > FI_AV_TABLE)
		return "domain_attr->av_type";
	if (uetp_mr_mode(version, a->mr_mode, 0) < 0)
		return "domain_attr->mr_mode";
	if (a->mr_key_size > UETP_MR_KEY_SIZE)
		return "domain_attr->mr_key_size";
	if (a->cq_data_size > UETP_CQ_DATA_SIZE)
		return "domain_attr->cq_data_size";
	if (a->cq_cnt > UETP_CQ_CNT)
		return "domain_attr->cq_cnt";
	if (a->ep_cnt > UETP_EP_CNT || a->tx_ctx_cnt > UETP_EP_CNT ||
	    a->rx_ctx_cnt > UETP_EP_CNT)
		return "domain_attr->ep_cnt";
	if (a->max_ep_tx_ctx > UETP_SEP_CTX_MAX ||
	    a->max_ep_rx_ctx > UETP_SEP_CTX_MAX)
		return "domain_attr->max_ep_*_ctx";
	if (a->max_ep_stx_ctx > UETP_EP_CNT || a->max_ep_srx_ctx > UETP_EP_CNT)
		return "domain_attr->max_ep_s*x_ctx";
	if (a->cntr_cnt > UETP_CNTR_CNT)
		return "domain_attr->cntr_cnt";
	if (a->mr_iov_limit > 1)
		return "domain_attr->mr_iov_limit";
	if (a->caps & ~(uint64_t)UETP_DOM_CAPS)
		return "domain_attr->caps";
	if (!uetp_auth_key_ok(a->auth_key_size, a->auth_key))
		return "domain_attr->auth_key (a 4-byte JobID)";
	if (a->max_err_data > sizeof(struct uetp_err_data))
		return "domain_attr->max_err_data";
	if (a->mr_cnt > UETP_MR_CNT)
		return "domain_attr->mr_cnt";
	if (!uetp_tclass_valid(a->tclass))
		return "domain_attr->tclass";
	return NULL;
}

static const char *uetp_check_tx_attr(const struct fi_tx_attr *a)
{
	if (a->caps & ~(uint64_t)UETP_CAPS)
		return "tx_attr->caps";
	if (a->op_flags & ~(uint64_t)UETP_TX_OP_FLAGS)
		return "tx_attr->op_flags";
	if (a->msg_order & ~(uint64_t)UETP_MSG_ORDER)
		return "tx_attr->msg_order (FI_ORDER_SAS only)";
	if (a->comp_order & ~(uint64_t)UETP_COMP_ORDER)
		return "tx_attr->comp_order";
	if (a->inject_size > UETP_INJECT_SIZE)
		return "tx_attr->inject_size";
	if (a->size > UETP_SIZE_MAX)
		return "tx_attr->size";
	if (a->iov_limit > UETP_IOV_LIMIT)
		return "tx_attr->iov_limit";
	if (a->rma_iov_limit > UETP_RMA_IOV_MAX)
		return "tx_attr->rma_iov_limit";
	if (!uetp_tclass_valid(a->tclass))
		return "tx_attr->tclass";
	return NULL;
}

static const char *uetp_check_rx_attr(const struct fi_rx_attr *a)
{
	if (a->caps & ~(uint64_t)UETP_CAPS)
		return "rx_attr->caps";
	if (a->op_flags & ~(uint64_t)UETP_RX_OP_FLAGS)
		return "rx_attr->op_flags";
	if (a->msg_order & ~(uint64_t)UETP_MSG_ORDER)
		return "rx_attr->msg_order (FI_ORDER_SAS only)";
	if (a->comp_order & ~(uint64_t)UETP_COMP_ORDER)
		return "rx_attr->comp_order";
	if (a->size > UETP_SIZE_MAX)
		return "rx_attr->size";
	if (a->iov_limit > UETP_IOV_LIMIT)
		return "rx_attr->iov_limit";
	return NULL;
}

static bool uetp_format_ok(uint32_t f)
{
	return f == FI_FORMAT_UNSPEC || f == FI_SOCKADDR ||
	       f == FI_SOCKADDR_IN || f == FI_SOCKADDR_IN6;
}

/* NULL when hints (or an fi_info handed back to us) can be honoured. */
static const char *uetp_check(uint32_t version, const struct fi_info *h)
{
	const char *why = NULL;

	if (h->caps & ~(uint64_t)UETP_CAPS)
		return UETP_ONE_SIDED_CAPS ? "caps" :
		       "caps (FI_MSG, FI_TAGGED and their modifiers only; "
		       "no FI_RMA/FI_ATOMIC yet)";
	if (!uetp_format_ok(h->addr_format))
		return "addr_format";
	if (h->ep_attr && (why = uetp_check_ep_attr(h->ep_attr)))
		return why;
	if (h->domain_attr &&
	    (why = uetp_check_domain_attr(version, h->domain_attr)))
		return why;
	if (h->tx_attr && (why = uetp_check_tx_attr(h->tx_attr)))
		return why;
	if (h->rx_attr && (why = uetp_check_rx_attr(h->rx_attr)))
		return why;
	/* we require no mode bits: every h->mode is fine */
	return NULL;
}

int uetp_attr_check(uint32_t version, const struct fi_info *info)
{
	const char *why;

	if (!info || !info->ep_attr || !info->domain_attr)
		return -FI_EINVAL;
	why = uetp_check(version, info);
	if (!why && uetp_dgram_ep(info))
		why = uetp_dgram_check(info);
	if (!why && !uetp_mr_mode_usable(version, info->domain_attr->mr_mode))
		why = "domain_attr->mr_mode (FI_MR_RAW, FI_MR_RMA_EVENT, "
		      "FI_MR_MMU_NOTIFY, FI_MR_HMEM, FI_MR_COLLECTIVE are not "
		      "implemented)";
	if (why) {
		FI_WARN(&uetp_prov, FI_LOG_CORE, "fi_info not usable: %s\n",
			why);
		return -FI_ENODATA;
	}
	return 0;
}

/* ---- building entries ---- */

/* Caps granted: the primary caps asked for (all ours when none), with
 * both directions when only a class was named, plus our secondary caps. */
static uint64_t uetp_caps_for(const struct fi_info *h)
{
	uint64_t want, prim;

	want = h ? h->caps : 0;
	if (!want)
		return UETP_CAPS;
	prim = want & UETP_PRIMARY_CAPS;
	if (!(prim & (FI_MSG | FI_TAGGED | FI_RMA | FI_ATOMIC)))
		prim |= FI_MSG | FI_TAGGED;
	/* fi_getinfo.3: a class without its direction bits means both */
	if ((prim & (FI_MSG | FI_TAGGED)) && !(prim & (FI_SEND | FI_RECV)))
		prim |= FI_SEND | FI_RECV;
	if ((prim & (FI_RMA | FI_ATOMIC)) && !(prim & UETP_RMA_DIR_CAPS))
		prim |= UETP_RMA_DIR_CAPS;
	return prim | UETP_SECONDARY_CAPS;
}

static int uetp_copy_key(uint8_t **dst, size_t *dst_size, const uint8_t *key,
			 size_t size)
{
	if (!key || !size)
		return 0;
	*dst = malloc(size);
	if (!*dst)
		return -FI_ENOMEM;
	memcpy(*dst, key, size);
	*dst_size = size;
	return 0;
}

static int uetp_set_addr(void **dst, size_t *dst_len, uint32_t fmt,
			 const struct uetp_name *n)
{
	size_t len = uetp_addr_len(fmt, &n->addr);

	if (!len)
		return -FI_EINVAL;
	*dst = calloc(1, len);
	if (!*dst)
		return -FI_ENOMEM;
	uetp_addr_encode(*dst, fmt, n);
	*dst_len = len;
	return 0;
}

struct uetp_want {
	uint32_t version;
	const struct fi_info *hints;
	bool have_src, have_dst;
	struct uetp_name src, dst;
	int family;			/* UET_AF_*, 0 = any */
	bool uet_format;		/* the caller speaks FI_FORMAT_UNSPEC */
};

static struct fi_info *uetp_info_build(const struct uetp_want *w,
				       const struct uetp_iface *ifc)
{
	const struct fi_info *h = w->hints;
	const struct fi_tx_attr *htx = h ? h->tx_attr : NULL;
	const struct fi_rx_attr *hrx = h ? h->rx_attr : NULL;
	const struct fi_ep_attr *hep = h ? h->ep_attr : NULL;
	const struct fi_domain_attr *hd = h ? h->domain_attr : NULL;
	struct fi_info *fi;
	struct uetp_name src;
	char cidr[64];
	uint64_t caps;

	fi = fi_allocinfo();
	if (!fi)
		return NULL;

	caps = uetp_caps_for(h);
	fi->caps = caps;
	fi->mode = 0;
	if (w->uet_format)
		fi->addr_format = FI_FORMAT_UNSPEC;
	else
		fi->addr_format = ifc->addr.af == UET_AF_INET ?
				  FI_SOCKADDR_IN : FI_SOCKADDR_IN6;

	uetp_addr_name(&src, &ifc->addr, uetp_env.job_id);
	if (w->have_src)
		src.addr.port = w->src.addr.port;
	uetp_addr_name(&src, &src.addr, uetp_env.job_id);
	if (uetp_set_addr(&fi->src_addr, &fi->src_addrlen, fi->addr_format,
			  &src))
		goto err;
	if (w->have_dst &&
	    uetp_set_addr(&fi->dest_addr, &fi->dest_addrlen, fi->addr_format,
			  &w->dst))
		goto err;

	fi->tx_attr->caps = caps & UETP_TX_CAPS;
	fi->tx_attr->mode = 0;
	fi->tx_attr->op_flags = htx ? htx->op_flags : 0;
	fi->tx_attr->msg_order = UETP_MSG_ORDER;
	fi->tx_attr->comp_order = UETP_COMP_ORDER;
	fi->tx_attr->inject_size = htx && htx->inject_size ?
				   htx->inject_size : UETP_INJECT_SIZE;
	fi->tx_attr->size = htx && htx->size ? htx->size : uetp_env.tx_size;
	fi->tx_attr->iov_limit = htx && htx->iov_limit ?
				 htx->iov_limit : UETP_IOV_LIMIT;
	fi->tx_attr->rma_iov_limit = (caps & (FI_RMA | FI_ATOMIC)) ?
				     UETP_RMA_IOV_MAX : 0;
	fi->tx_attr->tclass = htx ? htx->tclass : FI_TC_UNSPEC;

	fi->rx_attr->caps = caps & UETP_RX_CAPS;
	fi->rx_attr->mode = 0;
	fi->rx_attr->op_flags = hrx ? hrx->op_flags : 0;
	fi->rx_attr->msg_order = UETP_MSG_ORDER;
	fi->rx_attr->comp_order = UETP_COMP_ORDER;
	fi->rx_attr->total_buffered_recv = 0;
	fi->rx_attr->size = hrx && hrx->size ? hrx->size : uetp_env.rx_size;
	fi->rx_attr->iov_limit = hrx && hrx->iov_limit ?
				 hrx->iov_limit : UETP_IOV_LIMIT;

	fi->ep_attr->type = FI_EP_RDM;
	fi->ep_attr->protocol = FI_PROTO_UNSPEC;
	fi->ep_attr->protocol_version = UETP_PROTO_VERSION;
	fi->ep_attr->max_msg_size = UETP_MAX_MSG_SIZE;
	fi->ep_attr->msg_prefix_size = 0;
	fi->ep_attr->mem_tag_format = hep && hep->mem_tag_format ?
				      hep->mem_tag_format : UETP_TAG_FORMAT;
	fi->ep_attr->tx_ctx_cnt = hep && hep->tx_ctx_cnt ? hep->tx_ctx_cnt : 1;
	fi->ep_attr->rx_ctx_cnt = hep && hep->rx_ctx_cnt ? hep->rx_ctx_cnt : 1;
	if (hep && uetp_copy_key(&fi->ep_attr->auth_key,
				 &fi->ep_attr->auth_key_size, hep->auth_key,
				 hep->auth_key_size))
		goto err;

	fi->domain_attr->name = strdup(ifc->name);
	if (!fi->domain_attr->name)
		goto err;
	fi->domain_attr->threading = hd && hd->threading ? hd->threading :
				     FI_THREAD_SAFE;
	fi->domain_attr->control_progress = hd && hd->control_progress ?
					    hd->control_progress :
					    FI_PROGRESS_AUTO;
	fi->domain_attr->data_progress = hd && hd->data_progress ?
		hd->data_progress :
		(uetp_env.progress_thread ? FI_PROGRESS_AUTO :
					    FI_PROGRESS_MANUAL);
	fi->domain_attr->resource_mgmt = hd && hd->resource_mgmt ?
					 hd->resource_mgmt : FI_RM_ENABLED;
	fi->domain_attr->av_type = hd ? hd->av_type : FI_AV_UNSPEC;
	fi->domain_attr->mr_mode = uetp_mr_mode(w->version,
						hd ? hd->mr_mode : 0, caps);
	fi->domain_attr->mr_key_size = UETP_MR_KEY_SIZE;
	fi->domain_attr->cq_data_size = UETP_CQ_DATA_SIZE;
	fi->domain_attr->cq_cnt = UETP_CQ_CNT;
	fi->domain_attr->ep_cnt = UETP_EP_CNT;
	fi->domain_attr->tx_ctx_cnt = UETP_EP_CNT;
	fi->domain_attr->rx_ctx_cnt = UETP_EP_CNT;
	/* uetp_sep.c, uetp_stx.c, uetp_srx.c */
	fi->domain_attr->max_ep_tx_ctx = UETP_SEP_CTX_MAX;
	fi->domain_attr->max_ep_rx_ctx = UETP_SEP_CTX_MAX;
	fi->domain_attr->max_ep_stx_ctx = UETP_EP_CNT;
	fi->domain_attr->max_ep_srx_ctx = UETP_EP_CNT;
	fi->domain_attr->cntr_cnt = UETP_CNTR_CNT;
	fi->domain_attr->mr_iov_limit = 1;
	fi->domain_attr->caps = UETP_DOM_CAPS;
	fi->domain_attr->mode = 0;
	if (hd && uetp_copy_key(&fi->domain_attr->auth_key,
				&fi->domain_attr->auth_key_size, hd->auth_key,
				hd->auth_key_size))
		goto err;
	fi->domain_attr->max_err_data = sizeof(struct uetp_err_data);
	fi->domain_attr->mr_cnt = UETP_MR_CNT;
	fi->domain_attr->tclass = hd ? hd->tclass : FI_TC_UNSPEC;

	uetp_iface_cidr(ifc, cidr, sizeof(cidr));
	fi->fabric_attr->name = strdup(cidr);
	if (!fi->fabric_attr->name)
		goto err;
	/* prov_name stays NULL: the core stamps it (docs/architecture.md
	 * §8.4) */
	fi->fabric_attr->prov_version = UETP_VERSION;
	return fi;
err:
	fi_freeinfo(fi);
	return NULL;
}

static bool uetp_iface_match(const struct uetp_want *w,
			     const struct uetp_iface *ifc)
{
	const struct fi_info *h = w->hints;
	char cidr[64];

	if (w->family && ifc->addr.af != w->family)
		return false;
	if (h && h->domain_attr && h->domain_attr->name &&
	    strcmp(h->domain_attr->name, ifc->name))
		return false;
	if (h && h->fabric_attr && h->fabric_attr->name) {
		uetp_iface_cidr(ifc, cidr, sizeof(cidr));
		if (strcmp(h->fabric_attr->name, cidr))
			return false;
	}
	if (w->have_src && w->src.addr.af != UET_AF_NONE) {
		if (w->src.addr.af != ifc->addr.af)
			return false;
		if (!uetp_iface_any_ip(&w->src.addr) &&
		    !uetp_iface_same_ip(&w->src.addr, &ifc->addr))
			return false;
	}
	if (w->have_dst && w->dst.addr.af != ifc->addr.af)
		return false;
	return true;
}

static int uetp_want_addr(struct uetp_want *w, const void *buf, size_t len,
			  struct uetp_name *n, bool *have)
{
	if (!buf)
		return 0;
	if (uetp_addr_decode(buf, len, n) < 0)
		return -FI_ENODATA;
	if (uetp_addr_format_of(buf, len) == FI_FORMAT_UNSPEC)
		w->uet_format = true;
	*have = true;
	return 0;
}

static int uetp_want_init(struct uetp_want *w, uint32_t version,
			  const char *node, const char *service,
			  uint64_t flags, const struct fi_info *h)
{
	bool numeric = !!(flags & FI_NUMERICHOST);
	int ret;

	memset(w, 0, sizeof(*w));
	w->version = version;
	w->hints = h;
	if (h) {
		switch (h->addr_format) {
		case FI_SOCKADDR_IN:
			w->family = UET_AF_INET;
			break;
		case FI_SOCKADDR_IN6:
			w->family = UET_AF_INET6;
			break;
		}
	}
	/* fi_getinfo.3: hints' src_addr is ignored under FI_SOURCE, its
	 * dest_addr unless node and service are both NULL */
	if (h && !(flags & FI_SOURCE)) {
		ret = uetp_want_addr(w, h->src_addr, h->src_addrlen, &w->src,
				     &w->have_src);
		if (ret)
			return ret;
	}
	if (h && ((!node && !service) || (flags & FI_SOURCE))) {
		ret = uetp_want_addr(w, h->dest_addr, h->dest_addrlen,
				     &w->dst, &w->have_dst);
		if (ret)
			return ret;
	}
	if (!node && !service)
		return 0;
	if ((flags & FI_SOURCE) && !node) {
		/* only a local port: every address of every family */
		ret = uetp_addr_resolve(NULL, service, AF_INET, true, true,
					&w->src.addr);
		if (ret)
			return ret;
		w->src.addr.af = UET_AF_NONE;
		w->have_src = true;
	} else if (flags & FI_SOURCE) {
		ret = uetp_addr_resolve(node, service,
					w->family == UET_AF_INET ? AF_INET :
					w->family == UET_AF_INET6 ? AF_INET6 :
					AF_UNSPEC, numeric, true, &w->src.addr);
		if (ret)
			return ret;
		uetp_addr_name(&w->src, &w->src.addr, uetp_env.job_id);
		w->have_src = true;
	} else {
		ret = uetp_addr_resolve(node, service,
					w->family == UET_AF_INET ? AF_INET :
					w->family == UET_AF_INET6 ? AF_INET6 :
					AF_UNSPEC, numeric, false, &w->dst.addr);
		if (ret)
			return ret;
		uetp_addr_name(&w->dst, &w->dst.addr, uetp_env.job_id);
		w->have_dst = true;
	}
	return 0;
}

/* ---- provider names and layering (docs/architecture.md §8.3) ---- */

/* Is uet the core of this ';'-separated name list, with nothing layered
 * over it? "^name" excludes a provider: the core hands us lists such as
 * "uet;^ofi_rxm" (an application's -p, or a utility provider excluding
 * itself) or "^ofi_rxd" (FI_PROVIDER=uet). Any name other than ours not
 * excluded ("ofi_rxm;ofi_rxd;uet", the rightmost name being compared)
 * asks for a stack over us. */
bool uetp_names_direct(const char *list)
{
	const size_t ours = strlen(UETP_PROV_NAME);
	const char *p = list, *end;
	size_t n;

	while (p) {
		end = strchr(p, ';');
		n = end ? (size_t)(end - p) : strlen(p);
		if (n && *p != '^' &&
		    !(n == ours && !strncasecmp(p, UETP_PROV_NAME, n)))
			return false;
		p = end ? end + 1 : NULL;
	}
	return true;
}

/* A utility provider looking for its core (OFI_CORE_PROV_ONLY) gets no
 * datagram endpoints: ofi_rxd would run its reliability over them and its
 * "uet;ofi_rxd" would come before our own FI_EP_RDM (docs/architecture.md
 * §8.3). The
 * other utilities find nothing to layer on (ofi_rxm and ofi_rstream want
 * FI_EP_MSG) or take our FI_EP_RDM as it is (ofi_mrail). */
bool uetp_layering_dgram(uint64_t flags)
{
	return (flags & UETP_CORE_PROV_ONLY) && !uetp_env.allow_layering;
}

int uetp_attr_getinfo(uint32_t version, const char *node, const char *service,
		 uint64_t flags, const struct fi_info *hints,
		 struct fi_info **info)
{
	struct fi_info *head = NULL, **tail = &head, *fi;
	/* DGRAM entries follow every RDM one */
	struct fi_info *dhead = NULL, **dtail = &dhead;
	struct uetp_iface *ifs = NULL;
	struct uetp_want w;
	const char *why, *prov;
	bool rdm, dgram;
	size_t n = 0;
	int ret, pass;

	*info = NULL;
	prov = hints && hints->fabric_attr ? hints->fabric_attr->prov_name :
					     NULL;
	if (prov && !uetp_names_direct(prov) && !uetp_env.allow_layering) {
		FI_INFO(&uetp_prov, FI_LOG_CORE,
			"not layering under \"%s\" (FI_UET_ALLOW_LAYERING=1 "
			"allows it)\n", prov);
		return -FI_ENODATA;
	}
	if (hints && (why = uetp_check(version, hints))) {
		FI_INFO(&uetp_prov, FI_LOG_CORE, "hints not supported: %s\n",
			why);
		return -FI_ENODATA;
	}
	dgram = uetp_dgram_wanted(hints) && !uetp_layering_dgram(flags);
	rdm = !hints || !hints->ep_attr || hints->ep_attr->type != FI_EP_DGRAM;
	if (!rdm && !dgram) {
		FI_INFO(&uetp_prov, FI_LOG_CORE,
			"no FI_EP_DGRAM for a utility provider (\"%s\"): it "
			"would replace our reliability (FI_UET_ALLOW_LAYERING=1 "
			"allows it)\n", prov ? prov : "");
		return -FI_ENODATA;
	}
	if (dgram && hints && (why = uetp_dgram_check(hints))) {
		dgram = false;
		if (!rdm) {
			FI_INFO(&uetp_prov, FI_LOG_CORE,
				"hints not supported: %s\n", why);
			return -FI_ENODATA;
		}
	}
	ret = uetp_want_init(&w, version, node, service, flags, hints);
	if (ret)
		return ret;
	if (w.uet_format && hints && (hints->addr_format == FI_SOCKADDR_IN ||
				      hints->addr_format == FI_SOCKADDR_IN6))
		w.uet_format = false;

	ret = uetp_iface_list(&ifs, &n);
	if (ret) {
		FI_INFO(&uetp_prov, FI_LOG_CORE, "no usable interface%s%s\n",
			uetp_env.iface ? " in FI_UET_IFACE=" : "",
			uetp_env.iface ? uetp_env.iface : "");
		return -FI_ENODATA;
	}
	/* with a destination, interfaces on its subnet come first */
	for (pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < n; i++) {
			bool near = w.have_dst &&
				    uetp_iface_contains(&ifs[i], &w.dst.addr);

			if (w.have_dst && near != (pass == 0))
				continue;
			if (!w.have_dst && pass == 1)
				continue;
			if (!uetp_iface_match(&w, &ifs[i]))
				continue;
			fi = rdm ? uetp_info_build(&w, &ifs[i]) : NULL;
			if (rdm && !fi) {
				ret = -FI_ENOMEM;
				goto err;
			}
			if (fi) {
				*tail = fi;
				tail = &fi->next;
			}
			fi = dgram ? uetp_info_build(&w, &ifs[i]) : NULL;
			if (dgram && !fi) {
				ret = -FI_ENOMEM;
				goto err;
			}
			if (fi && uetp_dgram_info(fi, hints, &ifs[i])) {
				fi_freeinfo(fi);
			} else if (fi) {
				*dtail = fi;
				dtail = &fi->next;
			}
		}
	}
	*tail = dhead;
	dhead = NULL;
	free(ifs);
	if (!head) {
		FI_INFO(&uetp_prov, FI_LOG_CORE,
			"no interface matches the requested names/addresses\n");
		return -FI_ENODATA;
	}
	*info = head;
	return 0;
err:
	free(ifs);
	fi_freeinfo(head);
	fi_freeinfo(dhead);
	return ret;
}
