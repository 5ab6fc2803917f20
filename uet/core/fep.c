/* The engine's front door (include/uet/fep.h): owns the PDS and SES of one
 * endpoint, demultiplexes received packets by PDS type, and hands out
 * packets in priority order: NACKs, control (ACK, CLEAR, CP), resends due,
 * then new packets from the PDCs whose window allows, round robin.
 */
#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "uet/alloc.h"
#include "uet/fep.h"
#include "uet/wire.h"

#include "../pds/cl.h"
#include "../pds/ini.h"
#include "../pds/nack.h"
#include "../pds/pds.h"
#include "../pds/tgt.h"
#include "../ses/ses.h"
#include "../tss/tss.h"

/* The last request (or read data) received that a message goes on after:
 * what a plan for direct placement starts from (uet_fep_place). */
struct fep_hint {
	bool valid;
	bool ret;			/* read data, return direction */
	struct uet_addr src;
	uint16_t pdc, rpdc;		/* its DPDCID and SPDCID */
	uint16_t msg_id;		/* the message's, the read's */
	uint8_t opcode;
	uint32_t psn;
	uint32_t off;			/* its message offset */
	uint32_t seg;			/* its payload: the sender's size */
	size_t hdr_len;
};

struct uet_fep {
	struct uet_fep_config cfg;
	struct uet_callbacks cb;
	void *user;
	struct uet_pds *pds;
	struct uet_ses *ses;
	struct uet_fep_stats st;
	uet_time now;
	bool busy;		/* inside a call: callbacks must not re-enter */
	const struct uet_alloc *prev_alloc;	/* the caller's, inside a call */
	struct uet_tss *tss;	/* NULL: no transport security */
	uint8_t *tss_buf;	/* FEP_TSS_BUF: a packet opened */
	size_t wire_mtu;	/* largest packet as given (mtu or host_mtu);
				 * PDS sees less with TSS */
	struct fep_hint hint;
};

void uet_fep_config_default(struct uet_fep_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* IPv6 UDP payload of a 1500-byte Ethernet frame (1500 - 40 - 8). */
	cfg->mtu = 1452;
	cfg->max_msg_size = 1u << 30;
	cfg->inject_size = 64;
	cfg->tx_depth = 1024;
	cfg->rx_depth = 1024;
	cfg->unexp_max = 4u << 20;
	/* A PDC per peer and direction: 1024 peers that we send to and that
	 * send to us, without churn, and all of them may open at once (half
	 * of the table may be half-open). ~5 KB a PDC with a 64-packet
	 * window, most of it untouched until used. */
	cfg->pdc_max = 2048;
	cfg->rod = false;
	cfg->window = 64;
	cfg->cca = UET_CCA_FIXED;
	cfg->link_bps = 100000000000ull;	/* 100 Gb/s */
	cfg->base_rtt = 12 * UET_USEC;		/* the UEC simulator's reference */
	cfg->trimming = false;
	/* 20 ms .. 1 s, 8 retries: a dead peer fails an operation after
	 * 20+40+...+640+3*1000 ms = 4.26 s (docs/choices.md §4.1). The floor
	 * is for a stack in software: under manual progress an ACK waits
	 * until the peer's application calls in again, and on a loaded host
	 * that takes several ms now and then (5 ms retransmitted ~1 packet
	 * in 30 of an 8-process all-to-all on a clean loopback); the RTT
	 * estimate raises the RTO above it where the path is slower. */
	cfg->rto_min = 20 * UET_MSEC;
	cfg->rto_max = 1 * UET_SEC;
	/* A target out of unexpected-message buffer is alive and frees it
	 * as soon as its application posts the receive (a few us under
	 * MPI): waiting rto_min for that stalled every large unexpected
	 * message 20 ms. */
	cfg->nack_retx = 1 * UET_MSEC;
	cfg->max_retx = 8;
	cfg->ack_delay = 250 * UET_USEC;
	cfg->ack_every = 16;
	cfg->loss_infer = true;
	cfg->reorder_window = 0;
	cfg->rcv_infer = 8;
	cfg->pdc_idle = 1 * UET_SEC;
	/* Longer than a retry span (4.26 s): an application that retries
	 * a dead peer at once learns without waiting it again. */
	cfg->unreach_hold = 5 * UET_SEC;
	cfg->entropy_count = 16;
	/* One GSO train per value: 16 MTU-1500 packets are 23 KB, and a
	 * 64-packet window still takes 4 paths. */
	cfg->entropy_run = 16;
	cfg->run_whole = true;
	cfg->ack_steer = true;
	cfg->ecn = UET_ECN_ECT0;
}

