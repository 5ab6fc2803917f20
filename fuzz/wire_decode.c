/* libFuzzer target for the wire decoder: every input goes through
 * uet_pkt_decode as a UDP payload and as an IP payload (entropy header
 * first). A failure must be a wire decode error that leaves the
 * out-struct alone; a success must re-encode and decode to the same
 * struct. Any violation aborts, so libFuzzer saves the input.
 * Built by `make fuzz`, run by `make fuzz-run` (fuzz/Makefile.inc).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "uet/wire.h"
#include "../uet/wire/test_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flag_sets[] = { 0, UET_PKT_ENTROPY };
	struct wt_prop prop;
	size_t i;

	for (i = 0; i < sizeof(flag_sets) / sizeof(flag_sets[0]); i++) {
		if (!wt_pkt_property(data, size, flag_sets[i], &prop)) {
			fprintf(stderr, "wire_decode (flags %u): %s\n",
				flag_sets[i], prop.why);
			abort();
		}
	}
	return 0;
}
