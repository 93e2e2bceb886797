/*
 * program.c - find the program to run and what its ELF headers say
 * (record.h: rec_inspect), and where the preload library is
 * (rec_preload_path).
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "record/recint.h"

/* The library `name`: $var if set, else next to the running executable,
 * else ../lib/shadowbind/ from it. */
static int find_preload(const char *name, const char *var, char *buf, size_t len,
                        struct trace_error *err)
{
	const char *env = getenv(var);
	if (env && *env) {
		if (access(env, R_OK) != 0)
			return rec_fail(err, "%s=%s: %s", var, env, strerror(errno));
		if (!realpath(env, buf) || strlen(buf) >= len)
			return rec_fail(err, "%s=%s: cannot resolve", var, env);
		return 0;
	}
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return rec_fail(err, "cannot read /proc/self/exe: %s", strerror(errno));
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (slash)
		*slash = 0;
	const char *tries[2] = { "", "/../lib/shadowbind" };
	for (int i = 0; i < 2; i++) {
		char p[PATH_MAX + 64];
		snprintf(p, sizeof p, "%s%s/%s", exe, tries[i], name);
		if (access(p, R_OK) == 0 && realpath(p, buf) && strlen(buf) < len)
			return 0;
	}
	return rec_fail(err, "%s not found next to %s (run make, or set %s)", name, exe, var);
}

int rec_preload_path(char *buf, size_t len, struct trace_error *err)
{
	return find_preload(REC_PRELOAD_NAME, "SHADOWBIND_PRELOAD", buf, len, err);
}

int rec_run_preload_path(char *buf, size_t len, struct trace_error *err)
{
	return find_preload(REC_RUN_PRELOAD_NAME, "SHADOWBIND_RUN_PRELOAD", buf, len, err);
}

static int resolve(const char *prog, char *out, size_t len)
{
	if (strchr(prog, '/')) {
		if (strlen(prog) >= len || access(prog, X_OK) != 0)
			return -1;
		strcpy(out, prog);
		return 0;
	}
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		size_t k = strcspn(path, ":");
		if (k + strlen(prog) + 2 < len) {
			memcpy(out, k ? path : ".", k ? k : 1);
			size_t o = k ? k : 1;
			out[o] = '/';
			strcpy(out + o + 1, prog);
			if (access(out, X_OK) == 0)
				return 0;
		}
		path += k;
		if (*path == ':')
			path++;
	}
	return -1;
}

/* Read len bytes at off; 0 or -1. */
static int pread_all(int fd, void *buf, size_t len, off_t off)
{
	ssize_t n = pread(fd, buf, len, off);
	return n == (ssize_t)len ? 0 : -1;
}

int rec_inspect(const char *prog, struct rec_program *out, struct trace_error *err)
{
	memset(out, 0, sizeof *out);
	if (resolve(prog, out->path, sizeof out->path) < 0)
		return rec_fail(err, "%s: not found or not executable", prog);
	int fd = open(out->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return rec_fail(err, "%s: %s", out->path, strerror(errno));
	Elf64_Ehdr eh;
	if (pread_all(fd, &eh, sizeof eh, 0) < 0 || memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_phentsize != sizeof(Elf64_Phdr)) {
		close(fd);
		return 0; /* a script or a 32-bit program: no facts */
	}
	out->is_elf = 1;
	out->is_static = 1;
	Elf64_Phdr dyn = { 0 };
	for (unsigned i = 0; i < eh.e_phnum && i < 4096; i++) {
		Elf64_Phdr ph;
		if (pread_all(fd, &ph, sizeof ph, (off_t)(eh.e_phoff + (uint64_t)i * sizeof ph)) < 0)
			break;
		if (ph.p_type == PT_INTERP)
			out->is_static = 0;
		if (ph.p_type == PT_DYNAMIC)
			dyn = ph;
	}
	/* DT_NEEDED names: find the string table through the section
	 * headers (.dynstr), the simplest reliable way in a file */
	if (dyn.p_filesz && eh.e_shoff && eh.e_shentsize == sizeof(Elf64_Shdr)) {
		for (unsigned i = 0; i < eh.e_shnum && i < 65536; i++) {
			Elf64_Shdr sh, str;
			if (pread_all(fd, &sh, sizeof sh, (off_t)(eh.e_shoff + (uint64_t)i * sizeof sh)) < 0)
				break;
			if (sh.sh_type != SHT_DYNAMIC || sh.sh_link >= eh.e_shnum)
				continue;
			if (pread_all(fd, &str, sizeof str,
			              (off_t)(eh.e_shoff + (uint64_t)sh.sh_link * sizeof str)) < 0 ||
			    sh.sh_size > (1u << 24) || str.sh_size > (1u << 24))
				break;
			Elf64_Dyn *d = malloc(sh.sh_size + 1);
			char *s = malloc(str.sh_size + 1);
			if (d && s && pread_all(fd, d, sh.sh_size, (off_t)sh.sh_offset) == 0 &&
			    pread_all(fd, s, str.sh_size, (off_t)str.sh_offset) == 0) {
				s[str.sh_size] = 0;
				for (size_t k = 0; k < sh.sh_size / sizeof *d; k++)
					if (d[k].d_tag == DT_NEEDED && d[k].d_un.d_val < str.sh_size) {
						const char *lib = s + d[k].d_un.d_val;
						if (strstr(lib, "libgomp"))
							out->uses_gomp = 1;
						if (!strncmp(lib, "libomp.", 7) || !strncmp(lib, "libiomp", 7))
							out->uses_llvm_omp = 1;
					}
			}
			free(d);
			free(s);
			break;
		}
	}
	close(fd);
	return 0;
}