static void fep_enter(struct uet_fep *fep, uet_time now)
{
	/* docs/architecture.md §2: no re-entry from callbacks; time only
	 * moves on. */
	assert(!fep->busy);
	assert(now == UET_TIME_NONE || now >= fep->now);
	fep->busy = true;
	if (now != UET_TIME_NONE)
		fep->now = now;
	/* Without an allocator of its own the thread's stays the C
	 * library's (no engine call is in progress on it: callbacks do not
	 * call in), and the thread-local is not touched: in a shared
	 * library each access is a call, twenty per ping-pong round trip. */
	if (fep->cfg.alloc)
		fep->prev_alloc = uet_alloc_enter(fep->cfg.alloc);
}

static void fep_leave(struct uet_fep *fep)
{
	if (fep->cfg.alloc)
		uet_alloc_leave(fep->prev_alloc);
	fep->busy = false;
}

/* Opened packets land here: as long as any datagram, not our MTU, for a
 * peer's packets may be larger than ours (another MTU, host_mtu). */
#define FEP_TSS_BUF	65536u

/* TSS takes its header and ICV out of every packet PDS builds. */
static int fep_tss_open(struct uet_fep *fep)
{
	const struct uet_tss_cfg *t = fep->cfg.tss;
	int rc;

	fep->cfg.tss = NULL;		/* the caller's; not kept */
	if (!t || t->mode == UET_TSS_OFF)
		return 0;
	if (fep->cfg.mtu < 512 + uet_tss_overhead())
		return UET_ERR_INVAL;
	fep->tss_buf = uet_malloc(FEP_TSS_BUF);
	if (!fep->tss_buf)
		return UET_ERR_NOMEM;
	rc = uet_tss_new(&fep->tss, t, &fep->cfg.local);
	if (rc) {
		uet_free(fep->tss_buf);
		return rc;
	}
	fep->cfg.mtu -= uet_tss_overhead();
	if (fep->cfg.host_mtu > uet_tss_overhead())
		fep->cfg.host_mtu -= uet_tss_overhead();
	return 0;
}

static void fep_tss_close(struct uet_fep *fep)
{
	uet_tss_free(fep->tss);
	uet_free(fep->tss_buf);
}

static int fep_open(struct uet_fep **fepp, const struct uet_fep_config *cfg,
		    const struct uet_callbacks *cb, void *user, uet_time now)
{
	struct uet_fep *fep;
	int rc;

	fep = uet_calloc(1, sizeof(*fep));
	if (!fep)
		return UET_ERR_NOMEM;
	fep->cfg = *cfg;
	fep->cb = *cb;
	fep->user = user;
	fep->now = now;
	fep->wire_mtu = uet_fep_config_mtu_max(cfg);
	rc = fep_tss_open(fep);
	if (rc) {
		uet_free(fep);
		return rc;
	}
	rc = uet_pds_create(&fep->pds, &fep->cfg, &fep->cb, user, &fep->st,
			    now);
	if (rc) {
		fep_tss_close(fep);
		uet_free(fep);
		return rc;
	}
	rc = uet_ses_create(&fep->ses, &fep->cfg, &fep->cb, user, fep->pds);
	if (rc) {
		uet_pds_destroy(fep->pds);
		fep_tss_close(fep);
		uet_free(fep);
		return rc;
	}
	uet_pds_attach(fep->pds, fep->ses);
	*fepp = fep;
	return 0;
}

int uet_fep_open(struct uet_fep **fepp, const struct uet_fep_config *cfg,
		 const struct uet_callbacks *cb, void *user, uet_time now)
{
	const struct uet_alloc *prev;
	int rc;

	if (!fepp || !cfg || !cb || !cb->complete || !cb->rand)
		return UET_ERR_INVAL;
	prev = uet_alloc_enter(cfg->alloc);
	rc = fep_open(fepp, cfg, cb, user, now);
	uet_alloc_leave(prev);
	return rc;
}

