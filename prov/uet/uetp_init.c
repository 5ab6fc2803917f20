/* Provider entry: fi_prov_ini, parameters, cleanup.
 *
 * fi_prov_ini runs inside libfabric's fi_ini() under its init lock, even
 * when FI_PROVIDER excludes us (docs/architecture.md §8.1): only define and
 * read parameters here, no sockets, threads or fi_getinfo calls.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "uet/rawip.h"
#include "uet/udp.h"
#include "uetp.h"

#ifndef EXTERNALLY_VISIBLE
#define EXTERNALLY_VISIBLE
#endif

static void uetp_cleanup(void);
static int uetp_getinfo(uint32_t version, const char *node,
			const char *service, uint64_t flags,
			const struct fi_info *hints, struct fi_info **info);

struct fi_provider uetp_prov = {
	.version = UETP_VERSION,
	.fi_version = UETP_FI_VERSION,
	.name = UETP_PROV_NAME,
	.getinfo = uetp_getinfo,
	.fabric = uetp_fabric_open,
	.cleanup = uetp_cleanup,
};

/* FI_UET_LB values: enum uet_lb_kind. */
static const char *const uetp_lb_names[] = {
	[UET_LB_SINGLE] = "single", [UET_LB_OBLIVIOUS] = "oblivious",
	[UET_LB_REPS] = "reps", [UET_LB_BITMAP] = "bitmap",
	[UET_LB_MIXED] = "mixed",
};

struct uetp_env uetp_env = {
	.udp_port = UETP_DEFAULT_UDP_PORT,
	.entropy_bits = UET_UDP_ENTROPY_BITS_DEFAULT,
	.job_id = UETP_DEFAULT_JOB_ID,
	.tx_size = UETP_DEFAULT_TX_SIZE,
	.rx_size = UETP_DEFAULT_RX_SIZE,
	.rndv_threshold = UETP_DEFAULT_RNDV_THRESHOLD,
	.poll_spin_us = UETP_DEFAULT_POLL_SPIN_US,
	.rescue_ms = UETP_DEFAULT_RESCUE_MS,
	.close_linger_ms = UETP_DEFAULT_CLOSE_LINGER_MS,
	.ack_hold_us = UETP_DEFAULT_ACK_HOLD_US,
	.cork_us = UETP_DEFAULT_CORK_US,
	.unexp_max = UETP_DEFAULT_UNEXP_MAX,
	.udp_gso = 1,
	.host_path = 1,
	.tx_zcopy = 1,
	.rx_place = 1,
	.loss_infer = 1,
	.lb_delay = 1,
	.ip_proto = UET_RAWIP_PROTO_DEFAULT,
};

uet_time uetp_clock_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uet_time)ts.tv_sec * UET_SEC + (uet_time)ts.tv_nsec;
}

struct uetp_hooks uetp_hooks = {
	.port_open = uetp_ep_port_open,
	.now = uetp_clock_monotonic,
};

uet_time uetp_now(void)
{
	return uetp_hooks.now();
}

static char *uetp_env_str(const char *name)
{
	char *v = NULL;

	if (fi_param_get_str(&uetp_prov, name, &v) || !v || !*v)
		return NULL;
	return strdup(v);
}

/* The engine's PDC ids are 16-bit, never 0. */
#define UETP_MAX_PDCS	65534

/* An int parameter within [min, max]; out of range is warned and ignored. */
static void uetp_env_int(const char *name, int min, int max, int *out)
{
	int v;

	if (fi_param_get_int(&uetp_prov, name, &v))
		return;
	if (v < min || v > max) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_%s=%d outside [%d, %d], ignored\n", name, v,
			min, max);
		return;
	}
	*out = v;
}

static void uetp_env_size(const char *name, size_t min, size_t max,
			  size_t *out)
{
	size_t v;

	if (fi_param_get_size_t(&uetp_prov, name, &v))
		return;
	if (v < min || v > max) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_%s=%zu outside [%zu, %zu], ignored\n", name, v,
			min, max);
		return;
	}
	*out = v;
}

static void uetp_env_bool(const char *name, int *out)
{
	int v;

	if (!fi_param_get_bool(&uetp_prov, name, &v))
		*out = !!v;
}

