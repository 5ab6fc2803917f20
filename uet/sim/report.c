/* Results of a run, and how they are printed (see sim.h). */
#include <string.h>
#include <sys/resource.h>

#include "sim.h"

static double us(uet_ps t)
{
	return (double)t / (double)UET_PS_US;
}

static const char *cc_name(uint8_t cca)
{
	switch (cca) {
	case UET_CCA_FIXED:
		return "fixed";
	case UET_CCA_NSCC:
		return "nscc";
	case UET_CCA_RCCC:
		return "rccc";
	case UET_CCA_NSCC_RCCC:
		return "nscc+rccc";
	}
	return "?";
}

static void flows_result(struct uet_sim *s, struct uet_sim_result *r)
{
	double gsum = 0;
	uint32_t i;

	r->good_min = -1;
	for (i = 0; i < s->nflows; i++) {
		const struct uet_flow *f = &s->flows[i];
		bool tx = f->tx_done != UET_PS_NONE, rx = f->rx_done != UET_PS_NONE;
		double g;

		if ((tx && f->tx_err) || (rx && f->rx_err) ||
		    (rx && f->rx_len != f->size)) {
			r->failed++;
			continue;
		}
		if (!tx || !rx)
			continue;	/* unfinished */
		r->completed++;
		if (f->rx_done > r->last)
			r->last = f->rx_done;
		if (!r->first || f->rx_done < r->first)
			r->first = f->rx_done;
		g = f->rx_done > f->start ?
		    (double)f->size * 8 / us(f->rx_done - f->start) / 1e3 : 0;
		gsum += g;
		if (r->good_min < 0 || g < r->good_min)
			r->good_min = g;
		if (g > r->good_max)
			r->good_max = g;
	}
	if (r->good_min < 0)
		r->good_min = 0;
	r->good_mean = r->completed ? gsum / r->completed : 0;
}

/* The watched link's wire time over the run up to the last completion:
 * below 1, the bottleneck idled (or carried less than the flows). */
static double report_busy(const struct uet_sim *s,
			  const struct uet_sim_result *r)
{
	const struct uet_link *l = &s->topo.links[s->metric.qlink];
	double bits = (double)l->tx_bytes * 8.0;

	if (!r->last)
		return 0;
	return bits / (double)l->cfg.bps / ((double)r->last / 1e12);
}

/* Microseconds the watched wire idled in the queue bins that end in
 * (from, to]: a bin's share is its frames', so to a packet or so. */
static double report_idle(const struct uet_sim *s, uet_ps from, uet_ps to)
{
	const struct uet_metric *m = &s->metric;
	double idle = 0;
	size_t i;

	for (i = 0; i < m->nq; i++) {
		uet_ps end = (uet_ps)(i + 1) * m->qbin;

		if (end > from && end <= to)
			idle += (1.0 - m->qbusy[i]) * us(m->qbin);
	}
	return idle;
}

void uet_report_result(struct uet_sim *s, struct uet_sim_result *r)
{
	const struct uet_link *q = &s->topo.links[s->metric.qlink];
	uint32_t i;

	memset(r, 0, sizeof(*r));
	r->flows = s->nflows;
	r->verify_bad = uet_flows_verify(s);
	r->verified = s->verify;
	flows_result(s, r);
	r->ideal = s->ideal;
	r->ratio = r->ideal ? (double)r->last / (double)r->ideal : 0;
	r->q_avg_bdp = s->end ? q->area / (double)s->end / (double)s->bdp : 0;
	r->q_max_bdp = (double)q->peak / (double)s->bdp;
	r->busy = report_busy(s, r);
	r->idle_us = (1.0 - r->busy) * us(r->last);
	r->idle_tail_us = report_idle(s, r->first, r->last);
	uet_metric_jain(s, &r->jain_mean, &r->jain_min, &r->jain_windows);
	for (i = 0; i < s->topo.nlinks; i++) {
		const struct uet_link *l = &s->topo.links[i];
		double avg = s->end ? l->area / (double)s->end / (double)s->bdp : 0;

		if (!s->topo.nodes[l->from].host && avg > r->q_busiest_bdp) {
			r->q_busiest_bdp = avg;
			r->q_busiest = i;
		}
		r->drops += l->drops_lo + l->drops_hi;
		r->trims += l->trims;
		r->marks += l->marks;
		r->frames += l->tx_frames;
	}
	for (i = 0; i < s->nhosts; i++) {
		struct uet_fep_stats st;

		uet_fep_stats(s->hosts[i].fep, &st);
		r->retx_rto += st.retx_rto;
		r->retx_nack += st.retx_nack;
		r->retx_sack += st.retx_sack;
		r->retx_tlp += st.retx_tlp;
		r->nacks += st.nacks_tx;
		r->pdc_failed += st.pdc_failed;
	}
	r->retx = r->retx_rto + r->retx_nack + r->retx_sack + r->retx_tlp;
	r->events = s->events;
	r->unfinished = r->flows - r->completed - r->failed;
	r->lost_for_good = r->failed || r->verify_bad || r->pdc_failed;
}

