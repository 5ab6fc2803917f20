/* Queue samples, goodput windows, Jain fairness and the data files (see
 * metric.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

void uet_metric_init(struct uet_metric *m, uint32_t qlink, uet_ps qbin,
		     uet_ps win, uint32_t nflows)
{
	memset(m, 0, sizeof(*m));
	m->qlink = qlink;
	m->qbin = qbin ? qbin : UET_PS_US;
	m->win = win ? win : UET_PS_US;
	m->nflows = nflows;
}

void uet_metric_fini(struct uet_metric *m)
{
	free(m->qavg);
	free(m->qmax);
	free(m->qbusy);
	free(m->good);
	memset(m, 0, sizeof(*m));
}

void uet_metric_sample(struct uet_metric *m, struct uet_link *l, uet_ps now)
{
	if (m->nq == m->capq) {
		m->capq = m->capq ? 2 * m->capq : 1024;
		m->qavg = uet_sim_realloc(m->qavg, m->capq * sizeof(*m->qavg));
		m->qmax = uet_sim_realloc(m->qmax, m->capq * sizeof(*m->qmax));
		m->qbusy = uet_sim_realloc(m->qbusy,
					   m->capq * sizeof(*m->qbusy));
	}
	uet_link_account(l, now);
	m->qavg[m->nq] = (l->area - m->qarea_last) / (double)m->qbin;
	m->qmax[m->nq] = l->bin_peak;
	/* Frames count when their last bit leaves: a share, not exact. */
	m->qbusy[m->nq] = (double)(l->tx_bytes - m->qtx_last) * 8.0 /
			  (double)l->cfg.bps /
			  ((double)m->qbin / (double)UET_PS_SEC);
	m->qtx_last = l->tx_bytes;
	m->nq++;
	m->qarea_last = l->area;
	l->bin_peak = uet_link_queued(l);
}

void uet_metric_good(struct uet_metric *m, uint32_t flow, uet_ps t,
		     uint64_t bytes)
{
	size_t w = (size_t)(t / m->win);

	if (w >= m->nwin) {
		size_t n = m->nwin ? m->nwin : 64;

		while (n <= w)
			n *= 2;
		m->good = uet_sim_realloc(m->good, n * m->nflows *
					  sizeof(*m->good));
		memset(m->good + m->nwin * m->nflows, 0,
		       (n - m->nwin) * m->nflows * sizeof(*m->good));
		m->nwin = n;
	}
	m->good[w * m->nflows + flow] += bytes;
}

/* Active for the whole of [a, b): started by a, not complete before b. */
static bool flow_active(const struct uet_flow *f, uet_ps a, uet_ps b)
{
	return f->start <= a && (f->rx_done == UET_PS_NONE || f->rx_done >= b);
}

/* Jain's index of window w, or -1 with fewer than two flows active or
 * none of them served (undefined; idle time shows in the completion
 * ratio, not here). */
static double window_jain(const struct uet_sim *s, size_t w, uint32_t *nact)
{
	const struct uet_metric *m = &s->metric;
	uet_ps a = (uet_ps)w * m->win, b = a + m->win;
	double sum = 0, sq = 0;
	uint32_t i, n = 0;

	for (i = 0; i < m->nflows; i++) {
		double x;

		if (!flow_active(&s->flows[i], a, b))
			continue;
		x = w < m->nwin ? (double)m->good[w * m->nflows + i] : 0;
		sum += x;
		sq += x * x;
		n++;
	}
	*nact = n;
	if (n < 2 || sq <= 0)
		return -1;
	return sum * sum / (n * sq);
}

static size_t windows_run(const struct uet_sim *s)
{
	return (size_t)(s->end / s->metric.win);
}

void uet_metric_jain(const struct uet_sim *s, double *mean, double *min,
		     uint32_t *n)
{
	size_t w, nw = windows_run(s);
	double sum = 0, lo = 1;
	uint32_t cnt = 0, act;

	for (w = 0; w < nw; w++) {
		double j = window_jain(s, w, &act);

		if (j < 0)
			continue;
		sum += j;
		if (j < lo)
			lo = j;
		cnt++;
	}
	*mean = cnt ? sum / cnt : 1;
	*min = cnt ? lo : 1;
	*n = cnt;
}

static FILE *open_in(const char *dir, const char *name)
{
	char path[4096];

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, name) >=
	    sizeof(path)) {
		errno = ENAMETOOLONG;
		return NULL;
	}
	return fopen(path, "w");
}

static double us(uet_ps t)
{
	return (double)t / (double)UET_PS_US;
}

