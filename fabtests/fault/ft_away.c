/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ft_away: a sender turns away from libfabric with its sends in flight.
 *
 * The sender posts a burst of messages, then makes no libfabric call for
 * AWAY seconds (as an application computing, or blocked on a socket of
 * its own), then reaps the completions. The sink drops some of the
 * packets it receives (the driver sets FI_UET_IMPAIR), so the burst is
 * complete only if they are resent while the sender is away. It must
 * be, within the bound: a transport over a NIC resends without its
 * application, and so must uet.
 *
 *   ft_away -p PROV -k                 sink: prints "ft_away: sink
 *                                      127.0.0.1 PORT", then how long the
 *                                      burst took to arrive
 *   ft_away -p PROV -a IP:PORT         sender
 *
 * Pass: the sink has every message, verified, exactly once, within BOUND
 * seconds of the first; the sender's sends all complete without error.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "fault.h"

#define MAGIC		0x41574159u	/* "AWAY" */
#define BURST_MAX	256

struct opts {
	const char *prov;
	bool sink;
	const char *addr;
	unsigned burst;			/* -n */
	size_t size;			/* -s */
	double away_s;			/* -A */
	double bound_s;			/* -B */
	int timeout_s;
};

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s -p PROV -k | -p PROV -a IP:PORT\n"
		"  -n N  messages in the burst (default 64, at most %d)\n"
		"  -s N  bytes per message (default 2000)\n"
		"  -A S  sender: seconds away from libfabric (default 3)\n"
		"  -B S  sink: the burst must arrive within S s of its first "
		"message (default 1)\n"
		"  -T S  give up after S seconds (default 60)\n", argv0,
		BURST_MAX);
}

static int sink(const struct opts *o)
{
	struct fault_ep e;
	struct fault_op *ops = calloc(o->burst, sizeof(*ops));
	uint8_t seen[BURST_MAX] = { 0 }, counted[BURST_MAX] = { 0 };
	double end = fault_now() + o->timeout_s, t_first = 0, t_all = 0;
	unsigned got = 0, dup = 0, bad = 0;
	char name[64], why[160];
	int rc = 1;

	if (!ops || fault_ep_open(&e, o->prov)) {
		free(ops);
		return 1;
	}
	fault_addr_str(name, sizeof(name), &e.name);
	printf("ft_away: sink %s provider %s\n", name,
	       e.info->fabric_attr->prov_name);
	fflush(stdout);
	for (unsigned i = 0; i < o->burst; i++) {
		ops[i].buf = malloc(o->size);
		if (!ops[i].buf ||
		    fault_post_recv(&e, &ops[i], o->size, end, NULL, NULL))
			goto out;
	}
	while (got + bad < o->burst) {
		if (fault_progress(&e, NULL, NULL) < 0)
			goto out;
		for (unsigned i = 0; i < o->burst; i++) {
			struct fault_op *op = &ops[i];
			uint32_t seq, flags;

			if (op->busy || counted[i])
				continue;
			counted[i] = 1;
			if (!t_first || op->t_done < t_first)
				t_first = op->t_done;
			if (op->t_done > t_all)
				t_all = op->t_done;
			if (op->err || fault_msg_check(op->buf, op->rlen, MAGIC,
						       &seq, &flags, why,
						       sizeof(why)) ||
			    seq >= o->burst) {
				fprintf(stderr, "sink: bad message (err %d): "
					"%s\n", op->err, why);
				bad++;
			} else if (seen[seq]++) {
				dup++;
			} else {
				got++;
			}
		}
		if (fault_now() > end) {
			fprintf(stderr, "sink: timed out with %u of %u\n", got,
				o->burst);
			goto out;
		}
	}
	rc = got != o->burst || dup || bad || t_all - t_first > o->bound_s;
out:
	printf("ft_away: sink received %u of %u dup %u bad %u in %.3f s "
	       "(bound %.3f s)\n", got, o->burst, dup, bad,
	       t_all && t_first ? t_all - t_first : -1.0, o->bound_s);
	printf("ft_away: sink %s\n", rc ? "FAIL" : "PASS");
	fflush(stdout);
	/* Linger so the last ACKs reach the sender before this endpoint
	 * goes. */
	for (double t = fault_now() + 0.2; fault_now() < t;)
		fault_progress(&e, NULL, NULL);
	fault_ep_close(&e);
	for (unsigned i = 0; i < o->burst; i++)
		free(ops[i].buf);
	free(ops);
	return rc;
}

static int sender(const struct opts *o)
{
	struct fault_ep e;
	struct fault_op *ops = calloc(o->burst, sizeof(*ops));
	struct sockaddr_in sin;
	struct timespec away;
	double end = fault_now() + o->timeout_s;
	unsigned ok = 0, err = 0;
	fi_addr_t fa;
	int rc = 1;

	if (!ops || fault_ep_open(&e, o->prov)) {
		free(ops);
		return 1;
	}
	if (fault_addr_parse(o->addr, &sin) || fault_av_insert(&e, &sin, &fa))
		goto out;
	for (unsigned i = 0; i < o->burst; i++) {
		ops[i].buf = malloc(o->size);
		if (!ops[i].buf)
			goto out;
		ops[i].len = o->size;
		ops[i].seq = i;
		fault_msg_fill(ops[i].buf, o->size, MAGIC, i, 0);
		if (fault_post_send(&e, &ops[i], fa, end, NULL, NULL))
			goto out;
	}
	/* Away: no libfabric call at all. */
	away.tv_sec = (time_t)o->away_s;
	away.tv_nsec = (long)((o->away_s - (double)away.tv_sec) * 1e9);
	while (nanosleep(&away, &away))
		;
	for (unsigned i = 0; i < o->burst; i++) {
		if (fault_wait(&e, &ops[i], end, NULL, NULL))
			goto out;
		if (ops[i].err)
			err++;
		else
			ok++;
	}
	rc = ok != o->burst;
out:
	printf("ft_away: sender sent %u ok %u err %u\n", o->burst, ok, err);
	printf("ft_away: sender %s\n", rc ? "FAIL" : "PASS");
	fflush(stdout);
	fault_ep_close(&e);
	for (unsigned i = 0; i < o->burst; i++)
		free(ops[i].buf);
	free(ops);
	return rc;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.burst = 64, .size = 2000, .away_s = 3, .bound_s = 1,
		.timeout_s = 60,
	};
	int c;

	while ((c = getopt(argc, argv, "p:ka:n:s:A:B:T:h")) != -1) {
		switch (c) {
		case 'p': o.prov = optarg; break;
		case 'k': o.sink = true; break;
		case 'a': o.addr = optarg; break;
		case 'n': o.burst = (unsigned)atoi(optarg); break;
		case 's': o.size = (size_t)atol(optarg); break;
		case 'A': o.away_s = atof(optarg); break;
		case 'B': o.bound_s = atof(optarg); break;
		case 'T': o.timeout_s = atoi(optarg); break;
		default: usage(argv[0]); return 2;
		}
	}
	if (!o.prov || o.sink == !!o.addr || !o.burst ||
	    o.burst > BURST_MAX || o.size < FAULT_HDR_LEN) {
		usage(argv[0]);
		return 2;
	}
	return o.sink ? sink(&o) : sender(&o);
}
