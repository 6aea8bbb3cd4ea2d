/* check.h - the unit tests' one assertion macro. Each CHECK is a TAP test
 * line ("ok N - file:line: expr"); check_done() prints the plan and returns
 * the exit status. */
#ifndef NPUKIT_CHECK_H
#define NPUKIT_CHECK_H
#include <stdio.h>

static int check_n, check_failed;

#define CHECK(cond) check_one(!!(cond), __FILE__, __LINE__, #cond)
#define CHECK_MSG(cond, ...) (check_one(!!(cond), __FILE__, __LINE__, #cond) ? 1 : (printf("# "), printf(__VA_ARGS__), printf("\n"), 0))

static inline int check_one(int ok, const char *file, int line, const char *expr)
{
	check_n++;
	if (!ok)
		check_failed++;
	printf("%sok %d - %s:%d: %s\n", ok ? "" : "not ", check_n, file, line, expr);
	return ok;
}

static inline int check_done(void)
{
	printf("1..%d\n", check_n);
	return check_failed ? 1 : 0;
}
#endif