static long max_rss_kb(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) ? 0 : ru.ru_maxrss;
}

static const char *node_name(const struct uet_sim *s, uint32_t n)
{
	static const char *const tier[] = { "host", "leaf", "spine", "core" };
	const struct uet_node *nd = &s->topo.nodes[n];

	if (s->cfg.topo.kind == UET_TOPO_FATTREE && nd->tier == 1)
		return "edge";
	if (s->cfg.topo.kind == UET_TOPO_FATTREE && nd->tier == 2)
		return "agg";
	if (s->cfg.topo.kind == UET_TOPO_STAR && nd->tier == 1)
		return "switch";
	return tier[nd->tier < 4 ? nd->tier : 3];
}

static const char *traffic_name(const struct uet_sim *s, char *buf,
				size_t cap)
{
	if (s->cfg.traffic == UET_TRAFFIC_PERM)
		snprintf(buf, cap, "permutation of %u hosts", s->nhosts);
	else
		snprintf(buf, cap, "incast %u -> 1", s->nflows);
	return buf;
}

void uet_report_print(const struct uet_sim *s, const struct uet_sim_result *r,
		      FILE *out)
{
	const struct uet_sim_config *c = &s->cfg;
	const struct uet_link *busy = &s->topo.links[r->q_busiest];
	double wire = s->mtu + c->framing;
	char tb[64];

	fprintf(out, "uetsim: %s, %s (%u hosts, %u switch%s), %.0f Gb/s, "
		"%.3f us/hop, %llu B per flow\n",
		traffic_name(s, tb, sizeof(tb)), uet_topo_name(c->topo.kind),
		s->nhosts, s->topo.nnodes - s->nhosts,
		s->topo.nnodes - s->nhosts == 1 ? "" : "es",
		(double)c->link_bps / 1e9,
		us(c->hop), (unsigned long long)c->size);
	fprintf(out, "  fabric      base RTT %.3f us, BDP %llu B (%.1f pkts of "
		"%u+%u B); switch queue %.2g BDP, %s; priority queue %.2g BDP;"
		" ECN %.2g-%.2g BDP\n", us(s->base_rtt),
		(unsigned long long)s->bdp, (double)s->bdp / wire, s->mtu,
		c->framing, c->buffer_bdp > 0 ? c->buffer_bdp : c->trim ? 1 : 5,
		c->trim ? "trim to 64 B" : "tail drop", c->hi_buffer_bdp,
		c->ecn_min_bdp, c->ecn_max_bdp);
	if (c->degrade || c->degrade_host >= 0)
		fprintf(out, "  degraded    %u random cables%s at %.0f%%\n",
			c->degrade, c->degrade_host >= 0 ? " + receiver's" : "",
			c->degrade_factor * 100);
	fprintf(out, "  engine      cc %s, window %u pkts, ack every %u, "
		"rto_min %.2f us, entropies %u, seed %llu\n", cc_name(c->cca),
		s->window, c->ack_every,
		(double)s->hosts[0].cfg.rto_min / 1e3, c->entropies,
		(unsigned long long)c->seed);
	fprintf(out, "  flows       %u/%u complete, %u failed, %u unfinished, "
		"data %s%s\n", r->completed, r->flows, r->failed,
		r->unfinished,
		r->verified ? (r->verify_bad ? "CORRUPT" : "verified") :
			      "length-checked",
		r->lost_for_good ? ", DATA LOST FOR GOOD" :
		r->unfinished ? "" : ", no packet lost for good");
	if (s->stuck)
		fprintf(out, "  STUCK       a fep's deadline never moved on\n");
	fprintf(out, "  completion  last %.3f us, ideal %.3f us, ratio %.3f "
		"(headers alone: %.3f)\n", us(r->last), us(r->ideal), r->ratio,
		wire / c->payload);
	fprintf(out, "  queue       avg %.3f BDP, max %.3f BDP (into host %u, "
		"its wire busy %.2f%% until the last completion, idle "
		"%.1f us, %.1f us of it after the first); "
		"busiest switch port avg %.3f BDP (%s %u -> %s %u)\n",
		r->q_avg_bdp, r->q_max_bdp, s->topo.links[s->metric.qlink].to,
		100.0 * r->busy, r->idle_us, r->idle_tail_us,
		r->q_busiest_bdp, node_name(s, busy->from), busy->from,
		node_name(s, busy->to), busy->to);
	fprintf(out, "  fairness    Jain mean %.4f, min %.4f over %u windows of "
		"%.3f us\n", r->jain_mean, r->jain_min, r->jain_windows,
		us(s->metric.win));
	fprintf(out, "  goodput     per flow min %.2f mean %.2f max %.2f Gb/s\n",
		r->good_min, r->good_mean, r->good_max);
	fprintf(out, "  losses      drops %llu, trims %llu, ECN marks %llu, "
		"retransmissions %llu (NACK %llu, SACK %llu, tail probe %llu, "
		"RTO %llu), NACKs %llu, PDCs failed %llu\n",
		(unsigned long long)r->drops, (unsigned long long)r->trims,
		(unsigned long long)r->marks, (unsigned long long)r->retx,
		(unsigned long long)r->retx_nack, (unsigned long long)r->retx_sack,
		(unsigned long long)r->retx_tlp, (unsigned long long)r->retx_rto,
		(unsigned long long)r->nacks,
		(unsigned long long)r->pdc_failed);
	fprintf(out, "  run         %.2fM events, %.2fM frames, %.3f s wall, "
		"frame pool %.1f MB, feps %.1f MB (mean %.1f KB, largest %.1f "
		"KB), max RSS %.0f MB\n", (double)r->events / 1e6,
		(double)r->frames / 1e6, s->wall,
		(double)uet_frame_pool_bytes(&s->pool) / 1e6,
		(double)s->fep_bytes / 1e6,
		(double)s->fep_bytes / 1e3 / (s->nhosts ? s->nhosts : 1),
		(double)s->fep_bytes_max / 1e3, (double)max_rss_kb() / 1e3);
}

