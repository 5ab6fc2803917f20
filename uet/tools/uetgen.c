/* uetgen: write a pcap holding one packet of every UET header kind, built
 * with the wire codec and the pcap writer, plus a manifest of the values
 * encoded, so that uetdump and the Wireshark dissector can be checked
 * against known input.
 *
 *   uetgen -w FILE.pcap [-m MANIFEST] [-l LIST] [-s SECRETS] [-K PREFIX]
 *          [--bad | --gso]
 *
 * Manifest: one line per field per frame, "<frame> <name> <value>", names
 * from uet/tools/FIELDS.md, frames numbered from 1, values decimal (signed
 * for signed fields), byte arrays lower-case hex. It is written from the
 * structs handed to the encoder, never from decoding. Without -m it goes
 * to stdout. -l writes "<frame> <description>" lines.
 *
 * TSS: some frames are sealed through uet/tss with two test secure
 * domains (direct and cluster mode, fixed keys: nothing secret); -K
 * writes their key files PREFIX-direct.key and PREFIX-cluster.key. The
 * manifest has what a reader without keys sees (entropy and TSS header);
 * -s writes, in the same form, the fields found inside once decrypted,
 * or "<frame> unverified <reason>" for a TSS frame the keys must not
 * open (reason as uetdump words it).
 *
 * --bad writes a capture of malformed packets between good ones instead;
 * a malformed frame's manifest line is "<frame> malformed <reason>", the
 * reason being uet_err_str() of the error the decoder must report.
 *
 * --gso writes frames as a capture taken before UDP GSO cut them holds
 * them: several packets in one UDP payload. Its manifest has one line
 * per packet a reader must find, "<frame> <k>/<n> <type> <psn> <payload>"
 * (psn "-" for a packet without one; "1/1" for a frame that is one
 * packet, however long).
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uet/pcap.h"
#include "uet/wire.h"
#include "../tss/tss.h"

/* 2023-11-14 22:13:20 UTC; frames 1.000001 ms apart. */
#define GEN_TS_BASE	1700000000000000000ull
#define GEN_TS_STEP	1000001ull

#define GEN_ECN_ECT0	2
#define GEN_ECN_CE	3	/* only frame 6 */
#define GEN_DSCP_EF	46	/* ACK/NACK/CTRL, docs/protocol.md §1.4 */

enum gen_encap { GEN_UDP4, GEN_UDP6, GEN_RAW4, GEN_RAW6 };

/* The test secure domains. The cluster key file holds key0 only, so a
 * packet sealed with its AN 1 key has no key at the reader. */
#define GEN_SDI_DIRECT	0x5e0001
#define GEN_SDI_CLUSTER	0x5e0002
#define GEN_REKEY_SHIFT	20	/* cluster: a new key every 2^20 TSCs */

struct gen {
	struct uet_pcap *pc;
	FILE *man;
	FILE *secret;		/* -s: what decryption shows */
	FILE *list;
	unsigned frame;		/* number of the frame being built */
};

