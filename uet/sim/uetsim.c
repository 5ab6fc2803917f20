/* uetsim: run a scenario of many real feps through a modelled fabric and
 * print what happened (see sim.h, and `uetsim --help`). */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "uet/err.h"

#include "sim.h"

static void usage(FILE *f)
{
	fputs(
"usage: uetsim [options]\n"
"Fabric\n"
"  --topo star|leafspine|fattree2|fattree   (star)\n"
"  --hosts N             star: hosts (senders + 1)\n"
"  --k K                 fattree: 3-tier k-ary (k^3/4 hosts, (k/2)^2 paths\n"
"                        between pods); fattree2: leaves k of k/2 hosts,\n"
"                        k/2 spines\n"
"  --leaves L --leaf-hosts P --spines S   leafspine\n"
"  --rate R              every link (400G)\n"
"  --hop T               propagation delay per link (1us)\n"
"  --payload B           payload per full packet (4096)\n"
"  --framing B           wire bytes per packet beyond UET's (48)\n"
"  --per-packet B        wire bytes per full packet beyond its payload,\n"
"                        UET headers included (framing: B less those;\n"
"                        the UEC simulator, htsim, counts 64)\n"
"  --buffer X            switch data queue, BDPs (1 trimming, 5 dropping)\n"
"  --hi-buffer X         switch priority queue, BDPs (1)\n"
"  --ecn MIN,MAX|off     RED-like marking band, BDPs (0.2,0.8)\n"
"  --no-trim             tail-drop instead of trimming\n"
"  --degrade N           N random switch-switch cables at --degrade-factor\n"
"  --degrade-host I      host I's cable too\n"
"  --degrade-factor F    of rate and buffer (0.25)\n"
"Traffic\n"
"  --traffic incast|perm|one (incast: hosts 1..N -> host 0; perm: every\n"
"                        host to another, a random derangement; one: host\n"
"                        0 to the last, alone)\n"
"  --senders N           incast senders (8)\n"
"  --size B              bytes per flow (2MiB)\n"
"  --start T             when every flow starts (0)\n"
"  --start-jitter T      each flow later by up to T, seeded (0)\n"
"  --tie-jitter T        every frame arrives up to T late, so that frames\n"
"                        meeting at a port queue in random order (16ps;\n"
"                        0: the senders' order, every time)\n"
"Engine (per fep)\n"
"  --cc fixed|nscc|rccc|nscc+rccc   congestion control (fixed)\n"
"  --window N            fixed window, packets (one BDP)\n"
"  --ack-every N (1)  --ack-delay T (1us)  --rto-min T (4 base RTTs)\n"
"  --rto-max T (1ms)  --max-retx N (31)\n"
"  --entropies N (256)  --entropy-run N (1)\n"
"  --lb single|oblivious|reps|bitmap|mixed   entropy selection (bitmap)\n"
"  --reorder-window T (a quarter of the smallest RTT)  --no-loss-infer\n"
"Run\n"
"  --seed N (1)  --limit T (10s of simulated time)\n"
"  --sample T            queue sampling bin (ideal/2000)\n"
"  --jain-window T       goodput and fairness window (ideal/32)\n"
"  --verify, --no-verify check every received byte (auto: <= 512 MiB)\n"
"  --out DIR             write queue.dat rate.dat rate_summary.dat\n"
"                        flows.csv summary.txt (contrib/sim/plot.sh DIR)\n"
"  --kv                  also print one key=value result line\n"
"  --host-stats          print every host's engine counters\n"
"  -q, --quiet           print only the key=value line\n"
"Sizes take K M G (10^3) or KiB MiB GiB; times ps ns us ms s (bare: ns);\n"
"rates K M G (bits/s). Exit: 0 every flow complete and intact, 1 not,\n"
"2 bad usage or a config the engine refused.\n", f);
}

static int bad(const char *opt, const char *arg)
{
	fprintf(stderr, "uetsim: bad value for %s: '%s'\n", opt, arg);
	return -1;
}

/* A number with an optional unit from table; the unit's multiplier. */
struct unit {
	const char *name;
	double mul;
};

