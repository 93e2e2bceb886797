/* machine.c - the machine options the commands share (cli.h). */
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"

int cli_machine_check(const struct cli_machine *m, char *why, size_t len)
{
	if (m->binding && m->unbound)
		snprintf(why, len, "--binding and --unbound exclude each other");
	else if (m->unbound && !m->cpus)
		snprintf(why, len, "--unbound needs --cpus K");
	else if (m->cpus && !m->binding && !m->unbound)
		snprintf(why, len, "--cpus needs --binding FILE or --unbound%s%s%s",
		         m->alone ? " (without either, " : "", m->alone ? m->alone : "",
		         m->alone ? ")" : "");
	else
		return 0;
	return -1;
}

int cli_machine_load(struct cli_machine *m, const struct trace *tr, char *why,
                     size_t len)
{
	memset(&m->bind, 0, sizeof m->bind);
	m->k = m->cpus;
	/* every TIME row of CLI_MACHINE_ROWS, in trace units */
#define TIME_(m, ID, KIND, OPTION, SHORT, KEY, FIELD, ...) TIME_##KIND(m, FIELD)
#define TIME_TIME(m, FIELD) \
	if (cli_time_get(&m->FIELD, tr, 0, &m->FIELD##_tu, why, len)) \
		return CLI_EUSAGE;
#define TIME_CPUS(m, FIELD)
#define TIME_POLICY(m, FIELD)
#define TIME_MODEL(m, FIELD)
#define TIME_FILE(m, FIELD)
#define TIME_STR(m, FIELD)
#define TIME_FLAG(m, FIELD)
#define TIME_MACHFILE(m, FIELD)
	CLI_MACHINE_ROWS(TIME_, m)
	if (!m->binding)
		return CLI_OK;
	struct trace_error err;
	if (trace_binding_read(m->binding, tr, &m->bind, &err) != 0) {
		snprintf(why, len, "%s", err.msg);
		return CLI_EINPUT;
	}
	if (!m->cpus)
		m->k = m->bind.cpus;
	for (uint32_t i = 0; i < m->bind.n; i++)
		if (m->bind.proc[i] >= (int32_t)m->k) {
			snprintf(why, len, "%s: thread %u is bound to processor %d, but "
			         "--cpus is %u", m->binding, tr->threads[i].id,
			         m->bind.proc[i], m->k);
			trace_binding_release(&m->bind);
			return CLI_EINPUT;
		}
	return CLI_OK;
}

void cli_machine_release(struct cli_machine *m)
{
	if (m)
		trace_binding_release(&m->bind);
}
