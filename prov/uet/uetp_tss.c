/* FI_UET_KEY_FILE: the secure domain every endpoint of the process joins.
 *
 * The file is the launcher's or the administrator's, never the
 * application's: libfabric hints carry no keys. It must be a regular
 * file owned by the user (or root) that nobody else may read or write;
 * otherwise every endpoint open fails, saying why, rather than run with
 * keys others may know. Its format is uet/tss/keyfile.h's.
 *
 * Per endpoint, the provider draws a random SSI (the source identity in
 * every packet and in the receivers' replay windows) and a random first
 * TSC below 2^47: a restarted process is a new source, and two processes
 * of one key never walk the same IVs (uet/tss/tss.c).
 */
#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "uet/fep.h"
#include "uet/tss/keyfile.h"
#include "uetp.h"

#define UETP_KEY_FILE_MAX	(64u << 10)

static int uetp_tss_read(const char *path, char *buf, size_t cap)
{
	struct stat st;
	size_t n = 0;
	ssize_t r;
	int fd, ret = 0;

	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		FI_WARN(&uetp_prov, FI_LOG_CORE, "FI_UET_KEY_FILE=%s: %s\n",
			path, strerror(errno));
		return -FI_ENOENT;
	}
	/* Checked on the open file: what was checked is what is read. */
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_KEY_FILE=%s: not a regular file\n", path);
		ret = -FI_EINVAL;
	} else if (st.st_mode & (S_IRWXG | S_IRWXO)) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_KEY_FILE=%s: group or others may access it "
			"(mode %03o); refusing its keys: chmod 600 it\n",
			path, (unsigned)(st.st_mode & 0777));
		ret = -FI_EACCES;
	} else if (st.st_uid != geteuid() && st.st_uid != 0) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_KEY_FILE=%s: owned by uid %u, neither this "
			"user nor root; refusing its keys\n",
			path, (unsigned)st.st_uid);
		ret = -FI_EACCES;
	}
	while (!ret && n < cap - 1) {
		r = read(fd, buf + n, cap - 1 - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			ret = -FI_EIO;
			break;
		}
		if (!r)
			break;
		n += (size_t)r;
	}
	if (!ret && n == cap - 1) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_KEY_FILE=%s: longer than %u bytes\n", path,
			UETP_KEY_FILE_MAX);
		ret = -FI_EINVAL;
	}
	buf[n] = '\0';
	close(fd);
	return ret;
}

static int uetp_tss_random(void *p, size_t n)
{
	ssize_t r;

	do
		r = getrandom(p, n, 0);
	while (r < 0 && errno == EINTR);
	return r == (ssize_t)n ? 0 : -FI_EIO;
}

int uetp_tss_cfg(const char *path, uint32_t job, struct uet_tss_cfg *cfg)
{
	char *text, err[128];
	bool has_job;
	uint64_t tsc;
	int ret;

	memset(cfg, 0, sizeof(*cfg));
	if (!path || !*path)
		return 0;		/* no TSS: cfg->mode is UET_TSS_OFF */
	text = malloc(UETP_KEY_FILE_MAX);
	if (!text)
		return -FI_ENOMEM;
	ret = uetp_tss_read(path, text, UETP_KEY_FILE_MAX);
	if (!ret && uet_keyfile_parse(text, cfg, &has_job, err, sizeof(err))) {
		FI_WARN(&uetp_prov, FI_LOG_CORE, "FI_UET_KEY_FILE=%s: %s\n",
			path, err);
		ret = -FI_EINVAL;
	}
	explicit_bzero(text, UETP_KEY_FILE_MAX);
	free(text);
	if (!ret && has_job && cfg->job != job) {
		FI_WARN(&uetp_prov, FI_LOG_CORE,
			"FI_UET_KEY_FILE=%s binds its secure domain to JobID "
			"%u, the endpoint has JobID %u\n", path, cfg->job, job);
		ret = -FI_EINVAL;
	}
	if (!ret) {
		cfg->job = job;
		ret = uetp_tss_random(&cfg->ssi, sizeof(cfg->ssi));
	}
	if (!ret)
		ret = uetp_tss_random(&tsc, sizeof(tsc));
	if (ret) {
		explicit_bzero(cfg, sizeof(*cfg));
		return ret;
	}
	cfg->tsc_start = tsc & ((1ull << 47) - 1);
	return 0;
}

void uetp_tss_stats_dump(const struct uet_fep *fep, const char *name)
{
	struct uet_tss_stats t;
	char line[512];
	int n;

	if (uet_fep_tss_stats(fep, &t))
		return;
	n = snprintf(line, sizeof(line),
		"uet tss %s: out_auth_pkts %llu out_invoke_fail %llu "
		"in_auth_pkts %llu in_auth_fail_pkts %llu in_replay_pkts %llu "
		"in_late_pkts %llu in_errored_pkts %llu in_invalid %llu "
		"in_binding_failure_pkts %llu in_bypass_pkts %llu sources %llu "
		"keys_derived %llu\n", name,
		(unsigned long long)t.out_auth_pkts,
		(unsigned long long)t.out_invoke_fail,
		(unsigned long long)t.in_auth_pkts,
		(unsigned long long)t.in_auth_fail_pkts,
		(unsigned long long)t.in_replay_pkts,
		(unsigned long long)t.in_late_pkts,
		(unsigned long long)t.in_errored_pkts,
		(unsigned long long)t.in_invalid,
		(unsigned long long)t.in_binding_failure_pkts,
		(unsigned long long)t.in_bypass_pkts,
		(unsigned long long)t.sources,
		(unsigned long long)t.keys_derived);
	/* one write: several processes often share one log */
	if (n > 0 && write(STDERR_FILENO, line, (size_t)n < sizeof(line) ?
			   (size_t)n : sizeof(line) - 1) < 0)
		return;
}