void uet_fep_close(struct uet_fep *fep)
{
	const struct uet_alloc *prev;

	if (!fep)
		return;
	assert(!fep->busy);
	prev = uet_alloc_enter(fep->cfg.alloc);
	/* PDS first: it releases every packet without calling SES. */
	uet_pds_destroy(fep->pds);
	uet_ses_destroy(fep->ses);
	fep_tss_close(fep);
	uet_free(fep);
	uet_alloc_leave(prev);
}

void uet_fep_flush(struct uet_fep *fep)
{
	fep_enter(fep, UET_TIME_NONE);
	uet_ses_flush(fep->ses);
	fep_leave(fep);
}

int uet_fep_post(struct uet_fep *fep, const struct uet_op *op, uet_time now)
{
	int rc;

	if (!op)
		return UET_ERR_INVAL;
	fep_enter(fep, now);
	rc = uet_ses_post(fep->ses, op, now);
	fep_leave(fep);
	return rc;
}

int uet_fep_cancel(struct uet_fep *fep, void *context)
{
	int rc;

	fep_enter(fep, UET_TIME_NONE);
	rc = uet_ses_cancel(fep->ses, context);
	fep_leave(fep);
	return rc;
}

/* A decoded packet to the role that handles its PDS type. */
static int fep_demux(struct uet_fep *fep, const struct uet_pkt_info *pi,
		     const struct uet_pkt *p, uet_time now)
{
	switch (p->pds.type) {
	case UET_PDS_RUD_REQ:
	case UET_PDS_ROD_REQ:
	case UET_PDS_RUD_CC_REQ:
	case UET_PDS_ROD_CC_REQ:
		return uet_tgt_rx_req(fep->pds, pi, p, now);
	case UET_PDS_ACK:
	case UET_PDS_ACK_CC:
	case UET_PDS_ACK_CCX:
		return uet_ini_rx_ack(fep->pds, pi, p, now);
	case UET_PDS_NACK:
	case UET_PDS_NACK_CCX:
		return uet_nack_rx(fep->pds, pi, &p->pds, now);
	case UET_PDS_CTRL:
		return uet_pds_rx_ctrl(fep->pds, pi, &p->pds, now);
	case UET_PDS_RUDI_REQ:
	case UET_PDS_RUDI_RESP:
	case UET_PDS_UUD_REQ:
		return uet_cl_rx(fep->pds, pi, p, now);
	default:
		/* The CC request types are not spoken. */
		fep->st.drop_other++;
		return UET_ERR_INVAL;
	}
}

/* A packet for a secured fep: sealed, and opening it verifies. A clear
 * one is refused, and so is a trimmed one: its header was encrypted, so
 * what is left cannot be authenticated (docs/choices.md §11.1). */
static ssize_t fep_tss_unseal(struct uet_fep *fep, const struct uet_pkt_info *pi,
			      const uint8_t *pkt, size_t len, uet_time now)
{
	if (!len || pkt[0] >> 3 != UET_PDS_TYPE_TSS) {
		uet_tss_bypass(fep->tss);
		return UET_ERR_TSS_CLEAR;
	}
	if (pi->trimmed)
		return UET_ERR_TSS_AUTH;
	if (len > FEP_TSS_BUF)
		return UET_ERR_WIRE_LENGTH;	/* no datagram is this long */
	return uet_tss_open(fep->tss, &pi->src, pkt, len, fep->tss_buf, now);
}

/* SES requests and responses carry a JobID: the secure domain's only. */
static bool fep_tss_unbound(struct uet_fep *fep, const struct uet_pkt *p)
{
	if (p->has_req)
		return !uet_tss_bound(fep->tss, p->req.job_id);
	if (p->has_rsp)
		return !uet_tss_bound(fep->tss, p->rsp.job_id);
	return false;
}

/* A request that a message may go on after (not its last packet) or read
 * data: remembered for a plan. Forward and return direction alike are
 * RUD requests; SYN packets still look for their PDC. */