static void die(const char *fmt, ...)
{
	va_list ap;

	fputs("uetgen: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/* ---- manifest, from the structs given to the encoder ---- */

static void mu(struct gen *g, const char *name, uint64_t v)
{
	fprintf(g->man, "%u %s %" PRIu64 "\n", g->frame, name, v);
}

static void ms(struct gen *g, const char *name, int64_t v)
{
	fprintf(g->man, "%u %s %" PRId64 "\n", g->frame, name, v);
}

static void mhex(struct gen *g, const char *name, const uint8_t *b, size_t n)
{
	size_t i;

	fprintf(g->man, "%u %s ", g->frame, name);
	for (i = 0; i < n; i++)
		fprintf(g->man, "%02x", b[i]);
	fputc('\n', g->man);
}

static bool is_ack_type(unsigned t)
{
	return t == UET_PDS_ACK || t == UET_PDS_ACK_CC || t == UET_PDS_ACK_CCX;
}

/* PDS header fields (docs/protocol.md §4): which exist depends on the type
 * and, for SYN and ACK P, on the flags. */
static void man_pds(struct gen *g, const struct uet_pds_hdr *h)
{
	bool syn = h->flags & UET_PDS_F_SYN;

	mu(g, "pds.type", h->type);
	mu(g, h->type == UET_PDS_CTRL ? "pds.ctl_type" : "pds.next_hdr",
	   h->next_hdr);
	mu(g, "pds.flags", h->flags);

	if (uet_pds_is_req(h->type)) {
		ms(g, "pds.clear_psn_offset", h->req.clear_psn_offset);
		mu(g, "pds.psn", h->req.psn);
		mu(g, "pds.spdcid", h->req.spdcid);
		if (syn) {
			mu(g, "pds.pdc_info", h->req.pdc_info);
			mu(g, "pds.psn_offset", h->req.psn_offset);
		} else {
			mu(g, "pds.dpdcid", h->req.dpdcid);
		}
		if (h->type == UET_PDS_RUD_CC_REQ ||
		    h->type == UET_PDS_ROD_CC_REQ) {
			mu(g, "pds.ccc_id", h->req.ccc_id);
			mu(g, "pds.credit_target", h->req.credit_target);
		}
	} else if (h->type == UET_PDS_RUDI_REQ ||
		   h->type == UET_PDS_RUDI_RESP) {
		mu(g, "pds.pkt_id", h->rudi.pkt_id);
	} else if (is_ack_type(h->type)) {
		const struct uet_pds_ack *a = &h->ack;

		if (h->flags & UET_PDS_F_P)
			mu(g, "pds.probe_opaque", a->probe_opaque);
		else
			ms(g, "pds.ack_psn_offset", a->ack_psn_offset);
		mu(g, "pds.cack_psn", a->cack_psn);
		mu(g, "pds.spdcid", a->spdcid);
		mu(g, "pds.dpdcid", a->dpdcid);
		if (h->type == UET_PDS_ACK)
			return;
		mu(g, "pds.cc_type", a->cc_type);
		mu(g, "pds.cc_flags", a->cc_flags);
		mu(g, "pds.mpr", a->mpr);
		ms(g, "pds.sack_psn_offset", a->sack_psn_offset);
		mu(g, "pds.sack_bitmap", a->sack_bitmap);
		if (h->type == UET_PDS_ACK_CCX) {
			mhex(g, "pds.ccx_state", a->ccx_state,
			     sizeof(a->ccx_state));
		} else if (a->cc_type == UET_CC_NSCC) {
			mu(g, "pds.service_time", a->cc.service_time);
			mu(g, "pds.restore_cwnd", a->cc.restore_cwnd);
			mu(g, "pds.rcv_cwnd_pend", a->cc.rcv_cwnd_pend);
			mu(g, "pds.rcvd_bytes", a->cc.rcvd_bytes);
			mu(g, "pds.ooo_count", a->cc.ooo_count);
		} else {
			mu(g, "pds.credit", a->cc.credit);
			mu(g, "pds.ooo_count", a->cc.ooo_count);
		}
	} else if (h->type == UET_PDS_NACK || h->type == UET_PDS_NACK_CCX) {
		mu(g, "pds.nack_code", h->nack.code);
		mu(g, "pds.vendor_code", h->nack.vendor_code);
		mu(g, "pds.nack_psn", h->nack.psn);
		mu(g, "pds.spdcid", h->nack.spdcid);
		mu(g, "pds.dpdcid", h->nack.dpdcid);
		mu(g, "pds.payload", h->nack.payload);
		if (h->type == UET_PDS_NACK_CCX) {
			mu(g, "pds.nccx_type", h->nack.nccx_type);
			mu(g, "pds.nccx_state1", h->nack.nccx_state1);
			mu(g, "pds.nccx_state2", h->nack.nccx_state2);
		}
	} else if (h->type == UET_PDS_CTRL) {
		mu(g, "pds.probe_opaque", h->ctrl.probe_opaque);
		mu(g, "pds.psn", h->ctrl.psn);
		mu(g, "pds.spdcid", h->ctrl.spdcid);
		if (syn) {
			mu(g, "pds.pdc_info", h->ctrl.pdc_info);
			mu(g, "pds.psn_offset", h->ctrl.psn_offset);
		} else {
			mu(g, "pds.dpdcid", h->ctrl.dpdcid);
		}
		mu(g, "pds.payload", h->ctrl.payload);
	}
}

/* SES request (docs/protocol.md §5.2-5.6): standard, small or medium, then
 * extension. */
static void man_req(struct gen *g, const struct uet_ses_req *r)
{
	bool std = r->format == UET_NH_REQ_STD;
	enum uet_ses_ext ext = uet_ses_req_ext(r->opcode, r->amo.op);

	mu(g, "ses.opcode", r->opcode);
	mu(g, "ses.version", r->version);
	mu(g, "ses.flags", r->flags);
	if (std)
		mu(g, "ses.message_id", r->message_id);
	else
		mu(g, "ses.request_length", r->request_length);
	mu(g, "ses.ri_generation", r->ri_generation);
	mu(g, "ses.job_id", r->job_id);
	mu(g, "ses.pid_on_fep", r->pid_on_fep);
	mu(g, "ses.resource_index", r->resource_index);
	if (r->format == UET_NH_REQ_MEDIUM && (r->flags & UET_SES_F_HD))
		mu(g, "ses.header_data", r->header_data);
	else
		mu(g, "ses.buffer_offset", r->buffer_offset);
	if (r->format != UET_NH_REQ_SMALL) {
		mu(g, "ses.initiator", r->initiator);
		mu(g, "ses.match_bits", r->match_bits);
	}
	if (std) {
		if (r->flags & UET_SES_F_SOM) {
			mu(g, "ses.header_data", r->header_data);
		} else {
			mu(g, "ses.payload_length", r->payload_length);
			mu(g, "ses.message_offset", r->message_offset);
		}
		mu(g, "ses.request_length", r->request_length);
	}
	if (ext == UET_SES_EXT_AMO || ext == UET_SES_EXT_CSWAP) {
		mu(g, "ses.amo_op", r->amo.op);
		mu(g, "ses.amo_dt", r->amo.dt);
		mu(g, "ses.semantic_control", r->amo.semantic_control);
	}
	if (ext == UET_SES_EXT_CSWAP) {
		mhex(g, "ses.compare", r->amo.compare, sizeof(r->amo.compare));
		mhex(g, "ses.swap", r->amo.swap, sizeof(r->amo.swap));
	}
	if (ext == UET_SES_EXT_RNDV) {
		mu(g, "ses.eager_length", r->rndv.eager_length);
		mu(g, "ses.read_pid_on_fep", r->rndv.read_pid_on_fep);
		mu(g, "ses.read_resource_index", r->rndv.read_resource_index);
		mu(g, "ses.read_offset", r->rndv.read_offset);
		mu(g, "ses.read_match_bits", r->rndv.read_match_bits);
	}
	if (ext == UET_SES_EXT_SYNC) {
		mu(g, "ses.sync_group", r->sync.group);
		mu(g, "ses.sync_count", r->sync.count);
	}
}

/* SES response (docs/protocol.md §5.10). */
static void man_rsp(struct gen *g, const struct uet_ses_rsp *r)
{
	mu(g, "ses.list", r->list);
	mu(g, "ses.rsp_opcode", r->opcode);
	mu(g, "ses.version", r->version);
	mu(g, "ses.return_code", r->return_code);
	if (r->format != UET_NH_RSP_DATA_SMALL)
		mu(g, "ses.message_id", r->message_id);
	if (r->format == UET_NH_RSP)
		mu(g, "ses.ri_generation", r->ri_generation);
	mu(g, "ses.job_id", r->job_id);
	if (r->format == UET_NH_RSP_DATA) {
		mu(g, "ses.read_request_message_id",
		   r->read_request_message_id);
		mu(g, "ses.message_offset", r->message_offset);
	}
	if (r->format != UET_NH_RSP)
		mu(g, "ses.payload_length", r->payload_length);
	if (r->format != UET_NH_RSP_DATA_SMALL)
		mu(g, "ses.modified_length", r->modified_length);
	if (r->format == UET_NH_RSP_DATA_SMALL)
		mu(g, "ses.original_request_psn", r->original_request_psn);
}

static void man_pkt(struct gen *g, const struct uet_pkt *p)
{
	if (p->has_entropy)
		mu(g, "entropy.entropy", p->entropy.entropy);
	if (p->has_tss) {
		mu(g, "tss.type", UET_PDS_TYPE_TSS);
		mu(g, "tss.sp", p->tss.sp);
		mu(g, "tss.an", p->tss.an);
		mu(g, "tss.sdi", p->tss.sdi);
		if (p->tss.sp)
			mu(g, "tss.ssi", p->tss.ssi);
		mu(g, "tss.epoch", p->tss.epoch);
		mu(g, "tss.tsc", p->tss.tsc);
		return;
	}
	man_pds(g, &p->pds);
	if (p->has_req)
		man_req(g, &p->req);
	if (p->has_rsp)
		man_rsp(g, &p->rsp);
}

/* ---- frames ---- */

/* Starts frame g->frame + 1: a zeroed packet and its addressing. Raw-IP
 * frames carry the entropy header; UDP frames put the entropy in the
 * source port. */
static void frame_begin(struct gen *g, struct uet_pkt *p,
			struct uet_pcap_meta *m, enum gen_encap e, uint8_t dscp)
{
	static const uint8_t a6[16] = { 0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0,
					0, 0, 0, 0, 0, 0, 0, 0 };
	uint16_t ev = 0xc000 + g->frame * 0x101 + 1;

	g->frame++;
	memset(p, 0, sizeof(*p));
	memset(m, 0, sizeof(*m));
	m->ipv6 = e == GEN_UDP6 || e == GEN_RAW6;
	m->raw_ip = e == GEN_RAW4 || e == GEN_RAW6;
	if (m->ipv6) {		/* 2001:db8::1 > 2001:db8::2 */
		memcpy(m->src, a6, 16);
		memcpy(m->dst, a6, 16);
		m->src[15] = 1;
		m->dst[15] = 2;
	} else {		/* 192.0.2.1 > 192.0.2.2 */
		m->src[0] = m->dst[0] = 192;
		m->src[2] = m->dst[2] = 2;
		m->src[3] = 1;
		m->dst[3] = 2;
	}
	if (m->raw_ip) {
		p->has_entropy = true;
		p->entropy.entropy = ev;
		m->ip_proto = UET_IPPROTO;
	} else {
		m->src_port = ev;
		m->dst_port = UET_UDP_PORT;
	}
	m->dscp = dscp;
	m->ecn = GEN_ECN_ECT0;
	m->ts_ns = GEN_TS_BASE + g->frame * GEN_TS_STEP;
}

static void fill(uint8_t *b, size_t n, unsigned seed)
{
	size_t i;

	for (i = 0; i < n; i++)
		b[i] = (uint8_t)(seed * 31 + i * 7 + 1);
}

static void write_frame(struct gen *g, const struct uet_pcap_meta *m,
			const uint8_t *b, size_t n)
{
	if (uet_pcap_write(g->pc, m, b, n))
		die("frame %u: %s", g->frame, uet_pcap_errstr(g->pc));
}

static void describe(struct gen *g, const char *what)
{
	if (g->list)
		fprintf(g->list, "%u %s\n", g->frame, what);
}

/* Encodes p, appends `plen` payload bytes, writes frame and manifest. */
static void frame_end(struct gen *g, const struct uet_pkt *p,
		      const struct uet_pcap_meta *m, size_t plen,
		      const char *what)
{
	uint8_t buf[2048];
	int n;

	n = uet_pkt_encode(buf, sizeof(buf), p);
	if (n < 0)
		die("frame %u (%s): encode: %s", g->frame, what,
		    uet_err_str(n));
	if ((size_t)n + plen > sizeof(buf))
		die("frame %u: payload too long", g->frame);
	fill(buf + n, plen, g->frame);
	write_frame(g, m, buf, n + plen);
	man_pkt(g, p);
	describe(g, what);
}

/* ---- TSS frames, sealed by uet/tss ---- */

static void gen_key(uint8_t key[UET_TSS_KEY_LEN], bool cluster, unsigned an)
{
	for (unsigned i = 0; i < UET_TSS_KEY_LEN; i++)
		key[i] = (uint8_t)((cluster ? 0xc0 : 0x40 + 0x40 * an) + i);
}

static void gen_tss_cfg(struct uet_tss_cfg *c, bool cluster, unsigned an,
			unsigned s)
{
	memset(c, 0, sizeof(*c));
	c->mode = cluster ? UET_TSS_CLUSTER : UET_TSS_DIRECT;
	c->sdi = cluster ? GEN_SDI_CLUSTER : GEN_SDI_DIRECT;
	for (unsigned k = 0; k < 2; k++) {
		gen_key(c->key[k], cluster, k);
		c->has_key[k] = true;
	}
	c->an = (uint8_t)an;
	c->epoch = (uint16_t)(0x100 + s);
	c->ssi = 0x55510000u + s;
	c->tsc_start = 0xa0000000ull + s * 0x100001ull;
	if (cluster)
		c->rekey_shift = GEN_REKEY_SHIFT;
}

static void key_line(FILE *f, const char *name, bool cluster, unsigned an)
{
	uint8_t key[UET_TSS_KEY_LEN];

	gen_key(key, cluster, an);
	fprintf(f, "%s ", name);
	for (unsigned i = 0; i < UET_TSS_KEY_LEN; i++)
		fprintf(f, "%02x", key[i]);
	fputc('\n', f);
}

/* PREFIX-direct.key and PREFIX-cluster.key, mode 600 as a key file must
 * be. */
static void write_keys(const char *prefix)
{
	for (int cluster = 0; cluster < 2; cluster++) {
		char path[4096];
		FILE *f;
		int fd;

		snprintf(path, sizeof(path), "%s-%s.key", prefix,
			 cluster ? "cluster" : "direct");
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW,
			  0600);
		if (fd < 0 || fchmod(fd, 0600) || !(f = fdopen(fd, "w")))
			die("%s: cannot create", path);
		fprintf(f, "# uetgen's test secure domain: its keys are in "
			"uetgen.c, not secret\n");
		fprintf(f, "sdi 0x%06x\nmode %s\n",
			cluster ? GEN_SDI_CLUSTER : GEN_SDI_DIRECT,
			cluster ? "cluster" : "direct");
		key_line(f, "key0", cluster, 0);
		if (!cluster)
			key_line(f, "key1", cluster, 1);
		else
			fprintf(f, "rekey_shift %u\n", GEN_REKEY_SHIFT);
		if (fclose(f))
			die("%s: write failed", path);
	}
}

static void meta_addr(struct uet_addr *a, const struct uet_pcap_meta *m,
		      const uint8_t *ip)
{
	memset(a, 0, sizeof(*a));
	a->af = m->ipv6 ? UET_AF_INET6 : UET_AF_INET;
	memcpy(a->ip, ip, m->ipv6 ? 16 : 4);
}

/* -s: the last frame is TSS that the test keys must not open. */
static void secret_unverified(struct gen *g, const char *why)
{
	if (g->secret)
		fprintf(g->secret, "%u unverified %s\n", g->frame, why);
}

/* How frame_sealed seals, and what -s says about the frame. */
struct seal {
	bool cluster;		/* which test domain */
	unsigned an;
	size_t flip;		/* > 0: flip a bit of ciphertext byte
				 * flip - 1 */
	uint8_t byte0;		/* > 0: the clear packet's first byte,
				 * sealed as it is (a malformed packet
				 * inside) */
	const char *secret;	/* -s line instead of the inner fields:
				 * "unverified <why>" or "malformed <why>" */
};

/* Seals the clear packet p (plen payload bytes) with a test domain, from
 * m's source to its destination, the entropy header (raw IP) outside the
 * seal. The manifest gets the outer headers, -s the inner ones or
 * sl->secret. */
static void frame_sealed(struct gen *g, struct uet_pkt *p,
			 const struct uet_pcap_meta *m, size_t plen,
			 const struct seal *sl, const char *what)
{
	uint8_t buf[2048];
	size_t off = p->has_entropy ? UET_ENTROPY_HDR_LEN : 0;
	struct uet_pkt outer = { 0 };
	struct uet_addr src, dst;
	struct uet_tss_cfg cfg;
	struct uet_tss *t;
	ssize_t sealed;
	FILE *man;
	int n;

	outer.has_entropy = p->has_entropy;
	outer.entropy = p->entropy;
	p->has_entropy = false;
	n = uet_pkt_encode(buf + off, sizeof(buf) - off, p);
	if (n < 0)
		die("frame %u (%s): encode: %s", g->frame, what,
		    uet_err_str(n));
	if (off + n + plen + uet_tss_overhead() > sizeof(buf))
		die("frame %u: payload too long", g->frame);
	fill(buf + off + n, plen, g->frame);
	if (sl->byte0)
		buf[off] = sl->byte0;

	gen_tss_cfg(&cfg, sl->cluster, sl->an, g->frame);
	meta_addr(&src, m, m->src);
	meta_addr(&dst, m, m->dst);
	if (uet_tss_new(&t, &cfg, &src))
		die("frame %u: uet_tss_new failed", g->frame);
	sealed = uet_tss_seal(t, &dst, buf + off, n + plen, sizeof(buf) - off);
	uet_tss_free(t);
	if (sealed < 0)
		die("frame %u: seal: %s", g->frame, uet_err_str((int)sealed));
	if (outer.has_entropy &&
	    uet_entropy_hdr_encode(buf, off, &outer.entropy) < 0)
		die("frame %u: entropy header", g->frame);
	if (sl->flip)
		buf[off + UET_TSS_HDR_SSI_LEN + sl->flip - 1] ^= 0x10;
	write_frame(g, m, buf, off + (size_t)sealed);

	outer.has_tss = true;
	outer.tss.sp = true;
	outer.tss.an = sl->an;
	outer.tss.sdi = cfg.sdi;
	outer.tss.ssi = cfg.ssi;
	outer.tss.epoch = cfg.epoch;
	outer.tss.tsc = cfg.tsc_start;
	man_pkt(g, &outer);
	man = g->man;
	if (g->secret && sl->secret) {
		fprintf(g->secret, "%u %s\n", g->frame, sl->secret);
	} else if (g->secret) {
		g->man = g->secret;
		man_pkt(g, p);
		g->man = man;
	}
	describe(g, what);
}

/* Field values: distinct per field and per frame `s`, within widths. */
static void pds_req(struct uet_pds_hdr *h, uint8_t type, uint8_t nh,
		    uint8_t flags, unsigned s)
{
	h->type = type;
	h->next_hdr = nh;
	h->flags = flags;
	h->req.clear_psn_offset = -(int16_t)(3 + s);
	h->req.psn = 0x10000000u + s * 0x111;
	h->req.spdcid = 0x100 + s;
	if (flags & UET_PDS_F_SYN) {
		/* uet sends pdc_info 0 (no reserved PDCs, docs/choices.md
		 * §10.4); dissectors rightly warn on anything else */
		h->req.pdc_info = 0;
		h->req.psn_offset = 0x20 + s;
	} else {
		h->req.dpdcid = 0x200 + s;
	}
	if (type == UET_PDS_RUD_CC_REQ || type == UET_PDS_ROD_CC_REQ) {
		h->req.ccc_id = 0x30 + s;
		h->req.credit_target = 0x40000 + s * 0x10;
	}
}

static void pds_rudi(struct uet_pds_hdr *h, uint8_t type, uint8_t nh,
		     uint8_t flags, unsigned s)
{
	h->type = type;
	h->next_hdr = nh;
	h->flags = flags;
	h->rudi.pkt_id = 0x7a000000u + s * 0x1001;
}

static void pds_ack(struct uet_pds_hdr *h, uint8_t type, uint8_t nh,
		    uint8_t flags, unsigned s)
{
	h->type = type;
	h->next_hdr = nh;
	h->flags = flags;
	if (flags & UET_PDS_F_P)
		h->ack.probe_opaque = 0xbe00 + s;
	else
		h->ack.ack_psn_offset = 5 + s;
	h->ack.cack_psn = 0x20000000u + s * 0x222;
	h->ack.spdcid = 0x300 + s;
	h->ack.dpdcid = 0x400 + s;
	if (type == UET_PDS_ACK)
		return;
	h->ack.cc_flags = s % 15 + 1;
	h->ack.mpr = 0x40 + s;
	h->ack.sack_psn_offset = -(int16_t)(8 + s);
	h->ack.sack_bitmap = 0xf0e1d2c3b4a59687ull + s;
}

static void pds_nack(struct uet_pds_hdr *h, uint8_t type, uint8_t flags,
		     uint8_t code, unsigned s)
{
	h->type = type;
	h->next_hdr = UET_NH_NONE;
	h->flags = flags;
	h->nack.code = code;
	h->nack.vendor_code = 0x50 + s;
	h->nack.psn = 0x30000000u + s * 0x333;
	if (!(flags & UET_PDS_F_NT)) {	/* RUDI NACKs carry no PDCIDs */
		h->nack.spdcid = 0x500 + s;
		h->nack.dpdcid = 0x600 + s;
	}
	h->nack.payload = 0x31000000u + s;
	if (type == UET_PDS_NACK_CCX) {
		h->nack.nccx_type = 0x9;
		h->nack.nccx_state1 = 0x0123456789abcdeull + s;
		h->nack.nccx_state2 = 0xfedcba9876543210ull + s;
	}
}

static void pds_ctrl(struct uet_pds_hdr *h, uint8_t ctl, uint8_t flags,
		     unsigned s)
{
	h->type = UET_PDS_CTRL;
	h->next_hdr = ctl;
	h->flags = flags;
	if (ctl == UET_CTL_PROBE)	/* reserved on the other types */
		h->ctrl.probe_opaque = 0xab00 + s;
	h->ctrl.psn = 0x40000000u + s * 0x444;
	h->ctrl.spdcid = 0x700 + s;
	if (flags & UET_PDS_F_SYN) {
		h->ctrl.pdc_info = 0;
		h->ctrl.psn_offset = 0x10 + s;
	} else {
		h->ctrl.dpdcid = 0x800 + s;
	}
	h->ctrl.payload = 0x41000000u + s * 3;
}

/* Common request fields (docs/protocol.md §5.2). */
static void ses_common(struct uet_ses_req *r, uint8_t format, uint8_t op,
		       uint8_t flags, unsigned s)
{
	r->format = format;
	r->opcode = op;
	r->flags = flags;
	r->ri_generation = 0x10 + s;
	r->job_id = 0x123400 + s;
	r->pid_on_fep = 0x100 + s;
	r->resource_index = 0x200 + s * 2;
}

static void ses_std(struct uet_ses_req *r, uint8_t op, uint8_t flags,
		    unsigned s, uint16_t plen)
{
	ses_common(r, UET_NH_REQ_STD, op, flags, s);
	r->message_id = 0x900 + s;
	r->buffer_offset = 0x1122334455660000ull + s;
	r->initiator = 0xa0000000u + s;
	r->match_bits = 0xfedcba9876540000ull + s;
	if (flags & UET_SES_F_SOM) {
		r->header_data = 0x0badc0de00000000ull + s;
	} else {
		r->payload_length = plen;
		r->message_offset = 0x4000 + s * 0x100;
	}
	r->request_length = 0x10000 + s;
}

/* Small and medium requests are single-packet: request_length = payload. */
static void ses_small(struct uet_ses_req *r, uint8_t op, unsigned s,
		      uint16_t plen)
{
	ses_common(r, UET_NH_REQ_SMALL, op, UET_SES_F_SOM | UET_SES_F_EOM, s);
	r->request_length = plen;
	r->buffer_offset = 0x2233445566770000ull + s;
}

static void ses_medium(struct uet_ses_req *r, uint8_t op, uint8_t flags,
		       unsigned s, uint16_t plen)
{
	ses_common(r, UET_NH_REQ_MEDIUM, op,
		   UET_SES_F_SOM | UET_SES_F_EOM | flags, s);
	r->request_length = plen;
	if (flags & UET_SES_F_HD)
		r->header_data = 0x0dd0000000000000ull + s;
	else
		r->buffer_offset = 0x3344556677880000ull + s;
	r->initiator = 0xb0000000u + s;
	r->match_bits = 0x7a9000000000ull + s;
}

static void ses_rsp(struct uet_ses_rsp *r, uint8_t format, uint8_t op,
		    uint8_t rc, unsigned s, uint16_t plen)
{
	r->format = format;
	r->list = s & 1 ? UET_SES_LIST_OVERFLOW : UET_SES_LIST_EXPECTED;
	r->opcode = op;
	r->return_code = rc;
	r->job_id = 0x567800 + s;
	switch (format) {
	case UET_NH_RSP:
		r->message_id = 0xa00 + s;
		r->ri_generation = 0x60 + s;
		r->modified_length = 0x50000 + s;
		break;
	case UET_NH_RSP_DATA:
		r->message_id = 0xb00 + s;
		r->read_request_message_id = 0xc00 + s;
		r->payload_length = plen;
		r->modified_length = 0x60000 + s;
		r->message_offset = 0x8000 + s * 0x40;
		break;
	case UET_NH_RSP_DATA_SMALL:
		r->payload_length = plen;
		r->original_request_psn = 0x50000000u + s;
		break;
	}
}

static void tss(struct uet_tss_hdr *t, bool sp, bool an, unsigned s)
{
	t->sp = sp;
	t->an = an;
	t->sdi = 0xabc000 + s;
	if (sp)
		t->ssi = 0xc0a80000u + s;
	t->epoch = 0x7e00 + s;
	t->tsc = 0x123456789a00ull + s;
}

/* One packet of every header kind. The frame order is a contract with
 * test-uetdump.sh and the Wireshark dissector test: append, don't reorder. */
static void gen_all(struct gen *g)
{
	struct uet_pcap_meta m;
	struct uet_pkt p;
	unsigned s, ctl;
	char why[80];

	frame_begin(g, &p, &m, GEN_RAW4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, UET_PDS_F_AR, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_EOM, s, 48);
	frame_end(g, &p, &m, 48,
		"raw IPv4 entropy + RUD_REQ + std SEND, SOM=0");

	frame_begin(g, &p, &m, GEN_RAW6, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_RSP, UET_PDS_F_REQ_CLEAR, s);
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP, UET_SES_RESPONSE, UET_RC_OK, s, 0);
	frame_end(g, &p, &m, 0, "raw IPv6 entropy + ACK REQ_CLEAR + response");

	frame_begin(g, &p, &m, GEN_RAW4, 0);
	p.has_tss = true;
	tss(&p.tss, true, false, g->frame);
	frame_end(g, &p, &m, 40 + UET_TSS_ICV_LEN,
		  "raw IPv4 entropy + TSS with SSI + ciphertext + ICV");
	secret_unverified(g, "unknown SDI");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	p.has_tss = true;
	tss(&p.tss, false, true, g->frame);
	frame_end(g, &p, &m, 24 + UET_TSS_ICV_LEN,
		  "TSS without SSI + ciphertext + ICV");
	secret_unverified(g, "unknown SDI");

	frame_begin(g, &p, &m, GEN_UDP6, 0);
	p.has_tss = true;
	tss(&p.tss, true, true, g->frame);
	frame_end(g, &p, &m, 33 + UET_TSS_ICV_LEN,
		  "IPv6 TSS with SSI + ciphertext + ICV");
	secret_unverified(g, "unknown SDI");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, UET_PDS_F_RETX, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_SOM | UET_SES_F_HD, s, 0);
	m.ecn = GEN_ECN_CE;
	frame_end(g, &p, &m, 64,
		"RUD_REQ + std SEND SOM HD header_data, ECN CE");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_ROD_REQ, UET_NH_REQ_STD,
		UET_PDS_F_SYN | UET_PDS_F_AR, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_EOM, s, 32);
	frame_end(g, &p, &m, 32, "ROD_REQ SYN + std SEND SOM=0");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_CC_REQ, UET_NH_REQ_SMALL, 0, s);
	p.has_req = true;
	ses_small(&p.req, UET_SES_WRITE, s, 24);
	frame_end(g, &p, &m, 24, "RUD_CC_REQ + small WRITE");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_ROD_CC_REQ, UET_NH_REQ_MEDIUM,
		UET_PDS_F_SYN, s);
	p.has_req = true;
	ses_medium(&p.req, UET_SES_TAGGED_SEND, UET_SES_F_HD, s, 16);
	frame_end(g, &p, &m, 16, "ROD_CC_REQ SYN + medium TAGGED_SEND HD");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_ATOMIC, UET_SES_F_SOM | UET_SES_F_EOM, s, 0);
	p.req.amo.op = UET_AMO_SUM;
	p.req.amo.dt = UET_AMO_INT64;
	p.req.amo.semantic_control = UET_AMO_SC_CACHEABLE |
				     UET_AMO_SC_COHERENT;
	frame_end(g, &p, &m, 8, "RUD_REQ + std ATOMIC + atomic ext");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, UET_PDS_F_AR, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_FETCHING_ATOMIC,
		UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_DC, s, 0);
	p.req.amo.op = UET_AMO_CSWAP;
	p.req.amo.dt = UET_AMO_UINT64;
	p.req.amo.semantic_control = UET_AMO_SC_COHERENT;
	fill(p.req.amo.compare, sizeof(p.req.amo.compare), 0xc0);
	fill(p.req.amo.swap, sizeof(p.req.amo.swap), 0x5a);
	frame_end(g, &p, &m, 0, "RUD_REQ + std FETCHING_ATOMIC + CSWAP ext");

	/* Tagged atomics take the same two forms (docs/choices.md §10.1). */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_ROD_REQ, UET_NH_REQ_MEDIUM, 0, s);
	p.has_req = true;
	ses_medium(&p.req, UET_SES_TSEND_FETCH_ATOMIC, 0, s, 8);
	p.req.amo.op = UET_AMO_CSWAP_NE;
	p.req.amo.dt = UET_AMO_UINT64;
	fill(p.req.amo.compare + 8, 8, 0x3c);
	fill(p.req.amo.swap + 8, 8, 0xc3);
	frame_end(g, &p, &m, 0,
		  "ROD_REQ + medium TSEND_FETCH_ATOMIC + CSWAP ext");

	/* MSWAP: the mask rides in the compare slot (docs/choices.md §10.2). */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_TSEND_ATOMIC, UET_SES_F_SOM | UET_SES_F_EOM,
		s, 0);
	p.req.amo.op = UET_AMO_MSWAP;
	p.req.amo.dt = UET_AMO_UINT32;
	fill(p.req.amo.compare + 12, 4, 0x0f);
	fill(p.req.amo.swap + 12, 4, 0xa5);
	frame_end(g, &p, &m, 0, "RUD_REQ + std TSEND_ATOMIC MSWAP + CSWAP ext");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_RENDEZVOUS_SEND, UET_SES_F_SOM, s, 0);
	p.req.rndv.eager_length = 64;
	p.req.rndv.read_pid_on_fep = 0x2345;	/* 14 bits */
	p.req.rndv.read_resource_index = 0x9ab;
	p.req.rndv.read_offset = 0x0102030405060708ull;
	p.req.rndv.read_match_bits = 0x1112131415161718ull;
	frame_end(g, &p, &m, 64, "RUD_REQ + std RENDEZVOUS_SEND + rndv ext");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SYNC_WRITE, UET_SES_F_SOM | UET_SES_F_EOM,
		s, 0);
	p.req.sync.group = 0x6a6b;
	p.req.sync.count = 0x0c0d;
	frame_end(g, &p, &m, 16, "RUD_REQ + std SYNC_WRITE + sync ext");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_rudi(&p.pds, UET_PDS_RUDI_REQ, UET_NH_REQ_STD, UET_PDS_F_RETX, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_READ, UET_SES_F_SOM | UET_SES_F_EOM, s, 0);
	frame_end(g, &p, &m, 0, "RUDI_REQ + std READ");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_rudi(&p.pds, UET_PDS_RUDI_RESP, UET_NH_RSP_DATA, UET_PDS_F_M, s);
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP_DATA, UET_SES_RESPONSE_W_DATA, UET_RC_OK,
		s, 40);
	frame_end(g, &p, &m, 40, "RUDI_RESP + response with data");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_rudi(&p.pds, UET_PDS_UUD_REQ, UET_NH_REQ_STD, 0, s);
	p.pds.rudi.pkt_id = 0;		/* UUD has no packet id */
	p.has_req = true;
	ses_std(&p.req, UET_SES_DATAGRAM_SEND,
		UET_SES_F_SOM | UET_SES_F_EOM | UET_SES_F_REL, s, 0);
	frame_end(g, &p, &m, 20, "UUD_REQ + std DATAGRAM_SEND");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_RSP, UET_PDS_F_RETX, s);
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP, UET_SES_RESPONSE, UET_RC_NO_MATCH, s, 0);
	frame_end(g, &p, &m, 0, "ACK + response");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, UET_PDS_F_P, g->frame);
	frame_end(g, &p, &m, 0, "ACK P (probe reply)");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK_CC, UET_NH_RSP_DATA_SMALL, UET_PDS_F_M, s);
	p.pds.ack.cc_type = UET_CC_NSCC;
	p.pds.ack.cc.service_time = 0x5e00 + s;
	p.pds.ack.cc.restore_cwnd = true;
	p.pds.ack.cc.rcv_cwnd_pend = 0x55;
	p.pds.ack.cc.rcvd_bytes = 0xabcdef;
	p.pds.ack.cc.ooo_count = 0x0707 + s;
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP_DATA_SMALL, UET_SES_RESPONSE_W_DATA,
		UET_RC_OK, s, 12);
	frame_end(g, &p, &m, 12, "ACK_CC NSCC + small response with data");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK_CC, UET_NH_RSP, UET_PDS_F_REQ_CLOSE, s);
	p.pds.ack.cc_type = UET_CC_CREDIT;
	p.pds.ack.cc.credit = 0x9a8b7c;
	p.pds.ack.cc.ooo_count = 0x0303 + s;
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP, UET_SES_NO_RESPONSE, UET_RC_BAD_MKEY, s,
		0);
	frame_end(g, &p, &m, 0, "ACK_CC credit REQ_CLOSE + NO_RESPONSE");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK_CCX, UET_NH_NONE, UET_PDS_F_RETX, s);
	p.pds.ack.cc_type = 0xe;	/* ccx type: opaque to uet */
	fill(p.pds.ack.ccx_state, sizeof(p.pds.ack.ccx_state), 0xcc);
	frame_end(g, &p, &m, 0, "ACK_CCX");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_nack(&p.pds, UET_PDS_NACK, UET_PDS_F_RETX,
		 UET_NACK_PSN_OOR_WINDOW, g->frame);
	frame_end(g, &p, &m, 0, "NACK PSN_OOR_WINDOW");

	frame_begin(g, &p, &m, GEN_UDP6, GEN_DSCP_EF);
	pds_nack(&p.pds, UET_PDS_NACK, UET_PDS_F_NT, UET_NACK_NO_PKT_BUFFER,
		 g->frame);
	frame_end(g, &p, &m, 0, "IPv6 NACK NT (RUDI) NO_PKT_BUFFER");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_nack(&p.pds, UET_PDS_NACK_CCX, UET_PDS_F_M,
		 UET_NACK_NEW_START_PSN, g->frame);
	frame_end(g, &p, &m, 0, "NACK_CCX NEW_START_PSN");

	for (ctl = UET_CTL_NOOP; ctl <= UET_CTL_MAX; ctl++) {
		static const uint8_t ctl_flags[UET_CTL_MAX + 1] = {
			[UET_CTL_NOOP] = UET_PDS_F_SYN | UET_PDS_F_AR,
			[UET_CTL_ACK_REQ] = UET_PDS_F_AR,
			[UET_CTL_CLEAR_REQ] = UET_PDS_F_RETX,
			[UET_CTL_CLOSE] = UET_PDS_F_AR,
		};
		static const char *const what[] = {
			"CTRL NOOP SYN", "CTRL ACK_REQ", "CTRL CLEAR",
			"CTRL CLEAR_REQ", "CTRL CLOSE", "CTRL CLOSE_REQ",
			"CTRL PROBE", "IPv6 CTRL CREDIT", "CTRL CREDIT_REQ",
		};

		frame_begin(g, &p, &m,
			    ctl == UET_CTL_CREDIT ? GEN_UDP6 : GEN_UDP4,
			    GEN_DSCP_EF);
		pds_ctrl(&p.pds, ctl, ctl_flags[ctl], g->frame);
		frame_end(g, &p, &m, 0, what[ctl]);
	}

	frame_begin(g, &p, &m, GEN_UDP6, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_RSP_DATA, 0, s);
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP_DATA, UET_SES_RESPONSE_W_DATA, UET_RC_OK,
		s, 100);
	frame_end(g, &p, &m, 100,
		"IPv6 RUD_REQ + response with data (read return)");

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_ROD_REQ, UET_NH_REQ_MEDIUM, UET_PDS_F_RETX, s);
	p.has_req = true;
	ses_medium(&p.req, UET_SES_WRITE, 0, s, 8);
	frame_end(g, &p, &m, 8, "ROD_REQ + medium WRITE without HD");

	frame_begin(g, &p, &m, GEN_RAW6, 0);
	s = g->frame;
	pds_rudi(&p.pds, UET_PDS_UUD_REQ, UET_NH_REQ_SMALL, 0, s);
	p.pds.rudi.pkt_id = 0;
	p.has_req = true;
	ses_small(&p.req, UET_SES_DATAGRAM_SEND, s, 4);
	frame_end(g, &p, &m, 4,
		"raw IPv6 entropy + UUD_REQ + small DATAGRAM_SEND");

	/* Sealed through uet/tss with the test domains (-K, -s). */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD,
		UET_PDS_F_SYN | UET_PDS_F_AR, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_TAGGED_SEND, UET_SES_F_SOM | UET_SES_F_EOM,
		s, 0);
	frame_sealed(g, &p, &m, 32, &(struct seal){ .an = 0 },
		     "sealed direct AN 0: RUD_REQ SYN + std TAGGED_SEND");

	frame_begin(g, &p, &m, GEN_RAW6, GEN_DSCP_EF);
	s = g->frame;
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_RSP, 0, s);
	p.has_rsp = true;
	ses_rsp(&p.rsp, UET_NH_RSP, UET_SES_RESPONSE, UET_RC_OK, s, 0);
	frame_sealed(g, &p, &m, 0, &(struct seal){ .an = 1 },
		     "raw IPv6 entropy + sealed direct AN 1: ACK + response");

	frame_begin(g, &p, &m, GEN_RAW4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_ROD_REQ, UET_NH_REQ_MEDIUM, 0, s);
	p.has_req = true;
	ses_medium(&p.req, UET_SES_WRITE, 0, s, 8);
	frame_sealed(g, &p, &m, 8, &(struct seal){ .cluster = true },
		     "raw IPv4 entropy + sealed cluster: ROD_REQ + medium "
		     "WRITE");

	frame_begin(g, &p, &m, GEN_UDP6, GEN_DSCP_EF);
	pds_ctrl(&p.pds, UET_CTL_ACK_REQ, UET_PDS_F_AR, g->frame);
	frame_sealed(g, &p, &m, 0, &(struct seal){ .cluster = true },
		     "IPv6 sealed cluster: CTRL ACK_REQ");

	/* One flipped bit in the ciphertext: must not verify. */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_SMALL, 0, s);
	p.has_req = true;
	ses_small(&p.req, UET_SES_WRITE, s, 16);
	frame_sealed(g, &p, &m, 16, &(struct seal){
			.flip = 5,
			.secret = "unverified authentication failed" },
		     "sealed direct, one ciphertext bit flipped");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	frame_sealed(g, &p, &m, 0, &(struct seal){
			.cluster = true, .an = 1,
			.secret = "unverified no key for AN 1" },
		     "sealed cluster AN 1 (the key file has no key1): ACK");

	/* Verifies, but PDS type 15 inside is reserved. */
	snprintf(why, sizeof(why), "malformed %s",
		 uet_err_str(UET_ERR_WIRE_TYPE));
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	frame_sealed(g, &p, &m, 0, &(struct seal){
			.byte0 = 15 << 3, .secret = why },
		     "sealed direct: reserved PDS type 15 inside");
}

