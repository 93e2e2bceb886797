/*
 * test_cli_install.c - `make install DESTDIR=<tmp>` installs a working set
 * (issue 11 item 6): the commands run, the man pages exist, and a small C
 * program built with `pkg-config --cflags --libs shadowbind` loads a trace
 * and prints the makespan the simulator computes; `make uninstall` removes
 * every file again.
 *
 * It runs make in $SB_ROOT with the build that is under test (the plain
 * build, `make sanitize`'s, or BUILD/BIN given to make check).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "tests/testutil.h"

/* The program another project would write.  The Paper IV example with
 * SGA's binding (main, T1, T4 on processor 0; T2, T3 on 1): 2050. */
static const char prog[] =
	"#include <stdio.h>\n"
	"#include \"trace/trace.h\"\n"
	"#include \"sim/sim.h\"\n"
	"int main(int argc, char **argv)\n"
	"{\n"
	"\tstruct trace *tr;\n"
	"\tstruct trace_error err;\n"
	"\tif (argc != 2 || trace_read_file(argv[1], &tr, &err)) {\n"
	"\t\tfprintf(stderr, \"%s\\n\", argc == 2 ? err.msg : \"usage\");\n"
	"\t\treturn 2;\n"
	"\t}\n"
	"\tstruct sim_program *p = sim_program_new(tr);\n"
	"\tstruct sim_work *w = sim_work_new(p);\n"
	"\tstruct sim_params par;\n"
	"\tsim_params_init(&par);\n"
	"\tpar.cpus = 2;\n"
	"\tconst int32_t binding[] = {0, 0, 1, 1, 0};\n"
	"\tsim_time ms;\n"
	"\tchar b[64];\n"
	"\tint rc = sim_makespan(p, w, &par, binding, &ms);\n"
	"\tif (rc == SIM_OK)\n"
	"\t\tprintf(\"makespan %s\\n\", sim_time_format(ms, b, sizeof b));\n"
	"\tsim_work_free(w);\n"
	"\tsim_program_free(p);\n"
	"\ttrace_free(tr);\n"
	"\treturn rc;\n"
	"}\n";

static void test_install(void **state)
{
	(void)state;
	char root[4096], bin[4096], worst[4096];
	tu_root(".", root, sizeof root);
	tu_bin(".", bin, sizeof bin);
	tu_shared("examples/binpack-worst-case.trace", worst, sizeof worst);
	char *rroot = realpath(root, NULL), *rbin = realpath(bin, NULL);
	assert_non_null(rroot);
	assert_non_null(rbin);
	/* The make variables of the build under test. */
	char mk[8400], plain[4200], san[4200];
	int rc;
	snprintf(plain, sizeof plain, "%s/bin", rroot);
	snprintf(san, sizeof san, "%s/build/san/bin", rroot);
	/* the build is sanitized when this test is (make SAN=1 check, also
	 * with a BUILD and BIN of its own) */
#ifdef __SANITIZE_ADDRESS__
	int is_san = 1;
#else
	int is_san = 0;
#endif
	if (!is_san && strcmp(rbin, plain) == 0)
		mk[0] = 0;
	else if (is_san && strcmp(rbin, san) == 0)
		snprintf(mk, sizeof mk, "SAN=1");
	else {
		char *d = strdup(rbin);
		*strrchr(d, '/') = 0;
		snprintf(mk, sizeof mk, "%sBUILD='%s' BIN='%s'", is_san ? "SAN=1 " : "", d,
		         rbin);
		free(d);
	}
	char dest[] = "/tmp/sbinstXXXXXX";
	assert_non_null(mkdtemp(dest));
	char cmd[40000], *out, *err;
	/* An install with another PREFIX first: the .pc each install puts in
	 * place must name its own prefix (a .pc built once and kept would
	 * say /opt/sbother below, and the program would not link). */
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install "
	         "DESTDIR='%s/other' PREFIX=/opt/sbother %s && "
	         "sed -n 1p '%s/other/opt/sbother/lib/pkgconfig/shadowbind.pc' && "
	         "rm -rf '%s/other'", rroot, dest, mk, dest, dest);
	rc = tu_run(cmd, &out, &err);
	if (rc != 0)
		fail_msg("make install PREFIX=/opt/sbother: %d\n%s\n%s", rc, out, err);
	assert_string_equal(out, "prefix=/opt/sbother\n");
	free(out);
	free(err);
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s install "
	         "DESTDIR='%s' PREFIX=/usr %s", rroot, dest, mk);
	rc = tu_run(cmd, &out, &err);
	if (rc != 0)
		fail_msg("make install: %d\n%s\n%s", rc, out, err);
	free(out);
	free(err);

	/* commands and man pages */
	const char *cmds[] = {"simulate", "allocate", "bound", "progen", "rebind"};
	for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
		snprintf(cmd, sizeof cmd, "'%s/usr/bin/%s' --version && test -s "
		         "'%s/usr/share/man/man1/%s.1'", dest, cmds[i], dest, cmds[i]);
		assert_int_equal(tu_run(cmd, &out, &err), 0);
		assert_non_null(strstr(out, "(shadowbind)"));
		free(out);
		free(err);
	}

	/* the preload libraries, found by the installed commands in
	 * ../lib/shadowbind: a recording and a bound run of /bin/true */
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && '%s/usr/bin/shadowbind-record' -o t.trace -- /bin/true && "
	         "grep -q '^1 ' t.trace && printf 'shadowbind-binding 1\\ncpus 1\\n1 0\\n' >t.bind && "
	         "'%s/usr/bin/shadowbind-run' --binding t.bind -- /bin/true && rm -f t.trace t.bind",
	         dest, dest, dest);
	rc = tu_run(cmd, &out, &err);
	if (rc != 0)
		fail_msg("installed shadowbind-record / shadowbind-run: %d\n%s\n%s", rc, out, err);
	free(out);
	free(err);

	/* a program of someone else's, built with pkg-config */
	char src[4200];
	snprintf(src, sizeof src, "%s/prog.c", dest);
	FILE *f = fopen(src, "w");
	assert_non_null(f);
	fputs(prog, f);
	fclose(f);
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && flags=$(PKG_CONFIG_PATH='%s/usr/lib/pkgconfig' "
	         "PKG_CONFIG_SYSROOT_DIR='%s' pkg-config --cflags --libs shadowbind) && "
	         "cc -std=c11 prog.c $flags %s -o prog && ./prog '%s'",
	         dest, dest, dest, is_san ? "-fsanitize=address,undefined" : "", worst);
	rc = tu_run(cmd, &out, &err);
	if (rc != 0)
		fail_msg("build or run: %d\n%s\n%s", rc, out, err);
	assert_string_equal(out, "makespan 2050\n");
	free(out);
	free(err);
	snprintf(cmd, sizeof cmd, "sed -n 1p '%s/usr/lib/pkgconfig/shadowbind.pc'", dest);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	assert_string_equal(out, "prefix=/usr\n");
	free(out);
	free(err);
	unlink(src);
	snprintf(src, sizeof src, "%s/prog", dest);
	unlink(src);

	/* uninstall: no file left */
	snprintf(cmd, sizeof cmd,
	         "cd '%s' && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s uninstall "
	         "DESTDIR='%s' PREFIX=/usr %s && find '%s' -type f | wc -l",
	         rroot, dest, mk, dest);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	assert_string_equal(out, "0\n");
	free(out);
	free(err);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dest);
	assert_int_equal(tu_run(cmd, &out, &err), 0);
	free(out);
	free(err);
	free(rroot);
	free(rbin);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_install),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
