/* The 16-bit word at offset 10 of RUD/ROD requests and CTRL: dpdcid, or,
 * while SYN is set, pdc_info[15:12] | psn_offset[11:0] (docs/protocol.md
 * §4.1, §4.7). pdc_info is passed through whole: refusing a set use_rsv_pdc
 * bit is the PDS engine's job (docs/choices.md §10.4), not the codec's.
 */
#ifndef UET_WIRE_PDS_SYN_H
#define UET_WIRE_PDS_SYN_H

#include <stdbool.h>
#include <stdint.h>

#define UET_PDS_SYN_INFO_SHIFT	12
#define UET_PDS_SYN_INFO_MAX	0xF
#define UET_PDS_SYN_OFF_MAX	0xFFF

static inline void uet_pds_syn_get(uint16_t w, bool syn, uint16_t *dpdcid,
				   uint8_t *pdc_info, uint16_t *psn_offset)
{
	if (syn) {
		*pdc_info = (uint8_t)(w >> UET_PDS_SYN_INFO_SHIFT);
		*psn_offset = w & UET_PDS_SYN_OFF_MAX;
	} else {
		*dpdcid = w;
	}
}

/* Fields the word cannot carry in this SYN state must be zero. */
static inline bool uet_pds_syn_ok(bool syn, uint16_t dpdcid, uint8_t pdc_info,
				  uint16_t psn_offset)
{
	if (syn)
		return !dpdcid && pdc_info <= UET_PDS_SYN_INFO_MAX &&
		       psn_offset <= UET_PDS_SYN_OFF_MAX;
	return !pdc_info && !psn_offset;
}

static inline uint16_t uet_pds_syn_word(bool syn, uint16_t dpdcid,
					uint8_t pdc_info, uint16_t psn_offset)
{
	if (syn)
		return (uint16_t)(pdc_info << UET_PDS_SYN_INFO_SHIFT |
				  psn_offset);
	return dpdcid;
}

#endif
