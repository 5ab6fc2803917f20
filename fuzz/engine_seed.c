/* Records engine scripts (engine_script.h) from real exchanges between
 * the target and a live peer: the target's operations as EFZ_POST/MR
 * records, every packet the target receives as EFZ_ADVANCE + EFZ_INJECT
 * at the time it arrived. Replayed on a target alone, a script walks it
 * through the same states, which gives the fuzzer a start deep inside
 * PDS and SES. Usage: engine_seed DIR [WIRE_CORPUS] (writes
 * DIR/<scenario>; with the wire decoder's corpus, also a script that
 * injects each of those packets, every header type the codec knows).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uet/fep.h"

#include "../uet/fixtures/harness.h"
#include "engine_script.h"

static uint8_t out[1 << 22];
static size_t outn;
static uet_time last;
static uint64_t last_step = UINT64_MAX;	/* harness step of the last packet */

static void put(const void *p, size_t n)
{
	if (outn + n > sizeof(out)) {
		fprintf(stderr, "engine_seed: script too long\n");
		exit(1);
	}
	memcpy(out + outn, p, n);
	outn += n;
}

static void put_le(uint32_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t b = (uint8_t)(v >> (8 * i));

		put(&b, 1);
	}
}

/* Write a record and run it on the target. */
static void rec(const uint8_t *r, size_t n)
{
	put(r, n);
	efz_exec(r, n);
}

/* Always at least one record: ADVANCE 0 runs the timeouts due now,
 * as a harness step does between two packets of the same instant. */
static void advance_to(uet_time t)
{
	if (t <= last) {
		put_le(EFZ_ADVANCE, 1);
		put_le(0, 4);
		return;
	}
	while (t > last) {
		uint32_t d = t - last > 0xffffffffu ? 0xffffffffu :
						      (uint32_t)(t - last);

		put_le(EFZ_ADVANCE, 1);
		put_le(d, 4);
		last += d;
	}
}

static void on_rx(struct uet_harness *h, unsigned node,
		  const struct uet_pkt_info *pi, const uint8_t *pkt,
		  size_t len, int rc)
{
	uint8_t flags = (uint8_t)((pi->ecn & 3) | (pi->trimmed ? 4 : 0) |
				  (pi->home ? 8 : 0) |
				  ((pi->src.port & 7) << 4));

	(void)rc;
	if (node != 1)
		return;
	/* A new step (not the packet before's) ends the last one. */
	if (h->steps != last_step)
		advance_to(h->now);
	last_step = h->steps;
	put_le(EFZ_INJECT, 1);
	put_le(flags, 1);
	put_le((uint32_t)len, 2);
	put(pkt, len);
}

static void post_target(uint8_t type, uint8_t slot, uint16_t len, uint8_t tag,
			uint16_t raddr)
{
	uint8_t r[8] = { EFZ_POST, type, slot, (uint8_t)len,
			 (uint8_t)(len >> 8), tag, (uint8_t)raddr,
			 (uint8_t)(raddr >> 8) };

	advance_to(efz_harness()->now);
	last_step = UINT64_MAX;
	rec(r, sizeof(r));
}

static void mr_target(uint8_t slot, uint16_t key)
{
	uint8_t r[4] = { EFZ_MR, slot, (uint8_t)key, (uint8_t)(key >> 8) };

	rec(r, sizeof(r));
}

static uint8_t peer_buf[8][65536];
static int peer_ctx[64];
static unsigned peer_ops;

static void post_peer(uint8_t type, unsigned slot, size_t len, uint64_t tag,
		      uint64_t rkey, uint64_t raddr)
{
	struct uet_harness *h = efz_harness();
	struct uet_iov iov = { peer_buf[slot], len };
	struct uet_op op;

	memset(&op, 0, sizeof(op));
	op.type = type;
	op.flags = UET_OPF_COMPLETION;
	op.context = &peer_ctx[peer_ops++ % 64];
	op.peer = uet_harness_addr(1);
	op.iov = &iov;
	op.iov_count = 1;
	op.tag = tag;
	op.rkey = rkey;
	op.raddr = raddr;
	if (uet_fep_post(h->node[0].fep, &op, h->now)) {
		fprintf(stderr, "engine_seed: peer post refused\n");
		exit(1);
	}
}

static void settle(void)
{
	struct uet_harness *h = efz_harness();

	uet_harness_run(h, NULL, NULL, h->now + 2 * UET_SEC);
}