/* ---- GSO trains (--gso) ---- */

/* Encodes p at b + off with plen payload bytes after it; returns where
 * the next packet goes. */
static size_t encode_at(struct gen *g, uint8_t *b, size_t cap, size_t off,
			const struct uet_pkt *p, size_t plen)
{
	int h = uet_pkt_encode(b + off, cap - off, p);

	if (h < 0 || off + (size_t)h + plen > cap)
		die("frame %u: a packet of the train does not fit", g->frame);
	fill(b + off + h, plen, g->frame + (unsigned)off);
	return off + (size_t)h + plen;
}

/* The manifest line of packet k of n a reader must find. */
static void train_line(struct gen *g, const struct uet_pkt *p, size_t plen,
		       unsigned k, unsigned n)
{
	fprintf(g->man, "%u %u/%u %s ", g->frame, k, n,
		uet_name_pds_type(p->pds.type));
	if (p->pds.type == UET_PDS_ACK)
		fprintf(g->man, "-");
	else
		fprintf(g->man, "%" PRIu32, p->pds.req.psn);
	fprintf(g->man, " %zu\n", plen);
}

/* Packet k of a message from one PDC: PSN base + k. */
static void train_req(struct uet_pkt *p, uint8_t type, unsigned s,
		      unsigned k, uint8_t som_eom, uint16_t plen)
{
	memset(p, 0, sizeof(*p));
	pds_req(&p->pds, type, UET_NH_REQ_STD,
		som_eom & UET_SES_F_EOM ? UET_PDS_F_AR : 0, s);
	p->pds.req.psn += k;
	p->has_req = true;
	ses_std(&p->req, UET_SES_SEND, som_eom, s, plen);
	if (!(som_eom & UET_SES_F_SOM))
		p->req.message_offset = 1000u * k;
}

