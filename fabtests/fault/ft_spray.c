/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * ft_spray: a verified ping-pong between two endpoints on 127.0.0.1 while
 * a thread of the client sprays the server's UDP port with garbage (see
 * spray.h for what). Passes when nothing crashes, every message arrives
 * whole and verified, and the application sees exactly the messages the
 * real peer sent: the server counts them (hello + pings), checks their
 * sequence, and listens for extras after the last one.
 *
 *   ft_spray -p PROV -S                 server: prints "ft_spray: server
 *                                       127.0.0.1 PORT", serves one client
 *   ft_spray -p PROV -C 127.0.0.1:PORT  client, spraying the server
 *   ft_spray -X 127.0.0.1:PORT          spray only (no libfabric)
 *
 * The sprayer's tallies ("spray: ...") are what run-fault.sh compares with
 * the server's FI_UET_STATS line: every class of packet must show up in
 * its engine drop counter.
 */
#include <getopt.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fault.h"
#include "spray.h"

#define MAGIC_HELLO	0x48454C4Fu
#define MAGIC_PING	0x50494E47u
#define MAGIC_PONG	0x504F4E47u
#define MSG_MAX		(256 * 1024)
#define TAIL_ITERS	20	/* ping-pongs after the spray ended */
#define GRACE_S		0.5	/* listening for extra messages */

static const size_t sizes[] = { 16, 64, 1000, 1500, 4096, 9000, 16384,
				65536, 200000 };

struct opts {
	const char *prov;
	const char *connect;		/* -C */
	const char *spray_only;		/* -X */
	bool server;
	bool no_spray;
	unsigned min_iters;
	unsigned max_iters;
	unsigned rounds;
	unsigned random_per_round;
	unsigned flood_per_round;
	unsigned pace_us;
	uint64_t seed;
	int timeout_s;
};

struct spray_thr {
	pthread_t thr;
	struct spray_cfg cfg;
	struct spray_result res;
	atomic_bool stop;
	atomic_bool done;
	int rc;
};

static void usage(const char *argv0)
{
	fprintf(stderr,
		"usage: %s -p PROV -S | -p PROV -C IP:PORT | -X IP:PORT\n"
		"  -n N  at least N ping-pongs (default 300)\n"
		"  -m N  at most N ping-pongs (default 100000)\n"
		"  -r N  spray rounds (default 4)\n"
		"  -R N  random datagrams per round (default 1000)\n"
		"  -F N  SYNs of new PDCs per round (default 0)\n"
		"  -u US pause after every 8 sprayed packets (default 100)\n"
		"  -s N  seed\n"
		"  -x    client without the sprayer (baseline)\n"
		"  -T S  give up after S seconds (default 60)\n", argv0);
}

static unsigned env_uint(const char *name, unsigned dflt)
{
	const char *v = getenv(name);

	return v && *v ? (unsigned)strtoul(v, NULL, 0) : dflt;
}

static void spray_cfg_init(struct spray_cfg *c, const struct opts *o,
			   const struct sockaddr_in *dst, uint64_t max_msg)
{
	memset(c, 0, sizeof(*c));
	c->dst = *dst;
	/* Same job as the provider (fi_uet.7). */
	c->job_id = env_uint("FI_UET_JOB_ID", 0);
	c->max_msg_size = max_msg;
	c->rounds = o->rounds;
	c->random_per_round = o->random_per_round;
	c->flood_per_round = o->flood_per_round;
	c->seed = o->seed;
	c->pace_us = o->pace_us;
}

/* ---- server ---- */

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	       (uint32_t)p[2] << 8 | p[3];
}

