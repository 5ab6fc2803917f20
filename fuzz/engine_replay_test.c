/* The recorded engine scripts (fuzz/engine_corpus), replayed in every
 * build: each keeps its promises, and the clean ones still walk the
 * target through a whole exchange (so a change that breaks the replay,
 * and with it the fuzzer's seeds, shows here). */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>

#include "engine_script.h"

#ifndef EFZ_CORPUS
#error "EFZ_CORPUS: the seed directory"
#endif

static size_t slurp(const char *name, uint8_t **data)
{
	char path[4096];
	FILE *f;
	long n;

	snprintf(path, sizeof(path), "%s/%s", EFZ_CORPUS, name);
	f = fopen(path, "rb");
	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	n = ftell(f);
	rewind(f);
	*data = malloc((size_t)n + 1);
	cr_assert_eq(fread(*data, 1, (size_t)n, f), (size_t)n);
	fclose(f);
	return (size_t)n;
}

static void replay(const char *name, struct efz_result *res)
{
	uint8_t *data;
	size_t n = slurp(name, &data);

	cr_assert_eq(efz_run(data, n, res), 0, "%s: %s", name,
		     res->violation);
	free(data);
}

Test(engine_replay, every_seed_keeps_its_promises)
{
	DIR *d = opendir(EFZ_CORPUS);
	struct dirent *e;
	unsigned seeds = 0;

	cr_assert_not_null(d);
	while ((e = readdir(d))) {
		struct efz_result res;

		if (e->d_name[0] == '.')
			continue;
		replay(e->d_name, &res);
		/* the wire corpus is breadth (every header), not a dialogue */
		if (strcmp(e->d_name, "wire_corpus"))
			cr_assert_gt(res.packets_accepted, 0, "%s",
				     e->d_name);
		else
			cr_assert_geq(res.packets_in, 30);
		seeds++;
	}
	closedir(d);
	cr_assert_geq(seeds, 7);
}

/* Replayed alone, the target receives what it received from the live
 * peer, at the same times: the same messages arrive whole. */
Test(engine_replay, clean_exchanges_replay_exactly)
{
	static const char *const clean[] = { "messages", "tagged", "rma",
					     "target_sends" };
	static const unsigned ops[] = { 3, 3, 0, 2 };

	for (size_t i = 0; i < sizeof(clean) / sizeof(clean[0]); i++) {
		struct efz_result res;

		replay(clean[i], &res);
		cr_assert_eq(res.ops_posted, ops[i], "%s", clean[i]);
		cr_assert_eq(res.ops_completed, ops[i], "%s", clean[i]);
		cr_assert_eq(res.ops_failed, 0, "%s: an operation failed",
			     clean[i]);
		cr_assert_eq(res.packets_accepted, res.packets_in,
			     "%s: %u of %u packets refused", clean[i],
			     res.packets_in - res.packets_accepted,
			     res.packets_in);
	}
}

/* Cut anywhere, a script still keeps the promises (what was posted
 * completes, with an error if the peer went silent). */
Test(engine_replay, truncated_scripts)
{
	uint8_t *data;
	size_t n = slurp("messages", &data);

	for (size_t cut = 1; cut < n; cut += n / 37 + 1) {
		struct efz_result res;

		cr_assert_eq(efz_run(data, cut, &res), 0, "cut at %zu: %s",
			     cut, res.violation);
	}
	free(data);
}

/* The same exchange with one of the target's allocations failing (each
 * of the first 60 in turn): still every promise kept. */
Test(engine_replay, failed_allocations)
{
	uint8_t *data, *d2;
	size_t n = slurp("messages", &data);

	d2 = malloc(n + 3);
	memcpy(d2 + 3, data, n);
	for (unsigned k = 0; k < 60; k++) {
		struct efz_result res;

		d2[0] = EFZ_FAIL;
		d2[1] = (uint8_t)k;
		d2[2] = 0;
		cr_assert_eq(efz_run(d2, n + 3, &res), 0, "allocation %u: %s",
			     k, res.violation);
	}
	free(d2);
	free(data);
}