static void scenario(const char *dir, const char *name, void (*body)(void),
		     const struct uet_mem_impair *imp)
{
	struct efz_result res;
	char path[4096];
	FILE *f;

	outn = 0;
	last = 0;
	last_step = UINT64_MAX;
	peer_ops = 0;
	if (efz_open(true, &res)) {
		fprintf(stderr, "engine_seed: open failed\n");
		exit(1);
	}
	efz_harness()->on_rx = on_rx;
	if (imp)
		uet_mem_port_set_impair(efz_harness()->node[1].port, imp);
	body();
	settle();
	efz_close();
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, outn, f) != outn || fclose(f)) {
		perror(path);
		exit(1);
	}
	printf("%s: %zu bytes\n", path, outn);
}

static void s_messages(void)
{
	post_target(UET_OP_RECV - 1, 0, 200, 0, 0);
	post_target(UET_OP_RECV - 1, 1, 6000, 0, 0);
	post_target(UET_OP_RECV - 1, 2, 40000, 0, 0);
	post_peer(UET_OP_SEND, 0, 100, 0, 0, 0);
	post_peer(UET_OP_SEND, 1, 5000, 0, 0, 0);
	post_peer(UET_OP_SEND, 2, 40000, 0, 0, 0);	/* rendezvous */
	settle();
}

static void s_tagged(void)
{
	post_peer(UET_OP_TSEND, 0, 300, 7, 0, 0);	/* unexpected */
	settle();
	post_target(UET_OP_TRECV - 1, 0, 1000, 7, 0);
	post_target(UET_OP_TRECV - 1, 1, 1000, 9, 0);
	post_peer(UET_OP_TSEND, 1, 900, 9, 0, 0);
	post_peer(UET_OP_TSEND, 2, 20000, 9, 0, 0);	/* unexpected, rndv */
	settle();
	post_target(UET_OP_TRECV - 1, 2, 30000, 9, 0);
	settle();
}

static void s_rma(void)
{
	mr_target(3, 0x105);
	post_peer(UET_OP_WRITE, 0, 3000, 0, 0x105, 100);
	post_peer(UET_OP_READ, 1, 2000, 0, 0x105, 50);
	post_peer(UET_OP_WRITE, 2, 100, 0, 0x999, 0);	/* bad key */
	settle();
}

static void s_target_sends(void)
{
	post_peer(UET_OP_RECV, 0, 60000, 0, 0, 0);
	post_peer(UET_OP_TRECV, 1, 60000, 5, 0, 0);
	post_target(UET_OP_SEND - 1, 4, 9000, 0, 0);
	post_target(UET_OP_TSEND - 1, 5, 30000, 5, 0);
	settle();
}

/* Every packet of the wire decoder's corpus, from the peer's home port,
 * a step apart. */
static void wire_corpus(const char *dir, const char *corpus)
{
	struct dirent **names;
	char path[4096];
	int n = scandir(corpus, &names, NULL, alphasort);
	FILE *f;

	outn = 0;
	for (int i = 0; i < n; i++) {
		static uint8_t pkt[65536];
		size_t len;

		if (names[i]->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", corpus,
				 names[i]->d_name);
			f = fopen(path, "rb");
			len = f ? fread(pkt, 1, sizeof(pkt), f) : 0;
			if (f)
				fclose(f);
			if (len) {
				put_le(EFZ_ADVANCE, 1);
				put_le(1000, 4);
				put_le(EFZ_INJECT, 1);
				put_le(0x08, 1);	/* home */
				put_le((uint32_t)len, 2);
				put(pkt, len);
			}
		}
		free(names[i]);
	}
	free(names);
	snprintf(path, sizeof(path), "%s/wire_corpus", dir);
	f = fopen(path, "wb");
	if (!f || fwrite(out, 1, outn, f) != outn || fclose(f)) {
		perror(path);
		exit(1);
	}
	printf("%s: %zu bytes\n", path, outn);
}

int main(int argc, char **argv)
{
	static const struct uet_mem_impair lossy = {
		.drop_ppm = 50000, .dup_ppm = 20000, .reorder_ppm = 50000,
		.trim_ppm = 20000, .mark_ppm = 50000,
	};

	if (argc != 2 && argc != 3) {
		fprintf(stderr, "usage: engine_seed DIR [WIRE_CORPUS]\n");
		return 2;
	}
	if (argc == 3)
		wire_corpus(argv[1], argv[2]);
	scenario(argv[1], "messages", s_messages, NULL);
	scenario(argv[1], "messages_lossy", s_messages, &lossy);
	scenario(argv[1], "tagged", s_tagged, NULL);
	scenario(argv[1], "tagged_lossy", s_tagged, &lossy);
	scenario(argv[1], "rma", s_rma, NULL);
	scenario(argv[1], "target_sends", s_target_sends, NULL);
	scenario(argv[1], "target_sends_lossy", s_target_sends, &lossy);
	return 0;
}
