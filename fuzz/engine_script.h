/* Scripts that drive one engine fep (the target, node 1 of the test
 * harness) as a peer would: packets injected from the peer's address,
 * time moving on, operations posted, cancelled, memory registered. The
 * engine fuzz target runs the bytes libFuzzer makes; the seed recorder
 * writes scripts from real exchanges, which replay on the target step
 * for step (the harness is deterministic); a Criterion test replays the
 * seeds in every build.
 *
 * A script is a sequence of records, each an opcode byte and its
 * arguments (little-endian); an unknown opcode is skipped, a truncated
 * record ends the script:
 *	EFZ_INJECT  flags len16 bytes	a packet from the peer: flags bits
 *					0-1 ECN, 2 trimmed, 3 to/from home,
 *					4-6 which spray port it left from
 *	EFZ_ADVANCE ns32		end the step (timeouts due, then what
 *					the target has to send), and let time
 *					move on, running the engine
 *	EFZ_POST    type slot len16 tag raddr16
 *	EFZ_CANCEL  slot		cancel the newest op of that slot
 *	EFZ_MR      slot key16		register the slot's buffer remotely
 *	EFZ_RUN				run until quiet (at most 1 s)
 *	EFZ_FAIL    n16			the target's n-th allocation from now
 *					fails (its cfg.alloc)
 * After the last record the target is flushed and left to run for a
 * minute of engine time: every operation it took must then have
 * completed exactly once (a dead peer turns pending work into error
 * completions), and nothing else may complete.
 */
#ifndef EFZ_ENGINE_SCRIPT_H
#define EFZ_ENGINE_SCRIPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum efz_op {
	EFZ_INJECT = 1,
	EFZ_ADVANCE,
	EFZ_POST,
	EFZ_CANCEL,
	EFZ_MR,
	EFZ_RUN,
	EFZ_FAIL,
};

#define EFZ_SLOTS	8
#define EFZ_SLOT_SIZE	65536

/* What a run saw, for tests and the recorder. */
struct efz_result {
	unsigned ops_posted;
	unsigned ops_completed;
	unsigned ops_failed;		/* completed with an error */
	unsigned packets_in;		/* injected */
	unsigned packets_accepted;	/* uet_fep_recv returned 0 */
	const char *violation;		/* NULL, or the broken promise */
};

/* Run a script against a fresh target. Returns 0, or -1 with
 * res->violation set when the engine broke a promise. */
int efz_run(const uint8_t *data, size_t size, struct efz_result *res);

/* For the seed recorder: a target and a live peer, records executed on
 * the target as they are written, the harness to post on the peer. */
struct uet_harness;
int efz_open(bool peer_alive, struct efz_result *res);
void efz_exec(const uint8_t *rec, size_t len);
struct uet_harness *efz_harness(void);
void efz_close(void);

#endif