static void fep_note(struct uet_fep *fep, const struct uet_pkt_info *pi,
		     const struct uet_pkt *p)
{
	struct fep_hint *h = &fep->hint;
	const struct uet_pds_hdr *d = &p->pds;

	h->valid = false;
	if ((d->type != UET_PDS_RUD_REQ && d->type != UET_PDS_RUD_CC_REQ) ||
	    (d->flags & UET_PDS_F_SYN) || !p->payload_len)
		return;
	if (p->has_req && p->req.format == UET_NH_REQ_STD &&
	    !(p->req.flags & UET_SES_F_EOM)) {
		h->ret = false;
		h->msg_id = p->req.message_id;
		h->opcode = p->req.opcode;
		h->off = p->req.flags & UET_SES_F_SOM ? 0 :
						       p->req.message_offset;
	} else if (p->has_rsp && p->rsp.format == UET_NH_RSP_DATA) {
		h->ret = true;
		h->msg_id = p->rsp.read_request_message_id;
		h->opcode = 0;
		h->off = p->rsp.message_offset;
	} else {
		return;
	}
	h->valid = true;
	h->src = pi->src;
	h->pdc = d->req.dpdcid;
	h->rpdc = d->req.spdcid;
	h->psn = d->req.psn;
	h->seg = (uint32_t)p->payload_len;
	h->hdr_len = p->hdr_len;
}

/* A packet decoded (rc: the decoder's answer) to the role it is for. */
static int fep_rx_decoded(struct uet_fep *fep, const struct uet_pkt_info *pi,
			  const struct uet_pkt *p, int rc, uet_time now)
{
	if (rc < 0) {
		/* Never trusted: dropped and counted (docs/architecture.md §2). */
		fep->st.drop_malformed++;
		return rc;
	}
	if (p->has_tss) {
		/* Not enabled here, or nested inside TSS. */
		fep->st.drop_other++;
		return UET_ERR_DROPPED;
	}
	if (fep->tss && fep_tss_unbound(fep, p)) {
		fep->st.drop_tss++;
		return UET_ERR_TSS_BINDING;
	}
	fep_note(fep, pi, p);
	return fep_demux(fep, pi, p, now);
}

/* The arguments were fine: whatever went wrong was the packet's, and the
 * layer that dropped it counted it. */
static int fep_rx_result(int rc)
{
	if (rc > 0)
		return 0;
	if (rc < 0 && !uet_err_is_drop(rc))
		return UET_ERR_DROPPED;
	return rc;
}

/* A packet in the clear, inside the call: pkt[0 .. len), or with apart
 * its headers there and its payload_len bytes of payload at payload. */
static int fep_rx_clear(struct uet_fep *fep, const struct uet_pkt_info *pi,
			const uint8_t *pkt, size_t len, bool apart,
			const uint8_t *payload, size_t payload_len,
			uet_time now)
{
	struct uet_pkt p;
	int rc;

	if (pi->trimmed) {
		fep->hint.valid = false;
		return uet_pds_rx_trimmed(fep->pds, pi, pkt, len, now);
	}
	memset(&p, 0, sizeof(p));
	rc = apart ? uet_pkt_decode_sg(&p, pkt, len, payload, payload_len) :
		     uet_pkt_decode_into(&p, pkt, len, 0);
	return fep_rx_decoded(fep, pi, &p, rc, now);
}

int uet_fep_recv(struct uet_fep *fep, const struct uet_pkt_info *pi,
		 const uint8_t *pkt, size_t len, uet_time now)
{
	int rc;

	if (!pi || (!pkt && len))
		return UET_ERR_INVAL;
	fep_enter(fep, now);
	fep->st.rx_pkts++;
	fep->st.rx_bytes += len;
	if (fep->cb.trace)
		fep->cb.trace(fep->user, 0, pi, pkt, len);
	if (fep->tss) {
		ssize_t n = fep_tss_unseal(fep, pi, pkt, len, now);

		if (n < 0) {
			fep->st.drop_tss++;
			fep_leave(fep);
			return (int)n;
		}
		pkt = fep->tss_buf;
		len = (size_t)n;
	}
	rc = fep_rx_clear(fep, pi, pkt, len, false, NULL, 0, now);
	fep_leave(fep);
	return fep_rx_result(rc);
}