static int parse_unit(const char *s, const struct unit *u, double bare,
		      double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || v < 0)
		return -1;
	if (!*end) {
		*out = v * bare;
		return 0;
	}
	for (; u->name; u++) {
		if (!strcmp(end, u->name)) {
			*out = v * u->mul;
			return 0;
		}
	}
	return -1;
}

static int parse_time(const char *s, uet_ps *t)
{
	static const struct unit u[] = {
		{ "ps", 1 }, { "ns", 1e3 }, { "us", 1e6 }, { "ms", 1e9 },
		{ "s", 1e12 }, { NULL, 0 } };
	double v;

	if (parse_unit(s, u, 1e3, &v) || v > 1e19)
		return -1;
	*t = (uet_ps)(v + 0.5);
	return 0;
}

static int parse_size(const char *s, uint64_t *n)
{
	static const struct unit u[] = {
		{ "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "KB", 1e3 },
		{ "MB", 1e6 }, { "GB", 1e9 }, { "KiB", 1024.0 },
		{ "MiB", 1048576.0 }, { "GiB", 1073741824.0 }, { "B", 1 },
		{ NULL, 0 } };
	double v;

	if (parse_unit(s, u, 1, &v) || v > 1e18)
		return -1;
	*n = (uint64_t)(v + 0.5);
	return 0;
}

static int parse_rate(const char *s, uint64_t *bps)
{
	static const struct unit u[] = {
		{ "K", 1e3 }, { "M", 1e6 }, { "G", 1e9 }, { "T", 1e12 },
		{ "Gbps", 1e9 }, { "Mbps", 1e6 }, { NULL, 0 } };
	double v;

	if (parse_unit(s, u, 1, &v) || v < 1 || v > 1e16)
		return -1;
	*bps = (uint64_t)(v + 0.5);
	return 0;
}

static int parse_uint(const char *s, unsigned long max, unsigned long *v)
{
	char *end;

	errno = 0;
	*v = strtoul(s, &end, 0);
	return errno || end == s || *end || *v > max ? -1 : 0;
}

static int parse_double(const char *s, double *v)
{
	char *end;

	errno = 0;
	*v = strtod(s, &end);
	return errno || end == s || *end || *v < 0 ? -1 : 0;
}

static int parse_cc(const char *s, uint8_t *cca)
{
	if (!strcmp(s, "fixed"))
		*cca = UET_CCA_FIXED;
	else if (!strcmp(s, "nscc"))
		*cca = UET_CCA_NSCC;
	else if (!strcmp(s, "rccc"))
		*cca = UET_CCA_RCCC;
	else if (!strcmp(s, "nscc+rccc"))
		*cca = UET_CCA_NSCC_RCCC;
	else
		return -1;
	return 0;
}

static int parse_ecn(const char *s, struct uet_sim_config *c)
{
	char *end;

	if (!strcmp(s, "off")) {
		c->ecn_min_bdp = c->ecn_max_bdp = 0;
		return 0;
	}
	errno = 0;
	c->ecn_min_bdp = strtod(s, &end);
	if (errno || *end != ',')
		return -1;
	return parse_double(end + 1, &c->ecn_max_bdp) ||
	       c->ecn_min_bdp > c->ecn_max_bdp ? -1 : 0;
}

static int parse_topo(const char *s, struct uet_sim_config *c, bool *ft2)
{
	*ft2 = false;
	if (!strcmp(s, "star"))
		c->topo.kind = UET_TOPO_STAR;
	else if (!strcmp(s, "leafspine"))
		c->topo.kind = UET_TOPO_LEAFSPINE;
	else if (!strcmp(s, "fattree"))
		c->topo.kind = UET_TOPO_FATTREE;
	else if (!strcmp(s, "fattree2"))
		c->topo.kind = UET_TOPO_LEAFSPINE, *ft2 = true;
	else
		return -1;
	return 0;
}

enum {
	O_TOPO = 256, O_HOSTS, O_K, O_LEAVES, O_LEAF_HOSTS, O_SPINES, O_RATE,
	O_HOP, O_PAYLOAD, O_FRAMING, O_PER_PACKET, O_BUFFER, O_HI_BUFFER,
	O_ECN, O_NO_TRIM, O_DEGRADE, O_DEGRADE_HOST, O_DEGRADE_FACTOR,
	O_TRAFFIC, O_SENDERS, O_SIZE, O_START, O_START_JITTER, O_TIE_JITTER,
	O_CC, O_WINDOW, O_ACK_EVERY, O_ACK_DELAY, O_RTO_MIN, O_RTO_MAX,
	O_MAX_RETX, O_ENTROPIES, O_ENTROPY_RUN, O_SEED, O_LIMIT, O_SAMPLE,
	O_JAIN_WINDOW, O_LB, O_REORDER, O_NO_INFER, O_VERIFY, O_NO_VERIFY,
	O_OUT, O_KV, O_HOST_STATS,
};

static const struct option opts[] = {
	{ "topo", 1, 0, O_TOPO }, { "hosts", 1, 0, O_HOSTS },
	{ "k", 1, 0, O_K }, { "leaves", 1, 0, O_LEAVES },
	{ "leaf-hosts", 1, 0, O_LEAF_HOSTS }, { "spines", 1, 0, O_SPINES },
	{ "rate", 1, 0, O_RATE }, { "hop", 1, 0, O_HOP },
	{ "payload", 1, 0, O_PAYLOAD }, { "framing", 1, 0, O_FRAMING },
	{ "per-packet", 1, 0, O_PER_PACKET },
	{ "buffer", 1, 0, O_BUFFER }, { "hi-buffer", 1, 0, O_HI_BUFFER },
	{ "ecn", 1, 0, O_ECN }, { "no-trim", 0, 0, O_NO_TRIM },
	{ "degrade", 1, 0, O_DEGRADE }, { "degrade-host", 1, 0, O_DEGRADE_HOST },
	{ "degrade-factor", 1, 0, O_DEGRADE_FACTOR },
	{ "traffic", 1, 0, O_TRAFFIC }, { "senders", 1, 0, O_SENDERS },
	{ "size", 1, 0, O_SIZE }, { "start", 1, 0, O_START },
	{ "start-jitter", 1, 0, O_START_JITTER },
	{ "tie-jitter", 1, 0, O_TIE_JITTER },
	{ "cc", 1, 0, O_CC }, { "window", 1, 0, O_WINDOW },
	{ "ack-every", 1, 0, O_ACK_EVERY }, { "ack-delay", 1, 0, O_ACK_DELAY },
	{ "rto-min", 1, 0, O_RTO_MIN }, { "rto-max", 1, 0, O_RTO_MAX },
	{ "max-retx", 1, 0, O_MAX_RETX }, { "entropies", 1, 0, O_ENTROPIES },
	{ "entropy-run", 1, 0, O_ENTROPY_RUN }, { "lb", 1, 0, O_LB },
	{ "reorder-window", 1, 0, O_REORDER }, { "no-loss-infer", 0, 0, O_NO_INFER }, { "seed", 1, 0, O_SEED },
	{ "limit", 1, 0, O_LIMIT }, { "sample", 1, 0, O_SAMPLE },
	{ "jain-window", 1, 0, O_JAIN_WINDOW }, { "verify", 0, 0, O_VERIFY },
	{ "no-verify", 0, 0, O_NO_VERIFY }, { "out", 1, 0, O_OUT },
	{ "kv", 0, 0, O_KV }, { "host-stats", 0, 0, O_HOST_STATS }, { "quiet", 0, 0, 'q' }, { "help", 0, 0, 'h' },
	{ NULL, 0, 0, 0 },
};

struct cli {
	struct uet_sim_config cfg;
	const char *out;
	bool kv, quiet, ft2, host_stats;
	unsigned long k;
};

/* One option into cli; -1 on a bad value. */
static int parse_opt(struct cli *o, int c, const char *a)
{
	struct uet_sim_config *cfg = &o->cfg;
	unsigned long v = 0;
	uint64_t n;
	uet_ps t;

	switch (c) {
	case O_TOPO:
		return parse_topo(a, cfg, &o->ft2) ? bad("--topo", a) : 0;
	case O_HOSTS: case O_K: case O_LEAVES: case O_LEAF_HOSTS:
	case O_SPINES: case O_SENDERS: case O_WINDOW: case O_ACK_EVERY:
	case O_MAX_RETX: case O_ENTROPIES: case O_ENTROPY_RUN: case O_DEGRADE:
	case O_FRAMING: case O_PER_PACKET: case O_PAYLOAD:
		if (parse_uint(a, 1u << 20, &v))
			return bad("a count", a);
		break;
	}
	switch (c) {
	case O_HOSTS: cfg->topo.hosts = (unsigned)v; break;
	case O_K: o->k = v; cfg->topo.k = (unsigned)v; break;
	case O_LEAVES: cfg->topo.leaves = (unsigned)v; break;
	case O_LEAF_HOSTS: cfg->topo.leaf_hosts = (unsigned)v; break;
	case O_SPINES: cfg->topo.spines = (unsigned)v; break;
	case O_SENDERS: cfg->senders = (uint32_t)v; break;
	case O_WINDOW: cfg->window = (unsigned)v; break;
	case O_ACK_EVERY: cfg->ack_every = (unsigned)v; break;
	case O_MAX_RETX: cfg->max_retx = (unsigned)v; break;
	case O_ENTROPIES:
		if (v > 0xFFFF)
			return bad("--entropies", a);
		cfg->entropies = (uint16_t)v;
		break;
	case O_ENTROPY_RUN:
		if (v > 0xFFFF)
			return bad("--entropy-run", a);
		cfg->entropy_run = (uint16_t)v;
		break;
	case O_DEGRADE: cfg->degrade = (unsigned)v; break;
	case O_LB: {
		static const char *const names[] = {
			[UET_LB_SINGLE] = "single",
			[UET_LB_OBLIVIOUS] = "oblivious",
			[UET_LB_REPS] = "reps", [UET_LB_BITMAP] = "bitmap",
			[UET_LB_MIXED] = "mixed",
		};
		unsigned k;

		for (k = UET_LB_SINGLE; k <= UET_LB_MIXED; k++)
			if (!strcmp(a, names[k]))
				break;
		if (k > UET_LB_MIXED)
			return bad("--lb", a);
		cfg->lb = (uint8_t)k;
		break;
	}
	case O_FRAMING: cfg->framing = (uint32_t)v; break;
	case O_PER_PACKET: cfg->per_packet = (uint32_t)v; break;
	case O_PAYLOAD: cfg->payload = (uint32_t)v; break;
	case O_RATE:
		return parse_rate(a, &cfg->link_bps) ? bad("--rate", a) : 0;
	case O_HOP:
		return parse_time(a, &cfg->hop) ? bad("--hop", a) : 0;
	case O_BUFFER:
		return parse_double(a, &cfg->buffer_bdp) ? bad("--buffer", a) : 0;
	case O_HI_BUFFER:
		return parse_double(a, &cfg->hi_buffer_bdp) ?
		       bad("--hi-buffer", a) : 0;
	case O_ECN:
		return parse_ecn(a, cfg) ? bad("--ecn", a) : 0;
	case O_NO_TRIM:
		cfg->trim = false;
		break;
	case O_DEGRADE_HOST:
		if (parse_uint(a, 1u << 24, &v))
			return bad("--degrade-host", a);
		cfg->degrade_host = (int32_t)v;
		break;
	case O_DEGRADE_FACTOR:
		return parse_double(a, &cfg->degrade_factor) ?
		       bad("--degrade-factor", a) : 0;
	case O_TRAFFIC:
		if (!strcmp(a, "incast"))
			cfg->traffic = UET_TRAFFIC_INCAST;
		else if (!strcmp(a, "perm"))
			cfg->traffic = UET_TRAFFIC_PERM;
		else if (!strcmp(a, "one"))
			cfg->traffic = UET_TRAFFIC_ONE;
		else
			return bad("--traffic", a);
		break;
	case O_SIZE:
		return parse_size(a, &cfg->size) ? bad("--size", a) : 0;
	case O_START:
		return parse_time(a, &cfg->start) ? bad("--start", a) : 0;
	case O_START_JITTER:
		return parse_time(a, &cfg->start_jitter) ?
		       bad("--start-jitter", a) : 0;
	case O_TIE_JITTER:
		return parse_time(a, &cfg->tie_jitter) ?
		       bad("--tie-jitter", a) : 0;
	case O_CC:
		return parse_cc(a, &cfg->cca) ? bad("--cc", a) : 0;
	case O_NO_INFER: cfg->no_loss_infer = true; break;
	case O_ACK_DELAY: case O_RTO_MIN: case O_RTO_MAX: case O_REORDER:
		if (parse_time(a, &t))
			return bad("a time", a);
		if (c == O_ACK_DELAY)
			cfg->ack_delay = uet_ps_to_ns(t);
		else if (c == O_RTO_MIN)
			cfg->rto_min = uet_ps_to_ns(t);
		else if (c == O_REORDER)
			cfg->reorder_window = uet_ps_to_ns(t);
		else
			cfg->rto_max = uet_ps_to_ns(t);
		break;
	case O_SEED:
		if (parse_size(a, &n))
			return bad("--seed", a);
		cfg->seed = n;
		break;
	case O_LIMIT:
		return parse_time(a, &cfg->limit) ? bad("--limit", a) : 0;
	case O_SAMPLE:
		return parse_time(a, &cfg->sample) ? bad("--sample", a) : 0;
	case O_JAIN_WINDOW:
		return parse_time(a, &cfg->jain_window) ?
		       bad("--jain-window", a) : 0;
	case O_VERIFY: cfg->verify = 1; break;
	case O_NO_VERIFY: cfg->verify = 0; break;
	case O_OUT: o->out = a; break;
	case O_KV: o->kv = true; break;
	case O_HOST_STATS: o->host_stats = true; break;
	case 'q': o->quiet = o->kv = true; break;
	default:
		return -1;
	}
	return 0;
}

static int write_out(const struct uet_sim *s, const struct uet_sim_result *r,
		     const char *dir)
{
	char path[4096];
	FILE *f;

	if (mkdir(dir, 0777) && errno != EEXIST)
		return -1;
	if (uet_metric_write(s, dir))
		return -1;
	if ((size_t)snprintf(path, sizeof(path), "%s/summary.txt", dir) >=
	    sizeof(path))
		return -1;
	f = fopen(path, "w");
	if (!f)
		return -1;
	uet_report_print(s, r, f);
	uet_report_kv(s, r, f);
	return fclose(f);
}

int main(int argc, char **argv)
{
	struct cli o = { .k = 0 };
	struct uet_sim_result r;
	struct uet_sim *s;
	int c, rc;

	uet_sim_config_default(&o.cfg);
	while ((c = getopt_long(argc, argv, "qh", opts, NULL)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return 0;
		}
		if (c == '?' || parse_opt(&o, c, optarg)) {
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		usage(stderr);
		return 2;
	}
	if (o.ft2) {
		/* 2-tier k-ary fat tree: a leaf-spine of k leaves. */
		o.cfg.topo.leaves = (unsigned)o.k;
		o.cfg.topo.leaf_hosts = (unsigned)(o.k / 2);
		o.cfg.topo.spines = (unsigned)(o.k / 2);
	}
	rc = uet_sim_create(&s, &o.cfg);
	if (rc) {
		if (s->open_err)
			fprintf(stderr, "uetsim: the engine refused the fep "
				"config: %s (is --cc implemented?)\n",
				uet_err_str(s->open_err));
		else
			fprintf(stderr, "uetsim: bad scenario (%s)\n",
				uet_err_str(rc));
		uet_sim_destroy(s);
		return 2;
	}
	uet_sim_run(s);
	uet_report_result(s, &r);
	if (!o.quiet)
		uet_report_print(s, &r, stdout);
	if (o.kv)
		uet_report_kv(s, &r, stdout);
	if (o.host_stats)
		uet_report_hosts(s, stdout);
	if (o.out && write_out(s, &r, o.out)) {
		fprintf(stderr, "uetsim: writing %s: %s\n", o.out,
			strerror(errno));
		uet_sim_destroy(s);
		return 2;
	}
	rc = r.lost_for_good || r.unfinished || s->stuck ? 1 : 0;
	uet_sim_destroy(s);
	return rc;
}