static void gen_gso(struct gen *g)
{
	static const uint16_t cc_len[3] = { 1400, 1400, 333 };
	struct uet_pcap_meta m;
	struct uet_pkt p, q;
	uint8_t b[16384];
	size_t n, first;
	unsigned s, k;

	/* a message of 3 packets and the ACK held behind it */
	frame_begin(g, &q, &m, GEN_UDP4, 0);
	s = g->frame;
	n = 0;
	for (k = 0; k < 3; k++) {
		train_req(&p, UET_PDS_RUD_REQ, s, k,
			  k == 0 ? UET_SES_F_SOM : k == 2 ? UET_SES_F_EOM : 0,
			  1000);
		n = encode_at(g, b, sizeof(b), n, &p, 1000);
		train_line(g, &p, 1000, k + 1, 4);
	}
	memset(&p, 0, sizeof(p));
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, s);
	n = encode_at(g, b, sizeof(b), n, &p, 0);
	train_line(g, &p, 0, 4, 4);
	write_frame(g, &m, b, n);
	describe(g, "GSO train: 3 RUD_REQ and an ACK");

	/* one long packet: nothing to cut */
	frame_begin(g, &q, &m, GEN_UDP4, 0);
	train_req(&p, UET_PDS_RUD_REQ, g->frame, 0,
		  UET_SES_F_SOM | UET_SES_F_EOM, 0);
	n = encode_at(g, b, sizeof(b), 0, &p, 9000);
	train_line(g, &p, 9000, 1, 1);
	write_frame(g, &m, b, n);
	describe(g, "one RUD_REQ of 9000 bytes");

	/* the middle of a message, over IPv6, the last packet shorter */
	frame_begin(g, &q, &m, GEN_UDP6, 0);
	s = g->frame;
	n = 0;
	for (k = 0; k < 3; k++) {
		train_req(&p, UET_PDS_RUD_CC_REQ, s, 4 + k,
			  k == 2 ? UET_SES_F_EOM : 0, cc_len[k]);
		n = encode_at(g, b, sizeof(b), n, &p, cc_len[k]);
		train_line(g, &p, cc_len[k], k + 1, 3);
	}
	write_frame(g, &m, b, n);
	describe(g, "GSO train: 3 RUD_CC_REQ, IPv6, the last shorter");

	/* a PSN missing after the first: no train, one packet to a reader,
	 * its payload running on over the second */
	frame_begin(g, &q, &m, GEN_UDP4, 0);
	s = g->frame;
	train_req(&p, UET_PDS_RUD_REQ, s, 0, UET_SES_F_SOM, 0);
	first = encode_at(g, b, sizeof(b), 0, &p, 500);
	train_req(&q, UET_PDS_RUD_REQ, s, 2, UET_SES_F_EOM, 500);
	n = encode_at(g, b, sizeof(b), first, &q, 500);
	train_line(g, &p, n - first + 500, 1, 1);
	write_frame(g, &m, b, n);
	describe(g, "RUD_REQ, then one of PSN + 2: not a train");
}

