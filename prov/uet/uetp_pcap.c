/* FI_UET_PCAP: one capture file per process, fed by callbacks.trace of
 * every endpoint (every packet the engine sends or accepts for decoding).
 * "%p" in the name becomes the process id, so two processes of one run
 * do not overwrite each other; without it, a second process finds the
 * file locked and writes NAME.PID. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "uet/pcap.h"
#include "uet/rawip.h"
#include "uet/udp.h"
#include "uet/wire.h"
#include "uetp.h"

static pthread_mutex_t uetp_pcap_lock = PTHREAD_MUTEX_INITIALIZER;
static struct uet_pcap *uetp_pcap_writer;
static bool uetp_pcap_failed;
/* Raw IP: the packet with its entropy header, as the IP payload on the
 * wire; used under the lock. */
static uint8_t uetp_pcap_raw[UET_ENTROPY_HDR_LEN + 65536];

static void uetp_pcap_path(char *out, size_t cap, const char *in)
{
	size_t n = 0;

	for (; *in && n + 1 < cap; in++) {
		if (in[0] == '%' && in[1] == 'p') {
			n += (size_t)snprintf(out + n, cap - n, "%ld",
					      (long)getpid());
			in++;
			if (n >= cap)
				n = cap - 1;
			continue;
		}
		out[n++] = *in;
	}
	out[n] = '\0';
}

/* Another process writes path (the same FI_UET_PCAP without %p): this
 * one writes path.PID (into mine) instead, and says so. */
static int uetp_pcap_own(const char *path, char *mine, size_t cap, char *err)
{
	int ret;

	snprintf(mine, cap, "%s.%ld", path, (long)getpid());
	ret = uet_pcap_open(&uetp_pcap_writer, mine, 0, err);
	if (!ret)
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_PCAP=%s: another process writes it; this one "
			"writes %s\n", path, mine);
	return ret;
}

int uetp_pcap_get(void)
{
	char path[4096], mine[4096 + 32], err[UET_PCAP_ERRBUF_SIZE];
	int ret;

	if (!uetp_env.pcap)
		return 0;
	pthread_mutex_lock(&uetp_pcap_lock);
	if (!uetp_pcap_writer && !uetp_pcap_failed) {
		uetp_pcap_path(path, sizeof(path), uetp_env.pcap);
		ret = uet_pcap_open(&uetp_pcap_writer, path, 0, err);
		if (ret == UET_ERR_BUSY)
			ret = uetp_pcap_own(path, mine, sizeof(mine), err);
		if (ret) {
			FI_WARN(&uetp_prov, FI_LOG_CORE,
				"FI_UET_PCAP=%s: %s\n", path, err);
			uetp_pcap_failed = true;
			uetp_pcap_writer = NULL;
		}
	}
	ret = uetp_pcap_writer ? 1 : 0;
	pthread_mutex_unlock(&uetp_pcap_lock);
	return ret;
}

void uetp_pcap_put(void)
{
	uetp_pcap_flush();
}

void uetp_pcap_flush(void)
{
	pthread_mutex_lock(&uetp_pcap_lock);
	if (uetp_pcap_writer)
		uet_pcap_flush(uetp_pcap_writer);
	pthread_mutex_unlock(&uetp_pcap_lock);
}

void uetp_pcap_cleanup(void)
{
	pthread_mutex_lock(&uetp_pcap_lock);
	uet_pcap_close(uetp_pcap_writer);
	uetp_pcap_writer = NULL;
	uetp_pcap_failed = false;
	pthread_mutex_unlock(&uetp_pcap_lock);
}

void uetp_pcap_trace(const struct uet_net *net, int dir, uint8_t dscp,
		     const struct uet_pkt_info *pi, const uint8_t *pkt,
		     size_t len)
{
	const struct uet_addr *local = &net->local;
	struct uet_pcap_meta m;
	struct timespec ts;

	memset(&m, 0, sizeof(m));
	m.ipv6 = local->af == UET_AF_INET6;
	if (dir) {		/* out: the source port the port will use */
		memcpy(m.src, local->ip, 16);
		memcpy(m.dst, pi->dst.ip, 16);
		m.src_port = uet_udp_tx_port(net, pi);
		m.dst_port = pi->dst.port;
		/* the port sends NOT_ECT as its default ECT(0) (udp.h) */
		m.ecn = pi->ecn == UET_ECN_NOT_ECT ? UET_ECN_ECT0 : pi->ecn;
		m.dscp = dscp;
	} else {		/* in: as received, at home or a spray port */
		memcpy(m.src, pi->src.ip, 16);
		memcpy(m.dst, local->ip, 16);
		m.src_port = pi->src.port;
		m.dst_port = pi->dst.port ? pi->dst.port : local->port;
		m.ecn = pi->ecn;
		m.dscp = pi->dscp;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	m.ts_ns = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
	pthread_mutex_lock(&uetp_pcap_lock);
	if (uetp_pcap_writer && uet_rawip_is(net)) {
		struct uet_entropy_hdr e = { .entropy = pi->entropy };

		m.raw_ip = true;
		m.ip_proto = uet_rawip_proto(net);
		m.src_port = m.dst_port = 0;
		if (len <= sizeof(uetp_pcap_raw) - UET_ENTROPY_HDR_LEN &&
		    uet_entropy_hdr_encode(uetp_pcap_raw, UET_ENTROPY_HDR_LEN,
					   &e) == UET_ENTROPY_HDR_LEN) {
			memcpy(uetp_pcap_raw + UET_ENTROPY_HDR_LEN, pkt, len);
			uet_pcap_write(uetp_pcap_writer, &m, uetp_pcap_raw,
				       len + UET_ENTROPY_HDR_LEN);
		}
	} else if (uetp_pcap_writer) {
		uet_pcap_write(uetp_pcap_writer, &m, pkt, len);
	}
	pthread_mutex_unlock(&uetp_pcap_lock);
}