static int server(const struct opts *o)
{
	struct fault_ep e;
	struct fault_op rx = { 0 }, tx = { 0 };
	struct sockaddr_in peer;
	fi_addr_t fa;
	char name[64], why[160];
	uint32_t seq, flags, expect = 1;
	unsigned long nrecv = 0, bad = 0, extra = 0;
	double end = fault_now() + o->timeout_s;
	int ret;

	ret = fault_ep_open(&e, o->prov);
	if (ret)
		return 1;
	fault_addr_str(name, sizeof(name), &e.name);
	printf("ft_spray: server %s provider %s\n", name,
	       e.info->fabric_attr->prov_name);
	fflush(stdout);
	rx.buf = malloc(MSG_MAX);
	tx.buf = malloc(MSG_MAX);
	if (!rx.buf || !tx.buf)
		goto fail;

	/* hello: the client's name, then a short PONG 0. */
	ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
	if (!ret)
		ret = fault_wait(&e, &rx, end, NULL, NULL);
	if (ret || rx.err) {
		fprintf(stderr, "server: hello: %d err %d %s\n", ret, rx.err,
			rx.errstr);
		goto fail;
	}
	nrecv++;
	if (rx.rlen != FAULT_HDR_LEN + sizeof(peer) ||
	    be32(rx.buf) != MAGIC_HELLO) {
		fprintf(stderr, "server: first message is no hello (%zu "
			"bytes)\n", rx.rlen);
		goto fail;
	}
	memcpy(&peer, rx.buf + FAULT_HDR_LEN, sizeof(peer));
	if (fault_av_insert(&e, &peer, &fa))
		goto fail;
	tx.len = FAULT_HDR_LEN;
	fault_msg_fill(tx.buf, tx.len, MAGIC_PONG, 0, 0);
	ret = fault_post_send(&e, &tx, fa, end, NULL, NULL);
	if (!ret)
		ret = fault_wait(&e, &tx, end, NULL, NULL);
	if (ret || tx.err) {
		fprintf(stderr, "server: hello pong: %d err %d %s\n", ret,
			tx.err, tx.errstr);
		goto fail;
	}

	for (;;) {
		ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
		if (!ret)
			ret = fault_wait(&e, &rx, end, NULL, NULL);
		if (ret || rx.err) {
			fprintf(stderr, "server: recv of ping %u: %d (%s) err "
				"%d prov_errno %d %s\n", expect, ret,
				fi_strerror(-ret), rx.err, rx.prov_errno,
				rx.errstr);
			goto fail;
		}
		nrecv++;
		if (fault_msg_check(rx.buf, rx.rlen, MAGIC_PING, &seq, &flags,
				    why, sizeof(why)))
			seq = expect - 1;	/* why says it */
		else if (seq != expect)
			snprintf(why, sizeof(why), "seq %u", seq);
		if (seq != expect) {
			bad++;
			fprintf(stderr, "server: bad ping (want seq %u): %s\n",
				expect, why);
			goto fail;
		}
		tx.len = rx.rlen;
		fault_msg_fill(tx.buf, tx.len, MAGIC_PONG, seq, flags);
		ret = fault_post_send(&e, &tx, fa, end, NULL, NULL);
		if (!ret)
			ret = fault_wait(&e, &tx, end, NULL, NULL);
		if (ret || tx.err) {
			fprintf(stderr, "server: pong %u: %d err %d %s\n", seq,
				ret, tx.err, tx.errstr);
			goto fail;
		}
		expect++;
		if (flags & FAULT_F_LAST)
			break;
	}

	/* Nothing more may arrive: the client sent its last message. */
	ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
	if (!ret) {
		double grace = fault_now() + GRACE_S;

		while (fault_now() < grace && rx.busy)
			fault_progress(&e, NULL, NULL);
		if (!rx.busy && !rx.err) {
			extra++;
			fprintf(stderr, "server: extra message of %zu bytes "
				"after the last ping\n", rx.rlen);
		}
		if (rx.busy)
			fi_cancel(&e.ep->fid, &rx.ctx);
	}
	printf("ft_spray: server received %lu messages (1 hello + %u pings) "
	       "bad %lu extra %lu stray %lu\n", nrecv, expect - 1, bad, extra,
	       fault_stray);
	printf("ft_spray: server %s\n", extra ? "FAIL" : "PASS");
	fflush(stdout);
	fault_ep_close(&e);
	free(rx.buf);
	free(tx.buf);
	return extra ? 1 : 0;
fail:
	printf("ft_spray: server received %lu messages, bad %lu\n", nrecv,
	       bad);
	printf("ft_spray: server FAIL\n");
	fflush(stdout);
	fault_ep_close(&e);
	free(rx.buf);
	free(tx.buf);
	return 1;
}