static void uetp_define_params(void)
{
	struct uet_fep_config d;

	uet_fep_config_default(&d);

	fi_param_define(&uetp_prov, "iface", FI_PARAM_STRING,
		"Comma-separated interface names whose addresses become "
		"domains (default: every interface that is up, loopback last)");
	fi_param_define(&uetp_prov, "planes", FI_PARAM_STRING,
		"Comma-separated interface names, one per fabric plane: an "
		"endpoint keeps its one address and sends each packet out of "
		"plane (entropy value mod planes), up to %d; UDP only "
		"(default: none, the route picks the interface)",
		UET_UDP_PLANES_MAX);
	fi_param_define(&uetp_prov, "udp_port", FI_PARAM_INT,
		"Preferred UDP home port (where peers send) of the first "
		"endpoint on an address; later endpoints get an ephemeral "
		"port. 0 = always ephemeral (default: %d, the IANA UET port)",
		UETP_DEFAULT_UDP_PORT);
	fi_param_define(&uetp_prov, "entropy_bits", FI_PARAM_INT,
		"k: every endpoint also binds 2^k ephemeral UDP ports and "
		"sprays its packets over them by entropy (source port); 0 = "
		"send everything from the home port (default: %d, max %d)",
		UET_UDP_ENTROPY_BITS_DEFAULT, UET_UDP_ENTROPY_BITS_MAX);
	fi_param_define(&uetp_prov, "entropy_run", FI_PARAM_INT,
		"New packets a PDC sends on one entropy value (one source "
		"port, one path) before the next: long runs make GSO trains, "
		"short ones spread a window over more paths (default: 0 = "
		"the engine's %u, or as many as fill one 64 KB GSO train "
		"where packets are smaller than 4 KB; max 256)",
		(unsigned)d.entropy_run);
	fi_param_define(&uetp_prov, "transport", FI_PARAM_STRING,
		"udp: UET over UDP (port 4793); ip: UET directly over IP "
		"(protocol FI_UET_IP_PROTO, one endpoint per address, needs "
		"CAP_NET_RAW) (default: udp)");
	fi_param_define(&uetp_prov, "ip_proto", FI_PARAM_INT,
		"IP protocol number of FI_UET_TRANSPORT=ip (default: %d)",
		UET_RAWIP_PROTO_DEFAULT);
	fi_param_define(&uetp_prov, "key_file", FI_PARAM_STRING,
		"Transport security: the secure domain every endpoint joins "
		"(fi_uet(7) KEY FILE; mode 600, owned by the user or root); "
		"every packet is then encrypted and authenticated "
		"(default: none, packets in clear)");
	fi_param_define(&uetp_prov, "pcap", FI_PARAM_STRING,
		"Write every UET packet sent and received to this pcap file; "
		"%%p in the name becomes the process id (default: none)");
	fi_param_define(&uetp_prov, "progress_thread", FI_PARAM_BOOL,
		"Run a progress thread per domain and advertise "
		"FI_PROGRESS_AUTO data progress (default: 0)");
	fi_param_define(&uetp_prov, "rescue_ms", FI_PARAM_INT,
		"Without a progress thread, a thread per domain runs the "
		"progress of endpoints the application has not driven for "
		"this many milliseconds, so that lost packets are resent and "
		"peers answered while it is away from libfabric; 0: never "
		"(default: %d)", UETP_DEFAULT_RESCUE_MS);
	fi_param_define(&uetp_prov, "close_linger_ms", FI_PARAM_INT,
		"Longest an endpoint's close waits for peers that may not "
		"have its last ACK to go quiet (three RTOs after their last "
		"packet), so that their resends are answered; 0: do not wait "
		"(default: %d)", UETP_DEFAULT_CLOSE_LINGER_MS);
	fi_param_define(&uetp_prov, "ack_hold_us", FI_PARAM_INT,
		"An ACK only a message's end asks for waits this many "
		"microseconds for a packet of ours to the same peer and "
		"follows it, so a reply is not sent behind it; 0: at once "
		"(default: %d)", UETP_DEFAULT_ACK_HOLD_US);
	fi_param_define(&uetp_prov, "cork_us", FI_PARAM_INT,
		"A send of at most %d bytes posted within this many "
		"microseconds of the previous one waits for the next "
		"progress call (or a batch's worth of sends, or the rescue "
		"pass), so a burst leaves in few system calls; FI_MORE "
		"corks always; 0: every send leaves at once "
		"(default: %d)", UETP_CORK_MAX_LEN, UETP_DEFAULT_CORK_US);
	fi_param_define(&uetp_prov, "allow_layering", FI_PARAM_BOOL,
		"Let libfabric utility providers (ofi_rxm, ofi_rxd, ...) "
		"layer over uet (default: 0)");
	fi_param_define(&uetp_prov, "job_id", FI_PARAM_INT,
		"UET JobID (24 bits) of endpoints opened without an auth_key "
		"(default: %d)", UETP_DEFAULT_JOB_ID);
	fi_param_define(&uetp_prov, "mtu", FI_PARAM_SIZE_T,
		"Largest UET packet in bytes, headers included, %d..%d "
		"(default: 0 = interface MTU minus IP and UDP headers)",
		UETP_MTU_MIN, UETP_PKT_MAX);
	fi_param_define(&uetp_prov, "host_path", FI_PARAM_BOOL,
		"Endpoints at the domain's own address (other processes on "
		"this host) are reached over the kernel's loopback, whatever "
		"the interface: send them packets of the loopback's size, up "
		"to %d bytes; 0: the interface's MTU for every peer; "
		"FI_UET_MTU, when set, holds for them too (default: 1)",
		UETP_PKT_MAX);
	fi_param_define(&uetp_prov, "tx_size", FI_PARAM_SIZE_T,
		"Default transmit queue depth (default: %d)",
		UETP_DEFAULT_TX_SIZE);
	fi_param_define(&uetp_prov, "rx_size", FI_PARAM_SIZE_T,
		"Default receive queue depth (default: %d)",
		UETP_DEFAULT_RX_SIZE);
	fi_param_define(&uetp_prov, "rto_ms", FI_PARAM_INT,
		"First retransmission timeout in milliseconds (default: "
		"0 = engine default, %g ms)", (double)d.rto_min / UET_MSEC);
	fi_param_define(&uetp_prov, "max_retx", FI_PARAM_INT,
		"Retransmissions of one packet before its PDC fails "
		"(default: 0 = engine default, %u)", d.max_retx);
	fi_param_define(&uetp_prov, "rod", FI_PARAM_BOOL,
		"Use ROD (reliable ordered) PDCs instead of RUD (default: 0)");
	fi_param_define(&uetp_prov, "impair", FI_PARAM_STRING,
		"Testing only: impair received packets, e.g. "
		"\"drop=0.05,dup=0.01,reorder=0.1,seed=1\" (default: none)");
	fi_param_define(&uetp_prov, "stats", FI_PARAM_BOOL,
		"Print engine statistics to stderr when an endpoint closes "
		"(default: 0)");
	fi_param_define(&uetp_prov, "rndv_threshold", FI_PARAM_SIZE_T,
		"Sends and tagged sends longer than this many bytes go by "
		"rendezvous: the first packet carries what fits, the target "
		"reads the rest; 0 = never (default: %zu)",
		(size_t)UETP_DEFAULT_RNDV_THRESHOLD);
	fi_param_define(&uetp_prov, "rudi", FI_PARAM_BOOL,
		"RMA over RUDI, the connectionless idempotent delivery: "
		"regions registered with FI_REMOTE_READ and/or "
		"FI_REMOTE_WRITE, without FI_RMA_EVENT, under "
		"FI_MR_PROV_KEY, while no endpoint of the domain has a "
		"remote counter, become IDEMPOTENT (key bit 63); writes and "
		"reads to such keys go without a PDC, except fenced ones and "
		"writes with remote CQ data. Both sides need it (default: 0)");
	fi_param_define(&uetp_prov, "unexp_max", FI_PARAM_SIZE_T,
		"Bytes buffered per endpoint for messages that arrive before "
		"their receive (default: %zu, 0: the engine's %zu)",
		UETP_DEFAULT_UNEXP_MAX, d.unexp_max);
	fi_param_define(&uetp_prov, "poll_spin_us", FI_PARAM_INT,
		"Microseconds an fi_cq_read/fi_cntr_read poller spins with "
		"nothing to do, at most, before each empty call also yields "
		"the CPU (sched_yield), so a peer process or the kernel's "
		"packet work sharing the CPU runs; the spin adapts down to a "
		"tenth of it while yields let a peer run; -1 = never yield "
		"(default: %d)",
		UETP_DEFAULT_POLL_SPIN_US);
	fi_param_define(&uetp_prov, "cc", FI_PARAM_STRING,
		"Congestion control of every CCC: fixed (FI_UET_WINDOW "
		"packets), nscc (delay and ECN window), rccc (receiver "
		"credit) or nscc+rccc; both ends of a job use the same "
		"(default: fixed)");
	fi_param_define(&uetp_prov, "lb", FI_PARAM_STRING,
		"How a PDC picks the entropy (path) of each packet: single "
		"(one path, moved after a timeout), oblivious (every value "
		"once per pass), reps (reuse values whose ACKs came back "
		"unmarked), bitmap (skip values that saw marks, trims, "
		"losses, timeouts) or mixed (reps, else bitmap); ROD always "
		"single (default: %s)", uetp_lb_names[UET_LB_DEFAULT_KIND]);
	fi_param_define(&uetp_prov, "link_gbps", FI_PARAM_INT,
		"Link rate NSCC derives its windows from, Gb/s "
		"(default: 0 = engine default, %llu)",
		(unsigned long long)(d.link_bps / 1000000000ull));
	fi_param_define(&uetp_prov, "base_rtt_us", FI_PARAM_INT,
		"NSCC's configured base RTT in microseconds: the unloaded "
		"round trip of a full packet; measured RTTs only lower it "
		"(default: 0 = engine default, %llu)",
		(unsigned long long)(d.base_rtt / UET_USEC));
	fi_param_define(&uetp_prov, "loss_infer", FI_PARAM_BOOL,
		"Resend a packet as soon as ACKs of later packets prove it "
		"lost (RACK with a reorder window) and probe a silent tail, "
		"instead of waiting for its retransmission timeout "
		"(default: 1)");
	fi_param_define(&uetp_prov, "lb_delay", FI_PARAM_BOOL,
		"Until a PDC sees an ECN-CE mark, a packet whose round trip "
		"exceeds 1.5 times the PDC's median counts as marked for its "
		"entropy value, so that path-aware spraying (FI_UET_LB) "
		"steers away from the longer queues of a fabric that does "
		"not mark (default: 1)");
	fi_param_define(&uetp_prov, "window", FI_PARAM_INT,
		"Packets in flight per PDC (the fixed congestion window) "
		"(default: 0 = engine default, %u, or four entropy runs "
		"if that is more, or 4 MiB of 16 KB packets on loopback)",
		d.window);
	fi_param_define(&uetp_prov, "max_pdcs", FI_PARAM_INT,
		"PDCs an endpoint holds at once, one per peer and direction; "
		"at most half of them half-open (a peer's SYN seen, nothing "
		"more yet), 1..%d (default: 0 = engine default, %u)",
		UETP_MAX_PDCS, d.pdc_max);
	fi_param_define(&uetp_prov, "unreach_hold_ms", FI_PARAM_INT,
		"Once a peer failed to answer (its retries exhausted), new "
		"sends to it fail at once for this many milliseconds, unless "
		"the peer sends first; 0 = never (default: %llu)",
		(unsigned long long)(d.unreach_hold / UET_MSEC));
	fi_param_define(&uetp_prov, "udp_gso", FI_PARAM_BOOL,
		"Send runs of equal-size packets of one entropy as one "
		"UDP_SEGMENT message and accept coalesced receives "
		"(UDP_GRO); the wire still carries one UET packet per "
		"datagram (default: 1)");
	fi_param_define(&uetp_prov, "tx_zcopy", FI_PARAM_BOOL,
		"Over UDP, hand a data packet's payload to the kernel from "
		"where it lies (the send buffer, the inject copy, a region "
		"read remotely) instead of copying it into the packet "
		"first (default: 1)");
	fi_param_define(&uetp_prov, "rx_place", FI_PARAM_BOOL,
		"Over UDP, let the kernel put the payload of a datagram that "
		"goes on with a message being received (a send into its "
		"receive, the data of a read) where it belongs, instead of "
		"copying it there from the socket's buffer; every packet is "
		"checked against the guess (default: 1)");
	fi_param_define(&uetp_prov, "tclass_dscp", FI_PARAM_STRING,
		"DSCP (0..63) of each libfabric traffic class label, "
		"name=dscp pairs, comma-separated; classes not named keep "
		"their default (default: %s)", UETP_DEFAULT_TCLASS_DSCP);
	fi_param_define(&uetp_prov, "mr_virt_addr", FI_PARAM_BOOL,
		"Grant FI_MR_VIRT_ADDR (peers name remote memory by virtual "
		"address) whenever the application's mr_mode allows it; "
		"otherwise only FI_MR_BASIC gets it and regions are "
		"addressed by offset (default: 0)");
}

