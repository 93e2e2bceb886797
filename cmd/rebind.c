/*
 * rebind - carry a binding made for one recording of a program to another
 * recording of it, thread by thread along their creator paths
 * (trace_binding_rebind, trace/rebind.c).
 *
 *   rebind --from OLD.trace [-o FILE] BINDING NEW.trace
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/out.h"
#include "cmd/common.h"
#include "trace/trace.h"

int main(int argc, char **argv)
{
	const char *from_path = NULL, *out_path = "-";
	struct cli_opt opts[] = {
		{CLI_STR, "from", 'f', .metavar = "TRACE", .dst = &from_path,
		 .help = "the trace BINDING was made for (required)"},
		{CLI_STR, "output", 'o', .metavar = "FILE", .dst = &out_path,
		 .help = "write the binding here (default: standard output)"},
		{CLI_END}};
	const struct cli_cmd cmd = {
		"rebind", "--from OLD.trace [-o FILE] BINDING NEW.trace",
		"Write BINDING, made for the recording OLD.trace, as a binding for\n"
		"NEW.trace, another recording of the same program (last week's binding\n"
		"for today's trace).  A trace numbers threads in the order they were\n"
		"created, which a program whose threads create threads does not repeat;\n"
		"each thread is named instead by its creator path (the initial thread,\n"
		"its j-th create, that thread's i-th create, ...), as shadowbind-run\n"
		"--trace pins a run's threads, and gets its counterpart's processor.\n"
		"The header keeps cpus, unit, algorithm, map and advice; trace names\n"
		"NEW.trace, rebound-from OLD.trace; the predictions (makespan, bound,\n"
		"lower) are left out: they were for the other trace (simulate or\n"
		"allocate the new one).",
		opts, NULL, NULL, NULL, NULL, NULL};
	int nops, prc = cli_parse(&cmd, argc, argv, &nops);
	if (prc != CLI_CONTINUE)
		return prc;
	if (!from_path)
		return cli_usage(&cmd, "--from TRACE is required (the trace BINDING was made for)");
	if (nops < 2)
		return cli_usage(&cmd, "give BINDING and NEW.trace");
	if (nops > 2)
		return cli_usage(&cmd, "unexpected operand '%s'", argv[3]);
	const char *bind_path = argv[1], *to_path = argv[2];
	cli_signals_install(CLI_SIG_EXIT);

	struct trace_error err;
	struct trace *from = NULL, *to = NULL;
	struct trace_binding b = {0}, nb = {0};
	char hex_from[65], hex_to[65], why[600];
	int rc = CLI_OK;
	if (trace_read_file_sha256(from_path, &from, hex_from, &err) < 0 ||
	    trace_binding_read(bind_path, from, &b, &err) < 0 ||
	    trace_read_file_sha256(to_path, &to, hex_to, &err) < 0 ||
	    trace_binding_rebind(from, from_path, &b, to, to_path, &nb, &err) < 0) {
		rc = cli_errorf(strstr(err.msg, "out of memory") ? CLI_ESYSTEM : CLI_EINPUT,
		                "%s", err.msg);
		goto done;
	}
	char tline[4200], fbody[4200], fline[4300];
	cmd_trace_line(tline, sizeof tline, to_path, hex_to);
	cmd_trace_line(fbody, sizeof fbody, from_path, hex_from);
	snprintf(fline, sizeof fline, "rebound-from %s", fbody);
	nb.trace = strdup(tline);
	nb.extra = strdup(fline);
	if (!nb.trace || !nb.extra) {
		rc = cli_error(&cmd, CLI_ESYSTEM, "out of memory");
		goto done;
	}
	struct cli_out o;
	if (cli_out_open(&o, out_path, why, sizeof why) != 0) {
		rc = cli_errorf(CLI_EINPUT, "%s", why);
		goto done;
	}
	int to_stdout = o.is_stdout;
	if (trace_binding_write(to, &nb, o.f) != 0) {
		cli_out_abort(&o);
		rc = cli_errorf(to_stdout ? CLI_ESYSTEM : CLI_EINPUT, "%s: cannot write", out_path);
		goto done;
	}
	if (cli_out_commit(&o, why, sizeof why) != 0)
		rc = cli_errorf(to_stdout ? CLI_ESYSTEM : CLI_EINPUT, "%s", why);
done:
	trace_binding_release(&b);
	trace_binding_release(&nb);
	trace_free(from);
	trace_free(to);
	return rc;
}
