/* The built module loads the way libfabric loads it (dlopen RTLD_NOW: an
 * unresolved symbol would make libfabric drop it silently), hands out a
 * provider that the core accepts, and exports fi_prov_ini and nothing
 * else (docs/architecture.md §8.2, §8.5).
 *
 * Plain test program: exit 0 pass, 1 fail, 77 skip.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rdma/fabric.h>
#include <rdma/providers/fi_prov.h>

static int failures;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);	\
		fprintf(stderr, __VA_ARGS__);				\
		fprintf(stderr, "\n");					\
		failures++;						\
	}								\
} while (0)

/* Every defined global symbol of the dynamic symbol table. */
static int check_exports(const char *path)
{
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const uint8_t *base;
	struct stat st;
	int fd, found = 0, others = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return -1;
	}
	base = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (base == MAP_FAILED)
		return -1;
	eh = (const Elf64_Ehdr *)base;
	CHECK(!memcmp(eh->e_ident, ELFMAG, SELFMAG) &&
	      eh->e_ident[EI_CLASS] == ELFCLASS64, "not a 64-bit ELF");
	sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (int i = 0; i < eh->e_shnum; i++) {
		const Elf64_Sym *sym;
		const char *str;
		size_t n;

		if (sh[i].sh_type != SHT_DYNSYM)
			continue;
		sym = (const Elf64_Sym *)(base + sh[i].sh_offset);
		str = (const char *)(base + sh[sh[i].sh_link].sh_offset);
		n = sh[i].sh_size / sizeof(*sym);
		for (size_t j = 0; j < n; j++) {
			unsigned bind = ELF64_ST_BIND(sym[j].st_info);
			const char *name = str + sym[j].st_name;

			if (sym[j].st_shndx == SHN_UNDEF ||
			    (bind != STB_GLOBAL && bind != STB_WEAK))
				continue;
			if (!strcmp(name, "fi_prov_ini")) {
				found++;
				continue;
			}
			fprintf(stderr, "exported: %s\n", name);
			others++;
		}
	}
	munmap((void *)base, (size_t)st.st_size);
	CHECK(found == 1, "fi_prov_ini exported %d times", found);
	CHECK(others == 0, "%d other symbols exported", others);
	return 0;
}

int main(void)
{
	const char *top = getenv("top_builddir");
	struct fi_provider *(*ini)(void);
	struct fi_provider *prov;
	char path[4096];
	void *h;

	snprintf(path, sizeof(path), "%s/prov/uet/.libs/libuet-fi.so",
		 top ? top : ".");
	if (access(path, R_OK)) {
		fprintf(stderr, "SKIP: %s not built\n", path);
		return 77;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	CHECK(h != NULL, "dlopen: %s", dlerror());
	if (!h)
		return 1;
	ini = (struct fi_provider *(*)(void))dlsym(h, "fi_prov_ini");
	CHECK(ini != NULL, "no fi_prov_ini");
	if (ini) {
		prov = ini();
		CHECK(prov && prov->name && !strcmp(prov->name, "uet"),
		      "provider name");
		CHECK(prov && prov->fi_version == FI_VERSION(1, 17),
		      "fi_version %u.%u", prov ? FI_MAJOR(prov->fi_version) : 0,
		      prov ? FI_MINOR(prov->fi_version) : 0);
		CHECK(prov && prov->getinfo && prov->fabric && prov->cleanup,
		      "mandatory entry points");
		if (prov && prov->cleanup)
			prov->cleanup();
	}
	/* libfabric only loads names ending in "fi.so" */
	CHECK(strlen(path) > 5 && !strcmp(path + strlen(path) - 5, "fi.so"),
	      "module name");
	check_exports(path);
	/* no dlclose: libfabric's parameter list now points into it */
	if (failures)
		fprintf(stderr, "%d check(s) failed\n", failures);
	else
		printf("PASS: %s loads, exports fi_prov_ini only\n", path);
	return failures ? 1 : 0;
}