static void uetp_read_cc(void)
{
	char *v = NULL;

	if (fi_param_get_str(&uetp_prov, "cc", &v) || !v || !*v)
		return;
	if (!strcmp(v, "fixed"))
		uetp_env.cca = UET_CCA_FIXED;
	else if (!strcmp(v, "nscc"))
		uetp_env.cca = UET_CCA_NSCC;
	else if (!strcmp(v, "rccc"))
		uetp_env.cca = UET_CCA_RCCC;
	else if (!strcmp(v, "nscc+rccc"))
		uetp_env.cca = UET_CCA_NSCC_RCCC;
	else
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_CC=\"%s\" is not fixed, nscc, rccc or "
			"nscc+rccc, ignored\n", v);
}

static void uetp_read_lb(void)
{
	char *v = NULL;
	int k;

	if (fi_param_get_str(&uetp_prov, "lb", &v) || !v || !*v)
		return;
	for (k = UET_LB_SINGLE; k <= UET_LB_MIXED; k++)
		if (!strcmp(v, uetp_lb_names[k])) {
			uetp_env.lb = k;
			return;
		}
	FI_WARN(&uetp_prov, FI_LOG_CORE, "FI_UET_LB=\"%s\" is not single, "
		"oblivious, reps, bitmap or mixed, ignored\n", v);
}

