/* Helpers shared by the prov/uet tests. */
#ifndef UETP_TEST_UTIL_H
#define UETP_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rdma/fabric.h>

/* Make libfabric find the module we just built (and only it). Must run
 * before the first fi_* call of the process. */
static inline void uetp_test_provider_path(void)
{
	const char *top = getenv("top_builddir");
	char path[4096];

	snprintf(path, sizeof(path), "%s/prov/uet/.libs", top ? top : ".");
	setenv("FI_PROVIDER_PATH", path, 1);
	unsetenv("FI_PROVIDER");
}

/* Hints that select our provider. */
static inline struct fi_info *uetp_test_hints(void)
{
	struct fi_info *h = fi_allocinfo();

	if (h)
		h->fabric_attr->prov_name = strdup("uet");
	return h;
}

#endif