/* ---- client ---- */

static void *spray_main(void *arg)
{
	struct spray_thr *t = arg;

	t->rc = spray_run(&t->cfg, &t->res, &t->stop);
	atomic_store(&t->done, true);
	return NULL;
}

static int client(const struct opts *o)
{
	struct fault_ep e;
	struct fault_op rx = { 0 }, tx = { 0 };
	struct sockaddr_in srv;
	struct spray_thr *st = NULL;
	fi_addr_t fa;
	char why[160];
	uint32_t seq, flags;
	unsigned i, done_at = 0, verified = 0;
	bool last = false, spraying = false;
	double t0 = fault_now(), end = t0 + o->timeout_s;
	int ret, rc = 1;

	if (fault_addr_parse(o->connect, &srv)) {
		fprintf(stderr, "client: bad address %s\n", o->connect);
		return 1;
	}
	if (fault_ep_open(&e, o->prov))
		return 1;
	rx.buf = malloc(MSG_MAX);
	tx.buf = malloc(MSG_MAX);
	if (!rx.buf || !tx.buf || fault_av_insert(&e, &srv, &fa))
		goto out;

	/* hello with our name, answered by PONG 0 */
	tx.len = FAULT_HDR_LEN + sizeof(e.name);
	fault_msg_fill(tx.buf, FAULT_HDR_LEN, MAGIC_HELLO, 0, 0);
	memcpy(tx.buf + FAULT_HDR_LEN, &e.name, sizeof(e.name));
	ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
	if (!ret)
		ret = fault_post_send(&e, &tx, fa, end, NULL, NULL);
	if (!ret)
		ret = fault_wait(&e, &tx, end, NULL, NULL);
	if (!ret)
		ret = fault_wait(&e, &rx, end, NULL, NULL);
	if (ret || tx.err || rx.err ||
	    fault_msg_check(rx.buf, rx.rlen, MAGIC_PONG, &seq, &flags, why,
			    sizeof(why)) || seq != 0) {
		fprintf(stderr, "client: hello: %d tx err %d %s rx err %d %s\n",
			ret, tx.err, tx.errstr, rx.err, rx.errstr);
		goto out;
	}

	/* The PDCs are up: from now on the server is sprayed. */
	if (!o->no_spray) {
		st = calloc(1, sizeof(*st));
		if (!st)
			goto out;
		spray_cfg_init(&st->cfg, o, &srv, e.info->ep_attr->max_msg_size);
		if (pthread_create(&st->thr, NULL, spray_main, st)) {
			free(st);
			st = NULL;
			goto out;
		}
		spraying = true;
	}

	for (i = 1; !last; i++) {
		size_t sz = sizes[i % (sizeof(sizes) / sizeof(sizes[0]))];

		if (!done_at && (!st || atomic_load(&st->done)))
			done_at = i;
		last = (i >= o->min_iters && done_at &&
			i >= done_at + TAIL_ITERS) || i >= o->max_iters;
		tx.len = sz;
		fault_msg_fill(tx.buf, sz, MAGIC_PING, i,
			       last ? FAULT_F_LAST : 0);
		ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
		if (!ret)
			ret = fault_post_send(&e, &tx, fa, end, NULL, NULL);
		if (!ret)
			ret = fault_wait(&e, &tx, end, NULL, NULL);
		if (!ret)
			ret = fault_wait(&e, &rx, end, NULL, NULL);
		if (ret || tx.err || rx.err) {
			fprintf(stderr, "client: ping-pong %u (%zu bytes): %d "
				"(%s) tx err %d (prov %d) %s rx err %d "
				"(prov %d) %s\n", i, sz, ret, fi_strerror(-ret),
				tx.err,
				tx.prov_errno, tx.errstr, rx.err, rx.prov_errno,
				rx.errstr);
			goto out;
		}
		if (fault_msg_check(rx.buf, rx.rlen, MAGIC_PONG, &seq, &flags,
				    why, sizeof(why)))
			seq = i - 1;		/* why says it */
		else if (seq != i || rx.rlen != sz)
			snprintf(why, sizeof(why), "seq %u, %zu bytes", seq,
				 rx.rlen);
		if (seq != i || rx.rlen != sz) {
			fprintf(stderr, "client: bad pong %u: %s\n", i, why);
			goto out;
		}
		verified++;
	}

	/* And nothing more for us either. */
	ret = fault_post_recv(&e, &rx, MSG_MAX, end, NULL, NULL);
	if (!ret) {
		double grace = fault_now() + GRACE_S;

		while (fault_now() < grace && rx.busy)
			fault_progress(&e, NULL, NULL);
		if (!rx.busy && !rx.err) {
			fprintf(stderr, "client: extra message of %zu bytes\n",
				rx.rlen);
			goto out;
		}
		if (rx.busy)
			fi_cancel(&e.ep->fid, &rx.ctx);
	}
	rc = 0;
out:
	if (spraying) {
		atomic_store(&st->stop, true);
		pthread_join(st->thr, NULL);
		if (st->rc) {
			fprintf(stderr, "client: sprayer: no socket\n");
			rc = 1;
		}
		spray_print(stdout, &st->res);
		if (st->res.sent == 0) {
			fprintf(stderr, "client: sprayer sent nothing\n");
			rc = 1;
		}
		/* While the ping-pong ran, so it was sprayed. */
		if (!done_at && !rc) {
			fprintf(stderr, "client: spray outlived the "
				"ping-pong\n");
			rc = 1;
		}
		free(st);
	}
	printf("ft_spray: client pings %u pongs verified %u in %.2f s "
	       "stray %lu\n", verified, verified, fault_now() - t0,
	       fault_stray);
	printf("ft_spray: client %s\n", rc ? "FAIL" : "PASS");
	fflush(stdout);
	fault_ep_close(&e);
	free(rx.buf);
	free(tx.buf);
	return rc;
}