static void uetp_read_transport(void)
{
	char *v = NULL;

	uetp_env_int("ip_proto", 1, 254, &uetp_env.ip_proto);
	if (fi_param_get_str(&uetp_prov, "transport", &v) || !v || !*v)
		return;
	if (!strcmp(v, "udp"))
		uetp_env.transport = UETP_TRANSPORT_UDP;
	else if (!strcmp(v, "ip"))
		uetp_env.transport = UETP_TRANSPORT_IP;
	else
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_TRANSPORT=\"%s\" is not udp or ip, ignored\n",
			v);
}

/* The label table: the documented default, then FI_UET_TCLASS_DSCP. */
static void uetp_read_tclass(void)
{
	char *v = NULL;

	uetp_tclass_parse(UETP_DEFAULT_TCLASS_DSCP, uetp_env.tc_dscp);
	if (fi_param_get_str(&uetp_prov, "tclass_dscp", &v) || !v || !*v)
		return;
	if (uetp_tclass_parse(v, uetp_env.tc_dscp))
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_TCLASS_DSCP=\"%s\" is not name=dscp pairs "
			"(dscp 0..63), ignored\n", v);
}

static void uetp_read_params(void)
{
	struct uetp_impair_cfg icfg;
	int v;

	uetp_env.iface = uetp_env_str("iface");
	uetp_env.planes = uetp_env_str("planes");
	uetp_env.pcap = uetp_env_str("pcap");
	uetp_env.key_file = uetp_env_str("key_file");
	uetp_read_transport();
	uetp_env.impair = uetp_env_str("impair");
	uetp_env_int("udp_port", 0, 65535, &uetp_env.udp_port);
	uetp_env_int("entropy_bits", 0, UET_UDP_ENTROPY_BITS_MAX,
		     &uetp_env.entropy_bits);
	uetp_env_int("entropy_run", 0, 256, &uetp_env.entropy_run);
	uetp_env_bool("progress_thread", &uetp_env.progress_thread);
	uetp_env_bool("allow_layering", &uetp_env.allow_layering);
	v = (int)uetp_env.job_id;
	uetp_env_int("job_id", 0, (int)UETP_JOB_ID_MAX, &v);
	uetp_env.job_id = (uint32_t)v;
	uetp_env_size("mtu", 0, UETP_PKT_MAX, &uetp_env.mtu);
	if (uetp_env.mtu && uetp_env.mtu < UETP_MTU_MIN) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_MTU below %d, ignored\n", UETP_MTU_MIN);
		uetp_env.mtu = 0;
	}
	uetp_env_bool("host_path", &uetp_env.host_path);
	uetp_env_size("tx_size", 1, UETP_SIZE_MAX, &uetp_env.tx_size);
	uetp_env_size("rx_size", 1, UETP_SIZE_MAX, &uetp_env.rx_size);
	uetp_env_int("rto_ms", 0, 600000, &uetp_env.rto_ms);
	uetp_env_int("max_retx", 0, 1000000, &uetp_env.max_retx);
	uetp_env_bool("rod", &uetp_env.rod);
	uetp_env_bool("stats", &uetp_env.stats);
	uetp_env_size("rndv_threshold", 0, UETP_MAX_MSG_SIZE,
		      &uetp_env.rndv_threshold);
	uetp_env_bool("rudi", &uetp_env.rudi);
	uetp_env_size("unexp_max", 0, SIZE_MAX, &uetp_env.unexp_max);
	uetp_env_int("poll_spin_us", -1, 1000000, &uetp_env.poll_spin_us);
	uetp_env_int("rescue_ms", 0, 10000, &uetp_env.rescue_ms);
	uetp_env_int("close_linger_ms", 0, 60000, &uetp_env.close_linger_ms);
	uetp_env_int("ack_hold_us", 0, 100000, &uetp_env.ack_hold_us);
	uetp_env_int("cork_us", 0, 100000, &uetp_env.cork_us);
	uetp_env_bool("udp_gso", &uetp_env.udp_gso);
	uetp_env_bool("tx_zcopy", &uetp_env.tx_zcopy);
	uetp_env_bool("rx_place", &uetp_env.rx_place);
	uetp_env_int("window", 0, 4096, &uetp_env.window);
	uetp_env_int("max_pdcs", 0, UETP_MAX_PDCS, &uetp_env.max_pdcs);
	uetp_env.unreach_hold_ms = -1;
	uetp_env_int("unreach_hold_ms", 0, 3600000,
		     &uetp_env.unreach_hold_ms);
	uetp_env_bool("loss_infer", &uetp_env.loss_infer);
	uetp_env_bool("lb_delay", &uetp_env.lb_delay);
	uetp_env_int("link_gbps", 0, 100000, &uetp_env.link_gbps);
	uetp_env_int("base_rtt_us", 0, 1000000, &uetp_env.base_rtt_us);
	uetp_read_cc();
	uetp_read_lb();
	if (uetp_env.impair && uetp_impair_parse(uetp_env.impair, &icfg)) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_IMPAIR=\"%s\" not understood, ignored\n",
			uetp_env.impair);
		free(uetp_env.impair);
		uetp_env.impair = NULL;
	}
	uetp_read_tclass();
	uetp_env_bool("mr_virt_addr", &uetp_env.mr_virt_addr);
}

/* Called once directly and once per utility provider for every
 * fi_getinfo of the application, from any thread: uetp_attr.c builds the
 * list from scratch each time, allocation-clean on error. */
static int uetp_getinfo(uint32_t version, const char *node,
			const char *service, uint64_t flags,
			const struct fi_info *hints, struct fi_info **info)
{
	int ret;

	ret = uetp_attr_getinfo(version, node, service, flags, hints, info);
	FI_TRACE(&uetp_prov, FI_LOG_CORE, "getinfo %u.%u node %s service %s: "
		 "%d\n", FI_MAJOR(version), FI_MINOR(version),
		 node ? node : "-", service ? service : "-", ret);
	return ret;
}

static void uetp_cleanup(void)
{
	uetp_pcap_cleanup();
	free(uetp_env.iface);
	free(uetp_env.planes);
	uetp_env.planes = NULL;
	free(uetp_env.pcap);
	free(uetp_env.impair);
	free(uetp_env.key_file);
	uetp_env.iface = uetp_env.pcap = uetp_env.impair = NULL;
	uetp_env.key_file = NULL;
}

FI_EXT_INI
{
	uetp_define_params();
	uetp_read_params();
	return &uetp_prov;
}