/* ---- malformed frames (--bad) ---- */

/* A malformed frame: `b` are the UET bytes, `err` what the decoder must
 * say about them. */
static void bad_end(struct gen *g, const struct uet_pcap_meta *m,
		    const uint8_t *b, size_t n, int err, const char *what)
{
	write_frame(g, m, b, n);
	fprintf(g->man, "%u malformed %s\n", g->frame, uet_err_str(err));
	describe(g, what);
}

/* Encodes p into a zeroed buffer, so bytes past the headers are 0. */
static int encode(const struct uet_pkt *p, uint8_t *buf, size_t cap)
{
	int n;

	memset(buf, 0, cap);
	n = uet_pkt_encode(buf, cap, p);

	if (n < 0)
		die("encode: %s", uet_err_str(n));
	return n;
}

static void gen_bad(struct gen *g)
{
	struct uet_pcap_meta m;
	struct uet_pkt p;
	uint8_t b[512];
	unsigned s;
	int n;

	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_rudi(&p.pds, UET_PDS_UUD_REQ, UET_NH_REQ_STD, 0, s);
	p.pds.rudi.pkt_id = 0;
	p.has_req = true;
	ses_std(&p.req, UET_SES_DATAGRAM_SEND, UET_SES_F_SOM | UET_SES_F_EOM,
		s, 0);
	frame_end(g, &p, &m, 10, "good UUD_REQ + std DATAGRAM_SEND");

	/* a RUD request cut inside its PDS header */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, g->frame);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_SOM, g->frame, 0);
	encode(&p, b, sizeof(b));
	bad_end(g, &m, b, 7, UET_ERR_WIRE_TRUNC,
		"RUD_REQ truncated at 7 bytes");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	frame_end(g, &p, &m, 0, "good ACK");

	/* PDS type 15 is reserved (docs/protocol.md §3.1) */
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	n = encode(&p, b, sizeof(b));
	b[0] = (uint8_t)(15 << 3 | (b[0] & 0x7));
	bad_end(g, &m, b, n + 20, UET_ERR_WIRE_TYPE, "reserved PDS type 15");

	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ctrl(&p.pds, UET_CTL_NOOP, 0, g->frame);
	frame_end(g, &p, &m, 0, "good CTRL NOOP");

	/* ctl_type 12 is reserved (docs/protocol.md §4.7); it sits in next_hdr
	 * [10:7] */
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ctrl(&p.pds, UET_CTL_NOOP, 0, g->frame);
	n = encode(&p, b, sizeof(b));
	b[0] = (uint8_t)((b[0] & 0xf8) | 12 >> 1);
	b[1] &= 0x7f;
	bad_end(g, &m, b, n, UET_ERR_WIRE_CTL_TYPE,
		"CTRL reserved ctl_type 12");

	/* an ACK cannot carry a request header (docs/protocol.md §3.2) */
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	n = encode(&p, b, sizeof(b));
	b[0] = (uint8_t)((b[0] & 0xf8) | UET_NH_REQ_SMALL >> 1);
	b[1] |= (UET_NH_REQ_SMALL & 1) << 7;
	memset(b + n, 0, UET_SES_SMALL_LEN);
	b[n] = UET_SES_WRITE;
	b[n + 1] = UET_SES_F_SOM | UET_SES_F_EOM;
	bad_end(g, &m, b, n + UET_SES_SMALL_LEN, UET_ERR_WIRE_NEXT_HDR,
		"ACK with next_hdr REQ_SMALL");

	/* SES version 1 (docs/protocol.md §5.2 byte 1 [7:6]) */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_SOM | UET_SES_F_EOM, s, 0);
	n = encode(&p, b, sizeof(b));
	b[UET_PDS_REQ_LEN + 1] |= 0x40;
	bad_end(g, &m, b, n + 8, UET_ERR_WIRE_VERSION,
		"std SEND with SES version 1");

	/* SES request opcode 0x20 is reserved (docs/protocol.md §5.1) */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, 0, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_SEND, UET_SES_F_SOM | UET_SES_F_EOM, s, 0);
	n = encode(&p, b, sizeof(b));
	b[UET_PDS_REQ_LEN] = (b[UET_PDS_REQ_LEN] & 0xc0) | 0x20;
	bad_end(g, &m, b, n + 8, UET_ERR_WIRE_OPCODE,
		"std request opcode 0x20");

	/* ACK_CC cc_type 5 is reserved (docs/protocol.md §4.3) */
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK_CC, UET_NH_NONE, 0, g->frame);
	p.pds.ack.cc_type = UET_CC_CREDIT;
	n = encode(&p, b, sizeof(b));
	b[12] = (uint8_t)(5 << 4 | (b[12] & 0x0f));
	bad_end(g, &m, b, n, UET_ERR_WIRE_CC_TYPE, "ACK_CC reserved cc_type 5");

	/* ACK REQ value 3 is reserved (docs/protocol.md §3.3) */
	frame_begin(g, &p, &m, GEN_UDP4, GEN_DSCP_EF);
	pds_ack(&p.pds, UET_PDS_ACK, UET_NH_NONE, 0, g->frame);
	n = encode(&p, b, sizeof(b));
	b[1] |= UET_PDS_F_REQ_MASK;
	bad_end(g, &m, b, n, UET_ERR_WIRE_RESERVED, "ACK with REQ=3");

	/* raw IP: entropy header cut short (docs/protocol.md §1.3) */
	frame_begin(g, &p, &m, GEN_RAW4, 0);
	pds_rudi(&p.pds, UET_PDS_UUD_REQ, UET_NH_REQ_SMALL, 0, g->frame);
	p.pds.rudi.pkt_id = 0;
	p.has_req = true;
	ses_small(&p.req, UET_SES_DATAGRAM_SEND, g->frame, 0);
	encode(&p, b, sizeof(b));
	bad_end(g, &m, b, 2, UET_ERR_WIRE_TRUNC,
		"raw IPv4 entropy header cut at 2 bytes");

	frame_begin(g, &p, &m, GEN_RAW4, 0);
	s = g->frame;
	pds_req(&p.pds, UET_PDS_RUD_REQ, UET_NH_REQ_STD, UET_PDS_F_AR, s);
	p.has_req = true;
	ses_std(&p.req, UET_SES_WRITE, UET_SES_F_SOM | UET_SES_F_EOM, s, 0);
	frame_end(g, &p, &m, 30, "good raw IPv4 RUD_REQ + std WRITE");

	/* TSS with no room for its 16-byte ICV (docs/protocol.md §2) */
	frame_begin(g, &p, &m, GEN_UDP4, 0);
	p.has_tss = true;
	tss(&p.tss, true, false, g->frame);
	n = encode(&p, b, sizeof(b));
	bad_end(g, &m, b, n + UET_TSS_ICV_LEN - 1, UET_ERR_WIRE_TRUNC,
		"TSS with 15 bytes after its header");

	frame_begin(g, &p, &m, GEN_RAW6, 0);
	p.has_tss = true;
	tss(&p.tss, false, false, g->frame);
	frame_end(g, &p, &m, UET_TSS_ICV_LEN,
		  "good raw IPv6 TSS without SSI, ICV only");
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: uetgen -w FILE.pcap [-m MANIFEST] [-l LIST] [-s SECRETS] [-K PREFIX] [--bad|--gso]\n"
		"Write a capture with one UET packet of every header kind.\n"
		"  -w FILE      pcap file to write ('-' = stdout)\n"
		"  -m MANIFEST  write '<frame> <field> <value>' lines (default stdout)\n"
		"  -l LIST      write '<frame> <description>' lines\n"
		"  -s SECRETS   write the fields inside TSS frames, or why the\n"
		"               test keys must not open them\n"
		"  -K PREFIX    write the test domains' key files\n"
		"               PREFIX-direct.key and PREFIX-cluster.key\n"
		"  --bad        write malformed packets between good ones instead\n"
		"  --gso        write GSO trains: several packets in one frame\n");
}