static int write_queue(const struct uet_sim *s, const char *dir)
{
	const struct uet_metric *m = &s->metric;
	FILE *f = open_in(dir, "queue.dat");
	size_t i;

	if (!f)
		return -1;
	fprintf(f, "# watched queue (link %u into host %u), BDP = %llu bytes\n"
		"# t_us avg_bdp max_bdp avg_bytes max_bytes busy\n", m->qlink,
		s->topo.links[m->qlink].to, (unsigned long long)s->bdp);
	for (i = 0; i < m->nq; i++)
		fprintf(f, "%.4f %.4f %.4f %.0f %llu %.4f\n",
			us((uet_ps)(i + 1) * m->qbin),
			m->qavg[i] / (double)s->bdp,
			(double)m->qmax[i] / (double)s->bdp, m->qavg[i],
			(unsigned long long)m->qmax[i], m->qbusy[i]);
	return fclose(f);
}

/* Gb/s of bytes in one window. */
static double gbps(const struct uet_metric *m, uint64_t bytes)
{
	return (double)bytes * 8.0 / ((double)m->win / (double)UET_PS_SEC) /
	       1e9;
}

static int write_rate(const struct uet_sim *s, const char *dir)
{
	const struct uet_metric *m = &s->metric;
	FILE *f = open_in(dir, "rate.dat"), *g;
	size_t w, nw = windows_run(s);
	uint32_t i, act;

	if (!f)
		return -1;
	fprintf(f, "# goodput per flow per %.3f us window; one block per flow"
		" (gnuplot index = flow)\n# t_us gbps\n", us(m->win));
	for (i = 0; i < m->nflows; i++) {
		const struct uet_flow *fl = &s->flows[i];

		fprintf(f, "# flow %u %u->%u\n", i, fl->src, fl->dst);
		for (w = 0; w < nw; w++) {
			uet_ps a = (uet_ps)w * m->win;

			if (a + m->win <= fl->start ||
			    (fl->rx_done != UET_PS_NONE && a > fl->rx_done))
				continue;
			fprintf(f, "%.4f %.3f\n", us(a + m->win / 2),
				gbps(m, w < m->nwin ?
				     m->good[w * m->nflows + i] : 0));
		}
		fprintf(f, "\n\n");
	}
	if (fclose(f))
		return -1;
	g = open_in(dir, "rate_summary.dat");
	if (!g)
		return -1;
	fprintf(g, "# per window, over flows active all of it\n"
		"# t_us min_gbps mean_gbps max_gbps jain active\n");
	for (w = 0; w < nw; w++) {
		uet_ps a = (uet_ps)w * m->win;
		double j = window_jain(s, w, &act), lo = -1, hi = 0, sum = 0;

		if (j < 0)
			continue;
		for (i = 0; i < m->nflows; i++) {
			double x;

			if (!flow_active(&s->flows[i], a, a + m->win))
				continue;
			x = gbps(m, w < m->nwin ? m->good[w * m->nflows + i] : 0);
			sum += x;
			if (lo < 0 || x < lo)
				lo = x;
			if (x > hi)
				hi = x;
		}
		fprintf(g, "%.4f %.3f %.3f %.3f %.4f %u\n", us(a + m->win / 2),
			lo, sum / act, hi, j, act);
	}
	return fclose(g);
}

static int write_flows(const struct uet_sim *s, const char *dir)
{
	FILE *f = open_in(dir, "flows.csv");
	uint32_t i;

	if (!f)
		return -1;
	fprintf(f, "flow,src,dst,bytes,start_us,fct_us,goodput_gbps,"
		"sender_done_us,rx_err,tx_err,verified,src_retx_rto,"
		"src_retx_nack,src_retx_sack,src_retx_tlp,src_nacks_rx\n");
	for (i = 0; i < s->nflows; i++) {
		const struct uet_flow *fl = &s->flows[i];
		struct uet_fep_stats st;
		double fct = -1, good = 0;

		uet_fep_stats(s->hosts[fl->src].fep, &st);
		if (fl->rx_done != UET_PS_NONE) {
			fct = us(fl->rx_done - fl->start);
			good = fct > 0 ? (double)fl->size * 8 / fct / 1e3 : 0;
		}
		fprintf(f, "%u,%u,%u,%llu,%.4f,%.4f,%.3f,%.4f,%d,%d,%d,%llu,"
			"%llu,%llu,%llu,%llu\n", i, fl->src, fl->dst,
			(unsigned long long)fl->size, us(fl->start), fct, good,
			fl->tx_done == UET_PS_NONE ? -1.0 : us(fl->tx_done),
			fl->rx_err, fl->tx_err, fl->verified,
			(unsigned long long)st.retx_rto,
			(unsigned long long)st.retx_nack,
			(unsigned long long)st.retx_sack,
			(unsigned long long)st.retx_tlp,
			(unsigned long long)st.nacks_rx);
	}
	return fclose(f);
}

int uet_metric_write(const struct uet_sim *s, const char *dir)
{
	if (write_queue(s, dir) || write_rate(s, dir) || write_flows(s, dir))
		return -1;
	return 0;
}