int uet_fep_recv_sg(struct uet_fep *fep, const struct uet_pkt_info *pi,
		    const uint8_t *hdr, size_t hdr_len, const uint8_t *payload,
		    size_t payload_len, uet_time now)
{
	int rc;

	if (!pi || !hdr || (!payload && payload_len) || fep->tss ||
	    fep->cb.trace)
		return UET_ERR_INVAL;
	fep_enter(fep, now);
	fep->st.rx_pkts++;
	fep->st.rx_bytes += hdr_len + payload_len;
	rc = fep_rx_clear(fep, pi, hdr, hdr_len, true, payload, payload_len,
			  now);
	fep_leave(fep);
	return fep_rx_result(rc);
}

int uet_fep_place(struct uet_fep *fep, unsigned max, struct uet_fep_place *pl)
{
	const struct fep_hint *h = &fep->hint;
	struct uet_pdc_ref *ref;
	uint32_t len;
	uint8_t *dst;
	unsigned n;

	if (!pl || !h->valid || fep->tss || fep->cb.trace || !max)
		return 0;
	if (max > UET_NET_PLACE_MAX)
		max = UET_NET_PLACE_MAX;
	n = uet_tgt_place(fep->pds, h->pdc, &h->src, h->rpdc, h->ret,
			  h->psn + 1, max, &ref);
	len = n * h->seg;
	if (!n || !uet_ses_place(ref, h->ret, h->msg_id, h->opcode,
				 h->off + h->seg, h->seg, &len, &dst))
		return 0;
	memset(pl, 0, sizeof(*pl));
	pl->net.src = h->src;
	pl->net.hdr_len = h->hdr_len;
	pl->net.seg = h->seg;
	pl->net.n = (len + h->seg - 1) / h->seg;
	pl->net.last = len - (pl->net.n - 1) * h->seg;
	pl->net.dst = dst;
	pl->pdc = h->pdc;
	pl->rpdc = h->rpdc;
	pl->psn = h->psn + 1;
	pl->off = h->off + h->seg;
	pl->msg_id = h->msg_id;
	pl->opcode = h->opcode;
	pl->ret = h->ret;
	return 1;
}

bool uet_fep_place_check(const struct uet_fep_place *pl, unsigned k,
			 const uint8_t *hdr, size_t hdr_len,
			 size_t payload_len)
{
	const struct uet_pds_hdr *d;
	struct uet_pkt p;
	size_t want;
	uint32_t off;

	if (!pl || !hdr || k >= pl->net.n || hdr_len != pl->net.hdr_len)
		return false;
	want = k + 1 == pl->net.n ? pl->net.last : pl->net.seg;
	memset(&p, 0, sizeof(p));
	if (payload_len != want ||
	    uet_pkt_decode_sg(&p, hdr, hdr_len, NULL, payload_len) < 0)
		return false;
	d = &p.pds;
	if ((d->type != UET_PDS_RUD_REQ && d->type != UET_PDS_RUD_CC_REQ) ||
	    (d->flags & UET_PDS_F_SYN) || d->req.dpdcid != pl->pdc ||
	    d->req.spdcid != pl->rpdc || d->req.psn != pl->psn + k)
		return false;
	off = pl->off + k * (uint32_t)pl->net.seg;
	if (pl->ret)
		return p.has_rsp && p.rsp.format == UET_NH_RSP_DATA &&
		       p.rsp.read_request_message_id == pl->msg_id &&
		       p.rsp.message_offset == off;
	return p.has_req && p.req.format == UET_NH_REQ_STD &&
	       p.req.opcode == pl->opcode && p.req.message_id == pl->msg_id &&
	       !(p.req.flags & UET_SES_F_SOM) && p.req.message_offset == off;
}

bool uet_fep_place_settle(const struct uet_fep_place *pl,
			  struct uet_net_msg *msgs, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (msgs[i].placed &&
		    !uet_fep_place_check(pl, msgs[i].placed - 1, msgs[i].buf,
					 msgs[i].len, msgs[i].ext_len))
			break;
	if (i == n)
		return true;
	for (i = 0; i < n; i++)
		if (msgs[i].placed)
			uet_net_msg_flatten(&msgs[i]);
	return false;
}

ssize_t uet_fep_poll_tx(struct uet_fep *fep, struct uet_pkt_info *pi,
			uint8_t *buf, size_t cap, uet_time now)
{
	return uet_fep_poll_tx_sg(fep, pi, buf, cap, NULL, now);
}

