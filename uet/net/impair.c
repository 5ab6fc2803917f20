/* The impairment decision shared by the mem port and FI_UET_IMPAIR. See
 * uet/impair.h. */
#include "uet/impair.h"
#include "uet/rand.h"

bool uet_impair_valid(const struct uet_impair *imp)
{
	return imp->drop_ppm <= UET_IMPAIR_PPM &&
	       imp->dup_ppm <= UET_IMPAIR_PPM &&
	       imp->reorder_ppm <= UET_IMPAIR_PPM &&
	       imp->mark_ppm <= UET_IMPAIR_PPM &&
	       imp->trim_ppm <= UET_IMPAIR_PPM;
}

/* Draws only when the rate is set (see uet_impair_pick). */
static bool impair_chance(uint64_t *rng, uint32_t ppm)
{
	return ppm && uet_rand(rng) % UET_IMPAIR_PPM < ppm;
}

unsigned uet_impair_pick(const struct uet_impair *imp, uint64_t *rng,
			 uint64_t seq)
{
	uint64_t bit = 1ull << (seq & 63);
	unsigned act = 0;

	if (impair_chance(rng, imp->drop_ppm) || (imp->drop_mask & bit))
		act |= UET_IMPAIR_DROP;
	if (impair_chance(rng, imp->dup_ppm) || (imp->dup_mask & bit))
		act |= UET_IMPAIR_DUP;
	if (impair_chance(rng, imp->reorder_ppm) || (imp->reorder_mask & bit))
		act |= UET_IMPAIR_REORDER;
	if (impair_chance(rng, imp->mark_ppm) || (imp->mark_mask & bit))
		act |= UET_IMPAIR_MARK;
	if (impair_chance(rng, imp->trim_ppm) || (imp->trim_mask & bit))
		act |= UET_IMPAIR_TRIM;
	return act;
}

bool uet_impair_mark(struct uet_pkt_info *info)
{
	if (info->ecn != UET_ECN_ECT0 && info->ecn != UET_ECN_ECT1)
		return false;
	info->ecn = UET_ECN_CE;
	return true;
}

bool uet_impair_trim(struct uet_pkt_info *info, uint32_t *len, uint32_t keep)
{
	if (!keep)
		keep = UET_IMPAIR_TRIM_LEN_DEFAULT;
	if (*len <= keep)
		return false;
	*len = keep;
	info->trimmed = true;
	return true;
}