static FILE *open_out(const char *path)
{
	FILE *f;

	if (!path || !strcmp(path, "-"))
		return stdout;
	f = fopen(path, "w");
	if (!f)
		die("%s: cannot create", path);
	return f;
}

static void close_out(FILE *f, const char *path)
{
	if (!f)
		return;
	if (fflush(f) || ferror(f) || (f != stdout && fclose(f)))
		die("%s: write failed", path ? path : "stdout");
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bad", no_argument, NULL, 'b' },
		{ "gso", no_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *pcap_path = NULL, *man_path = NULL, *list_path = NULL;
	const char *secret_path = NULL, *key_prefix = NULL;
	char err[UET_PCAP_ERRBUF_SIZE];
	struct gen g = { 0 };
	bool bad = false, gso = false;
	int c;

	while ((c = getopt_long(argc, argv, "w:m:l:s:K:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'w':
			pcap_path = optarg;
			break;
		case 'm':
			man_path = optarg;
			break;
		case 'l':
			list_path = optarg;
			break;
		case 's':
			secret_path = optarg;
			break;
		case 'K':
			key_prefix = optarg;
			break;
		case 'b':
			bad = true;
			break;
		case 'g':
			gso = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 1;
		}
	}
	if (!pcap_path || optind < argc) {
		usage(stderr);
		return 1;
	}
	if (man_path && !strcmp(man_path, pcap_path))
		die("manifest and capture must differ");

	if (uet_pcap_open(&g.pc, pcap_path, 0, err))
		die("%s", err);
	g.man = open_out(man_path);
	if (list_path)
		g.list = open_out(list_path);
	if (secret_path)
		g.secret = open_out(secret_path);
	if (key_prefix)
		write_keys(key_prefix);
	if (bad)
		gen_bad(&g);
	else if (gso)
		gen_gso(&g);
	else
		gen_all(&g);
	if (uet_pcap_close(g.pc))
		die("%s: close failed", pcap_path);
	close_out(g.man, man_path);
	close_out(g.list, list_path);
	close_out(g.secret, secret_path);
	return 0;
}