void uet_report_kv(const struct uet_sim *s, const struct uet_sim_result *r,
		   FILE *out)
{
	fprintf(out, "result cc=%s flows=%u completed=%u failed=%u "
		"unfinished=%u ratio=%.4f floor=%.4f "
		"last_us=%.3f ideal_us=%.3f idle_us=%.1f idle_tail_us=%.1f "
		"q_avg_bdp=%.4f q_max_bdp=%.4f q_busiest_bdp=%.4f jain=%.4f "
		"jain_min=%.4f drops=%llu "
		"trims=%llu marks=%llu "
		"retx=%llu retx_nack=%llu retx_sack=%llu retx_tlp=%llu "
		"retx_rto=%llu lost=%d verified=%d "
		"events=%llu wall_s=%.3f rss_mb=%.0f fep_kb=%.1f "
		"fep_kb_max=%.1f\n",
		cc_name(s->cfg.cca), r->flows, r->completed, r->failed,
		r->unfinished, r->ratio,
		(double)(s->mtu + s->cfg.framing) / (double)s->cfg.payload,
		us(r->last), us(r->ideal), r->idle_us, r->idle_tail_us,
		r->q_avg_bdp,
		r->q_max_bdp, r->q_busiest_bdp, r->jain_mean, r->jain_min,
		(unsigned long long)r->drops,
		(unsigned long long)r->trims, (unsigned long long)r->marks,
		(unsigned long long)r->retx, (unsigned long long)r->retx_nack,
		(unsigned long long)r->retx_sack, (unsigned long long)r->retx_tlp,
		(unsigned long long)r->retx_rto, r->lost_for_good,
		r->verified && !r->verify_bad, (unsigned long long)r->events,
		s->wall, (double)max_rss_kb() / 1e3,
		(double)s->fep_bytes / 1e3 / (s->nhosts ? s->nhosts : 1),
		(double)s->fep_bytes_max / 1e3);
}

void uet_report_hosts(const struct uet_sim *s, FILE *out)
{
	uint32_t i;

	fprintf(out, "host tx_pkts rx_pkts retx_rto retx_nack retx_sack retx_tlp "
		"acks_tx acks_rx "
		"nacks_tx nacks_rx dup_rx drop_malformed drop_pdc drop_psn "
		"drop_other pdc_open pdc_failed rx_refused tx_errors\n");
	for (i = 0; i < s->nhosts; i++) {
		const struct uet_host *h = &s->hosts[i];
		struct uet_fep_stats st;

		uet_fep_stats(h->fep, &st);
		fprintf(out, "%u %llu %llu %llu %llu %llu %llu %llu %llu %llu "
			"%llu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", i,
			(unsigned long long)st.tx_pkts,
			(unsigned long long)st.rx_pkts,
			(unsigned long long)st.retx_rto,
			(unsigned long long)st.retx_nack,
			(unsigned long long)st.retx_sack,
			(unsigned long long)st.retx_tlp,
			(unsigned long long)st.acks_tx,
			(unsigned long long)st.acks_rx,
			(unsigned long long)st.nacks_tx,
			(unsigned long long)st.nacks_rx,
			(unsigned long long)st.dup_rx,
			(unsigned long long)st.drop_malformed,
			(unsigned long long)st.drop_pdc,
			(unsigned long long)st.drop_psn,
			(unsigned long long)st.drop_other,
			(unsigned long long)st.pdc_open,
			(unsigned long long)st.pdc_failed,
			(unsigned long long)h->rx_refused,
			(unsigned long long)h->tx_errors);
	}
}
