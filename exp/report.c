/* report.c - the CSVs of bench/experiments into tables, SVG plots
 * (gnuplot) and bench/REPORT.md. */
#include <stdio.h>

#include "exp/exp.h"

int exp_report(const char *dir, const char *report, char *err, size_t errlen)
{
	(void)dir;
	(void)report;
	snprintf(err, errlen, "report: not written yet");
	return EXP_EINVAL;
}