static int spray_only(const struct opts *o)
{
	struct spray_cfg cfg;
	struct spray_result *res = malloc(sizeof(*res));
	struct sockaddr_in dst;
	int rc;

	if (!res || fault_addr_parse(o->spray_only, &dst)) {
		fprintf(stderr, "bad address %s\n", o->spray_only);
		free(res);
		return 1;
	}
	spray_cfg_init(&cfg, o, &dst,
		       env_uint("FT_MAX_MSG_SIZE", 1u << 30));
	rc = spray_run(&cfg, res, NULL);
	spray_print(stdout, res);
	free(res);
	return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct opts o = {
		.prov = "uet",
		.min_iters = 300,
		.max_iters = 100000,
		.rounds = 4,
		.random_per_round = 1000,
		.pace_us = 100,
		.timeout_s = 60,
	};
	int c;

	while ((c = getopt(argc, argv, "p:SC:X:n:m:r:R:F:u:s:xT:h")) != -1) {
		switch (c) {
		case 'p': o.prov = optarg; break;
		case 'S': o.server = true; break;
		case 'C': o.connect = optarg; break;
		case 'X': o.spray_only = optarg; break;
		case 'n': o.min_iters = (unsigned)atoi(optarg); break;
		case 'm': o.max_iters = (unsigned)atoi(optarg); break;
		case 'r': o.rounds = (unsigned)atoi(optarg); break;
		case 'R': o.random_per_round = (unsigned)atoi(optarg); break;
		case 'F': o.flood_per_round = (unsigned)atoi(optarg); break;
		case 'u': o.pace_us = (unsigned)atoi(optarg); break;
		case 's': o.seed = strtoull(optarg, NULL, 0); break;
		case 'x': o.no_spray = true; break;
		case 'T': o.timeout_s = atoi(optarg); break;
		default:
			usage(argv[0]);
			return 2;
		}
	}
	if (o.seed == 0)
		o.seed = (uint64_t)fault_wall() * 2654435761u;
	if (o.server + !!o.connect + !!o.spray_only != 1) {
		usage(argv[0]);
		return 2;
	}
	printf("ft_spray: seed %llu\n", (unsigned long long)o.seed);
	if (o.spray_only)
		return spray_only(&o);
	return o.server ? server(&o) : client(&o);
}
