/* What a run measures over time: the watched (bottleneck) queue, sampled
 * as its average and peak over fixed bins, and every flow's goodput per
 * window, from which windowed Jain fairness is computed:
 *
 *	J = (sum x)^2 / (n * sum x^2)
 *
 * over the flows active for the whole window (started, not yet
 * complete), for every window with at least two of them and some
 * goodput (all idle is undefined, not fair). The window
 * should hold several packets of every flow at its fair share, or
 * packet granularity alone reads as unfairness: the default is 1/32 of
 * the ideal completion time, i.e. 16 packets per flow for an incast of
 * 2 MiB flows.
 */
#ifndef UET_SIM_METRIC_H
#define UET_SIM_METRIC_H

#include <stddef.h>
#include <stdint.h>

#include "evq.h"
#include "link.h"

struct uet_sim;

struct uet_metric {
	uint32_t qlink;		/* the watched link */
	uet_ps qbin;
	double qarea_last;
	double *qavg;		/* bytes, per bin */
	uint64_t *qmax;
	double *qbusy;		/* share of the bin the wire sent */
	uint64_t qtx_last;
	size_t nq, capq;
	uet_ps win;
	uint32_t nflows;
	uint64_t *good;		/* payload bytes [window * nflows + flow] */
	size_t nwin;
};

void uet_metric_init(struct uet_metric *m, uint32_t qlink, uet_ps qbin,
		     uet_ps win, uint32_t nflows);
void uet_metric_fini(struct uet_metric *m);
/* End of a queue bin at now (now = bins so far * qbin). */
void uet_metric_sample(struct uet_metric *m, struct uet_link *l, uet_ps now);
/* Flow got bytes of new payload at t. */
void uet_metric_good(struct uet_metric *m, uint32_t flow, uet_ps t,
		     uint64_t bytes);
/* Windowed Jain fairness over the run: mean, min, windows counted. */
void uet_metric_jain(const struct uet_sim *s, double *mean, double *min,
		     uint32_t *n);
/* Write queue.dat, rate.dat, rate_summary.dat and flows.csv into dir
 * (which must exist). 0 or -1 (errno set). */
int uet_metric_write(const struct uet_sim *s, const char *dir);

#endif
