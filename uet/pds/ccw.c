/* Fixed congestion window: cfg.window packets in flight per PDC, whatever
 * the network says. A placeholder with the shape NSCC will have. */
#include "cc.h"

static void ccw_init(struct uet_cc *cc, const struct uet_fep_config *cfg)
{
	cc->cwnd = cfg->window;
}

static void ccw_on_ack(struct uet_cc *cc, unsigned pkts, bool ecn, uet_time now)
{
	(void)cc;
	(void)pkts;
	(void)ecn;
	(void)now;
}

static void ccw_on_loss(struct uet_cc *cc, bool timeout, uet_time now)
{
	(void)cc;
	(void)timeout;
	(void)now;
}

const struct uet_cc_ops uet_ccw_ops = {
	.name = "fixed",
	.init = ccw_init,
	.on_ack = ccw_on_ack,
	.on_loss = ccw_on_loss,
};
