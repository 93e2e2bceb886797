/*
 * rp_name.c - a thread's name: the symbol of its start routine.  dladdr
 * knows only exported (dynamic) symbols; a program's static functions
 * (`static void *worker(void *)`) are found in the object's own symbol
 * table (.symtab) when it was not stripped.  Called when the trace is
 * written (possibly from a signal handler): no malloc, the file is read
 * with mmap.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "record/preload/rp.h"

static void copy_name(char *out, size_t len, const char *s)
{
	size_t k = 0;
	for (; *s && k + 1 < len; s++)
		out[k++] = (*s > ' ' && *s < 127 && *s != '#') ? *s : '_';
	out[k] = 0;
}

/* The function of the ELF file at `path` containing address `addr`
 * (file-relative for shared objects and PIE, absolute for ET_EXEC). */
static int symtab_lookup(const char *path, uintptr_t base, uintptr_t fn, char *out, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		return -1;
	}
	size_t size = (size_t)st.st_size;
	const unsigned char *m = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m == MAP_FAILED)
		return -1;
	int rc = -1;
	const Elf64_Ehdr *eh = (const void *)m;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shoff > size ||
	    (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		goto out;
	uintptr_t addr = eh->e_type == ET_EXEC ? fn : fn - base;
	const Elf64_Shdr *sh = (const void *)(m + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum && rc < 0; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *ss = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
		    ss->sh_offset > size || ss->sh_size > size - ss->sh_offset)
			continue;
		const Elf64_Sym *sym = (const void *)(m + sh[i].sh_offset);
		const char *str = (const char *)(m + ss->sh_offset);
		size_t n = sh[i].sh_size / sizeof *sym;
		for (size_t k = 0; k < n; k++) {
			if (ELF64_ST_TYPE(sym[k].st_info) != STT_FUNC || sym[k].st_name >= ss->sh_size)
				continue;
			if (addr >= sym[k].st_value && addr < sym[k].st_value + (sym[k].st_size ? sym[k].st_size : 1) &&
			    memchr(str + sym[k].st_name, 0, ss->sh_size - sym[k].st_name)) {
				copy_name(out, len, str + sym[k].st_name);
				rc = 0;
				break;
			}
		}
	}
out:
	munmap((void *)m, size);
	return rc;
}

void rp_symname(void *fn, char *out, size_t len)
{
	out[0] = 0;
	Dl_info di;
	if (!fn || !dladdr(fn, &di))
		return;
	if (di.dli_sname && di.dli_saddr == fn) {
		copy_name(out, len, di.dli_sname);
		return;
	}
	if (di.dli_fname && di.dli_fname[0] == '/' &&
	    symtab_lookup(di.dli_fname, (uintptr_t)di.dli_fbase, (uintptr_t)fn, out, len) == 0)
		return;
	/* the main program: its name in dladdr may be relative or empty */
	if (symtab_lookup("/proc/self/exe", (uintptr_t)di.dli_fbase, (uintptr_t)fn, out, len) == 0)
		return;
	if (di.dli_sname)
		copy_name(out, len, di.dli_sname);
}
