/* libFuzzer target for the whole engine: the input is an engine script
 * (engine_script.h) run against one fep over the mem port with a fake
 * clock: packets from a peer, time, posts, cancels, registrations. A
 * crash, a sanitizer report, a leak or a broken promise (an operation
 * completing twice or never) aborts, so libFuzzer keeps the input.
 * Seeds: fuzz/engine_corpus, recorded from real exchanges by
 * engine_seed. Built by `make fuzz`, run by `make fuzz-run`.
 */
#include <stdio.h>
#include <stdlib.h>

#include "engine_script.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct efz_result res;

	if (efz_run(data, size, &res)) {
		fprintf(stderr, "engine: %s\n", res.violation);
		abort();
	}
	return 0;
}
