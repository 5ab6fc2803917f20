/* The fixed window: cfg.window packets in flight per CCC, whatever the
 * network says (counted in packets, so small ones do not slip more of
 * them in). For tests, and the baseline the simulator shows collapsing
 * under incast. */
#include "ccc.h"

static void fixed_init(struct uet_ccc *c, uet_time now)
{
	(void)now;
	c->cwnd = (int64_t)c->cfg->window * c->mtu;
}

static void fixed_on_send(struct uet_ccc *c, uint32_t bytes, bool retx,
			  bool fwd, uet_time now)
{
	(void)c, (void)bytes, (void)retx, (void)fwd, (void)now;
}

static void fixed_on_ack(struct uet_ccc *c, const struct uet_cc_ack *a)
{
	(void)c, (void)a;
}

static void fixed_on_nack(struct uet_ccc *c, uint32_t bytes,
			  enum uet_cc_nack why, bool ecn, uet_time rtt,
			  uet_time now)
{
	(void)c, (void)bytes, (void)why, (void)ecn, (void)rtt, (void)now;
}

static void fixed_on_loss(struct uet_ccc *c, uint32_t bytes,
			  uet_time sent_at, uet_time now)
{
	(void)c, (void)bytes, (void)sent_at, (void)now;
}

/* Packets the window still takes. */
static int64_t fixed_room(const struct uet_ccc *c)
{
	return (int64_t)c->cfg->window - c->inflight_pkts;
}

static bool fixed_can_send(const struct uet_ccc *c, bool fwd)
{
	(void)fwd;
	return fixed_room(c) > 0;
}

/* The packet that fills the window asks for its ACK: nothing else would
 * make the target answer soon. */
static bool fixed_ack_request(const struct uet_ccc *c, uint32_t bytes)
{
	(void)bytes;
	return fixed_room(c) <= 1;
}

const struct uet_cc_ops uet_fixed_ops = {
	.name = "fixed",
	.init = fixed_init,
	.on_send = fixed_on_send,
	.on_ack = fixed_on_ack,
	.on_nack = fixed_on_nack,
	.on_loss = fixed_on_loss,
	.can_send = fixed_can_send,
	.ack_request = fixed_ack_request,
	.room = fixed_room,
};