ssize_t uet_fep_poll_tx_sg(struct uet_fep *fep, struct uet_pkt_info *pi,
			   uint8_t *buf, size_t cap, struct uet_iov *ext,
			   uet_time now)
{
	uint8_t *out = buf;	/* where PDS writes: after the TSS header */
	ssize_t n;

	if (!pi || !buf || cap < fep->wire_mtu)
		return UET_ERR_INVAL;
	if (ext) {
		ext->base = NULL;
		ext->len = 0;
	}
	/* Sealing and the capture need the bytes in one place. */
	if (fep->tss || fep->cb.trace)
		ext = NULL;
	fep_enter(fep, now);
	uet_ses_tx_ext(fep->ses, ext);
	/* No packet is more than its peer's MTU (SES and PDS size each). */
	cap = uet_fep_config_mtu_max(&fep->cfg);
	if (fep->tss)
		out = buf + uet_tss_headroom();
	n = uet_nack_poll(fep->pds, pi, out, cap, now);
	if (!n)
		n = uet_pds_poll_ctl(fep->pds, pi, out, cap, now);
	if (!n)
		n = uet_pds_poll_retx(fep->pds, pi, out, cap, now);
	if (!n)
		n = uet_pds_poll_new(fep->pds, pi, out, cap, now);
	uet_ses_tx_ext(fep->ses, NULL);
	if (n <= 0 && ext)
		ext->len = 0;
	if (n > 0 && fep->tss) {
		/* Not sealed (counter exhausted): lost, as on the wire;
		 * PDS resends and finally gives up on the peer. */
		n = uet_tss_seal_in_place(fep->tss, &pi->dst, buf, (size_t)n,
					  fep->wire_mtu);
		if (n < 0)
			n = 0;
	}
	if (n > 0) {
		fep->st.tx_pkts++;
		fep->st.tx_bytes += (uint64_t)n;
		if (fep->cb.trace)
			fep->cb.trace(fep->user, 1, pi, buf, (size_t)n);
	}
	fep_leave(fep);
	return n;
}

uet_time uet_fep_next_timeout(const struct uet_fep *fep)
{
	return uet_pds_next_timeout(fep->pds);
}

void uet_fep_handle_timeout(struct uet_fep *fep, uet_time now)
{
	fep_enter(fep, now);
	uet_pds_handle_timeout(fep->pds, now);
	fep_leave(fep);
}

uet_time uet_fep_linger_until(const struct uet_fep *fep, uet_time quiet)
{
	return uet_pds_linger_until(fep->pds, quiet);
}

size_t uet_fep_tx_left(const struct uet_fep *fep)
{
	return uet_ses_tx_left(fep->ses);
}

size_t uet_fep_rx_left(const struct uet_fep *fep)
{
	return uet_ses_rx_left(fep->ses);
}

void uet_fep_stats(const struct uet_fep *fep, struct uet_fep_stats *st)
{
	*st = fep->st;
	uet_ses_stats_fep(fep->ses, st);
}

size_t uet_fep_cc_info(const struct uet_fep *fep, struct uet_cc_info *out,
		       size_t max)
{
	return uet_pds_cc_info(fep->pds, out, max);
}

int uet_fep_mr_reg(struct uet_fep *fep, const struct uet_mr_attr *attr)
{
	int rc;

	fep_enter(fep, UET_TIME_NONE);
	rc = uet_ses_mr_reg(fep->ses, attr);
	fep_leave(fep);
	return rc;
}

int uet_fep_mr_dereg(struct uet_fep *fep, uint64_t key)
{
	int rc;

	fep_enter(fep, UET_TIME_NONE);
	rc = uet_ses_mr_dereg(fep->ses, key);
	fep_leave(fep);
	return rc;
}

size_t uet_fep_amo_max(const struct uet_fep *fep, uint8_t type, uint8_t op,
		       uint8_t dt)
{
	return uet_ses_amo_valid(op, dt, type, fep->cfg.mtu);
}

int uet_fep_tss_stats(const struct uet_fep *fep, struct uet_tss_stats *st)
{
	if (!fep->tss)
		return UET_ERR_INVAL;
	uet_tss_stats(fep->tss, st);
	return 0;
}
