/* Replays fuzz/corpus through the checks of fuzz/wire_decode.c, so CI
 * covers the corpus (and any crash reproducer added to it) without
 * libFuzzer. The directory comes from $top_srcdir (make check sets it),
 * else from the source path compiled in.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "test_util.h"

static void corpus_dir(char *out, size_t cap)
{
	const char *top = getenv("top_srcdir");

#ifdef WT_TOP_SRCDIR
	if (!top || !*top)
		top = WT_TOP_SRCDIR;
#endif
	cr_assert(top && *top, "top_srcdir is not set");
	snprintf(out, cap, "%s/fuzz/corpus", top);
}

static uint8_t *read_file(const char *path, size_t *len)
{
	struct stat st;
	uint8_t *buf;
	FILE *f;

	f = fopen(path, "rb");
	cr_assert(f, "%s: %s", path, strerror(errno));
	cr_assert_eq(fstat(fileno(f), &st), 0);
	*len = (size_t)st.st_size;
	buf = malloc(*len);	/* exact size: ASan sees over-reads */
	cr_assert(buf || !*len);
	cr_assert_eq(fread(buf, 1, *len, f), *len, "%s: short read", path);
	fclose(f);
	return buf;
}

Test(corpus, replay)
{
	static const unsigned flag_sets[] = { 0, UET_PKT_ENTROPY };
	char dir[4096], path[4096 + 260];
	struct wt_prop prop;
	struct dirent *de;
	size_t nfiles = 0, len;
	uint8_t *buf;
	DIR *d;
	int f;

	corpus_dir(dir, sizeof(dir));
	d = opendir(dir);
	cr_assert(d, "%s: %s", dir, strerror(errno));
	while ((de = readdir(d))) {
		struct stat st;

		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		buf = read_file(path, &len);
		for (f = 0; f < 2; f++)
			cr_expect(wt_pkt_property(buf, len, flag_sets[f], &prop),
				  "%s (flags %u): %s", de->d_name,
				  flag_sets[f], prop.why);
		free(buf);
		nfiles++;
	}
	closedir(d);
	cr_expect_geq(nfiles, wt_npkts, "%zu files in %s", nfiles, dir);
}

/* The corpus still holds every packet vector, byte for byte (regenerate
 * with the golden/write_corpus test when the vectors change). */
Test(corpus, matches_vectors)
{
	char dir[4096], path[4096 + 260];
	struct uet_pkt want;
	uint8_t *buf, *file;
	size_t i, len, flen;

	corpus_dir(dir, sizeof(dir));
	for (i = 0; i < wt_npkts; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, wt_pkts[i].name);
		wt_pkt_build(&wt_pkts[i], &buf, &len, &want);
		file = read_file(path, &flen);
		cr_expect(flen == len && !memcmp(file, buf, len),
			  "%s differs from the packet vector", path);
		free(file);
		free(buf);
	}
}
