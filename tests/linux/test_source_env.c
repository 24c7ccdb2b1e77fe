/* SPDX-License-Identifier: MIT */
/*
 * CYCLOCK_SOURCE and CYCLOCK_COARSE_PERIOD_US.  The library reads its
 * environment once, at load (CYCLOCK_SOURCE) or as the coarse ticker
 * starts, so each case runs in a process of its own: the test executes itself ("--child <scenario>") with the
 * environment of the case and its stderr on a pipe.  The child checks what
 * it can see from inside (its clocks agree with the kernel's, describe
 * matches the source in use) and exits with the source in use (0 kernel,
 * 1 counter) or 2 for a failed check; the parent checks that result
 * against the case and counts the lines the child wrote on stderr.
 */
#define _GNU_SOURCE /* strcasestr */
#include <pthread.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "cyclock.h"
#include "cyclock/timeline.h"
#include "child.h"
#include "agree.h"
#include "state.h"

#define CHILD_FAILED 2
#define RACERS 4 /* threads whose reads are the process's first */

extern char **environ;

/* The one-line description names the source in use; kernel mode says why. */
static void child_check_describe(int r)
{
	struct cyclock_state info = state_now();
	const char *s = cyclock_describe();

	if (info.using_counter != r)
		child_fail("cyclock_init() said %d, info.using_counter %d", r, info.using_counter);
	if (s == NULL || s[0] == '\0' || strchr(s, '\n') != NULL) {
		child_fail("describe is not one line: \"%s\"", s ? s : "(null)");
		return;
	}
	if (r == CYCLOCK_USING_COUNTER && strstr(s, "tsc") == NULL)
		child_fail("using the counter, but describe says \"%s\"", s);
	/* The counter forced: said, and only then. */
	const char *src = getenv("CYCLOCK_SOURCE");
	bool forced = src && (!strcmp(src, "tsc") || !strcmp(src, "counter"));

	if (r == CYCLOCK_USING_COUNTER && forced != (strstr(s, "forced by CYCLOCK_SOURCE") != NULL))
		child_fail("CYCLOCK_SOURCE=%s, but describe says \"%s\"", src ? src : "(unset)", s);
	if (r == CYCLOCK_USING_KERNEL && (strcasestr(s, "kernel") == NULL || !info.why[0]))
		child_fail("using the kernel, but describe says \"%s\", why \"%s\"", s, info.why);
}

/* The process's first cyclock_coarse(): never ahead of cyclock_now(), at
 * most COARSE_LAG_NS behind, and no reading steps back from the one before. */
static void child_check_first_coarse(int r)
{
	uint64_t n1 = cyclock_now(), c = cyclock_coarse(), n2 = cyclock_now(), t;
	int j;

	(void)r;
	if (c > n2 || c + COARSE_LAG_NS < n1)
		child_fail("first cyclock_coarse() %llu outside [%llu, %llu]", (unsigned long long)c,
			   (unsigned long long)n1, (unsigned long long)n2);
	for (j = 0; j < 100000; j++, c = t)
		if ((t = cyclock_coarse()) < c) {
			child_fail("cyclock_coarse() went back by %llu ns, %d reads after its first call",
				   (unsigned long long)(c - t), j);
			break;
		}
}

/* Every clock within its bracket (exactly, when they are the kernel's
 * own), and monotonic where it should be. */
static void child_check_clocks(int r)
{
	uint64_t bound = r == CYCLOCK_USING_COUNTER ? AGREE_NS : 0;
	int n, i, j;
	const struct kclock_case *k = kclock_cases(&n);

	for (i = 0; i < n; i++) {
		for (j = 0; j < 200; j++) {
			int64_t miss = kclock_miss(&k[i]);

			if (!kclock_within(miss, bound)) {
				child_fail("%s: %lld ns outside its kernel clock", k[i].name,
					   (long long)miss);
				break;
			}
		}
	}
	for (i = 0; i < n; i++) {
		uint64_t prev = k[i].read(), t;

		for (j = 0; (k[i].flags & KCLOCK_MONO) && j < 100000; j++, prev = t)
			if ((t = k[i].read()) < prev) {
				child_fail("%s went back by %llu ns", k[i].name,
					   (unsigned long long)(prev - t));
				break;
			}
	}
	if (r == CYCLOCK_USING_KERNEL && cyclock_cycles() != 0)
		child_fail("no counter in use, but cyclock_cycles() is not 0");
}

static pthread_barrier_t start_line;

static void *racer(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&start_line);
	return (void *)(uintptr_t)cyclock_now();
}

/* The process's first reads come from RACERS threads at once; then many
 * more calls of everything that might report the environment again. */
static int child_racing(void)
{
	pthread_t t[RACERS];
	int i;

	pthread_barrier_init(&start_line, NULL, RACERS);
	for (i = 0; i < RACERS; i++)
		pthread_create(&t[i], NULL, racer, NULL);
	for (i = 0; i < RACERS; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < 100; i++) {
		cyclock_init(0); /* not CYCLOCK_INIT_COARSE: the ticker starts later */
		cyclock_describe();
		cyclock_resync();
	}
	return cyclock_init(0);
}

/* With CYCLOCK_COARSE_PERIOD_US=50000 the ticker (asked for) stores about
 * 10 values in 500 ms, not the default period's 500; it must still tick. */
static void child_check_period(void)
{
	uint64_t end = kclock_mono() + 500000000u, prev = 0, c;
	struct timespec pause = { 0, 100000 };
	int distinct = 0;

	cyclock_init(CYCLOCK_INIT_COARSE);
	cyclock_coarse();
	while (kclock_mono() < end) {
		c = cyclock_coarse();
		distinct += c != prev;
		prev = c;
		nanosleep(&pause, NULL);
	}
	if (distinct < 2 || distinct > 50)
		child_fail("CYCLOCK_COARSE_PERIOD_US=50000: %d coarse values in 500 ms", distinct);
}

/*
 * The program closes its stderr and opens a data file, which gets file
 * descriptor 2: the library's complaint must not go into it.  Returns the
 * descriptor to close at the end, or -1.
 */
static int child_reopen_stderr(void)
{
	char path[] = "/tmp/cyclock_test_source_env_XXXXXX";
	int fd;

	close(STDERR_FILENO);
	fd = mkstemp(path);
	if (fd != STDERR_FILENO) {
		child_fail("mkstemp gave %d, not 2", fd);
		return fd;
	}
	unlink(path);
	return fd;
}

static void child_check_reopened(int fd)
{
	struct stat st;

	if (fd == STDERR_FILENO && (fstat(fd, &st) || st.st_size != 0))
		child_fail("%lld bytes written into the file that took descriptor 2",
			   (long long)st.st_size);
}

static int child_main(const char *scenario)
{
	int r, reopened = strcmp(scenario, "reopened") == 0 ? child_reopen_stderr() : -1;

	alarm(20); /* a hang is a failure */
	if (strcmp(scenario, "racing") == 0)
		r = child_racing();
	else
		r = cyclock_init(strcmp(scenario, "flag-kernel") == 0 ? CYCLOCK_INIT_KERNEL
				 : reopened >= 0			   ? CYCLOCK_INIT_COARSE
									   : 0);
	if (r != CYCLOCK_USING_COUNTER && r != CYCLOCK_USING_KERNEL) {
		child_fail("cyclock_init() returned %d", r);
		return CHILD_FAILED;
	}
	child_check_describe(r);
	child_check_first_coarse(r);
	child_check_clocks(r);
	if (strcmp(scenario, "period") == 0)
		child_check_period();
	child_check_reopened(reopened);
	fflush(stdout);
	return child_failures ? CHILD_FAILED : r;
}

/* What a child did. */
struct child_run {
	int status;     /* waitpid()'s */
	int lines;      /* newlines on its stderr */
	size_t len;     /* bytes on its stderr */
	char err[8192]; /* their start, NUL-terminated */
};

/* environ without CYCLOCK_SOURCE and CYCLOCK_COARSE_PERIOD_US, plus @a and
 * @b ("NAME=value" or NULL). */
static char **child_env(char *a, char *b)
{
	size_t n = 0, m = 0;
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + 3, sizeof(*env));
	assert_non_null(env);
	for (n = 0; environ[n]; n++)
		if (strncmp(environ[n], "CYCLOCK_SOURCE=", 15) != 0 &&
		    strncmp(environ[n], "CYCLOCK_COARSE_PERIOD_US=", 25) != 0)
			env[m++] = environ[n];
	if (a)
		env[m++] = a;
	if (b)
		env[m++] = b;
	return env;
}

/* Runs this program as "--child @scenario" with CYCLOCK_SOURCE=@source
 * (NULL: unset) and @extra in its environment. */
static void run_child(const char *scenario, const char *source, char *extra, struct child_run *out)
{
	char name[] = "test_source_env", flag[] = "--child", *src = NULL;
	char *argv[] = { name, flag, (char *)(uintptr_t)scenario, NULL };
	char **env, buf[4096];
	int fds[2];
	ssize_t got;
	pid_t pid;

	memset(out, 0, sizeof(*out));
	if (source) {
		src = malloc(strlen(source) + 16);
		assert_non_null(src);
		sprintf(src, "CYCLOCK_SOURCE=%s", source);
	}
	env = child_env(src, extra);
	assert_int_equal(pipe(fds), 0);
	fflush(NULL);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		dup2(fds[1], STDERR_FILENO);
		close(fds[0]);
		close(fds[1]);
		execve("/proc/self/exe", argv, env);
		_exit(127);
	}
	close(fds[1]);
	while ((got = read(fds[0], buf, sizeof(buf))) > 0) {
		for (ssize_t i = 0; i < got; i++) {
			out->lines += buf[i] == '\n';
			if (out->len + (size_t)i < sizeof(out->err) - 1)
				out->err[out->len + (size_t)i] = buf[i];
		}
		out->len += (size_t)got;
	}
	close(fds[0]);
	assert_int_equal(waitpid(pid, &out->status, 0), pid);
	free(env);
	free(src);
}

/* The source the child used, after checking it exited by itself with
 * @lines lines on stderr (one: the whole stream is that line). */
static int child_result(const char *what, const struct child_run *run, int lines)
{
	int code = WIFEXITED(run->status) ? WEXITSTATUS(run->status) : -1;

	if (WIFSIGNALED(run->status))
		fail_msg("%s: child killed by signal %d; stderr: %s", what, WTERMSIG(run->status),
			 run->err);
	if (code != CYCLOCK_USING_COUNTER && code != CYCLOCK_USING_KERNEL)
		fail_msg("%s: child exited %d (see its stdout above); stderr: %s", what, code,
			 run->err);
	if (run->lines != lines || (lines == 1 && (run->len < 2 || run->err[0] == '\n' ||
						   (run->len < sizeof(run->err) &&
						    run->err[run->len - 1] != '\n'))))
		fail_msg("%s: want %d line(s) on stderr, got %d in %zu bytes: \"%s\"", what, lines,
			 run->lines, run->len, run->err);
	if (lines == 0 && run->len != 0)
		fail_msg("%s: stderr not empty: \"%s\"", what, run->err);
	return code;
}

/* Unset: silent; on this machine (the kernel's clocksource is an invariant
 * TSC, as in CI), the counter. */
static void unset_is_silent_and_uses_the_counter(void **state)
{
	struct child_run run;

	(void)state;
	run_child("plain", NULL, NULL, &run);
	assert_int_equal(child_result("CYCLOCK_SOURCE unset", &run, 0), CYCLOCK_USING_COUNTER);
}

static void kernel_forces_the_kernel_clocks(void **state)
{
	struct child_run run;

	(void)state;
	run_child("plain", "kernel", NULL, &run);
	assert_int_equal(child_result("CYCLOCK_SOURCE=kernel", &run, 0), CYCLOCK_USING_KERNEL);
}

static void tsc_forces_the_counter(void **state)
{
	struct child_run run;

	(void)state;
	run_child("plain", "tsc", NULL, &run);
	assert_int_equal(child_result("CYCLOCK_SOURCE=tsc", &run, 0), CYCLOCK_USING_COUNTER);
}

/* The flag does what CYCLOCK_SOURCE=kernel does, without the environment. */
static void init_kernel_flag_forces_the_kernel_clocks(void **state)
{
	struct child_run run;

	(void)state;
	run_child("flag-kernel", NULL, NULL, &run);
	assert_int_equal(child_result("cyclock_init(CYCLOCK_INIT_KERNEL)", &run, 0),
			 CYCLOCK_USING_KERNEL);
}

/* Any other value: one line on stderr, however many threads race to
 * initialise and however often the library is called, then the default
 * (the counter, as unset_is_silent_and_uses_the_counter checks). */
static void bad_values_warn_once_and_are_ignored(void **state)
{
	static const char *const values[] = { "bogus", "", "TSC ", "kernel2" };
	struct child_run run;
	static char huge[4097]; /* static: a failed assertion leaves by longjmp */
	char what[64];
	size_t i;

	(void)state;
	memset(huge, 'x', 4096);
	huge[4096] = '\0';
	for (i = 0; i <= sizeof(values) / sizeof(values[0]); i++) {
		const char *v = i < sizeof(values) / sizeof(values[0]) ? values[i] : huge;

		snprintf(what, sizeof(what), "CYCLOCK_SOURCE=\"%.20s\"%s", v,
			 strlen(v) > 20 ? "... (4 KiB)" : "");
		run_child("racing", v, NULL, &run);
		assert_int_equal(child_result(what, &run, 1), CYCLOCK_USING_COUNTER);
	}
}

/* The message is one line even when the value holds a newline. */
static void a_newline_in_the_value_still_makes_one_line(void **state)
{
	struct child_run run;

	(void)state;
	run_child("racing", "a\nb", NULL, &run);
	assert_int_equal(child_result("CYCLOCK_SOURCE=\"a\\nb\"", &run, 1), CYCLOCK_USING_COUNTER);
}

/* Not into a file that took descriptor 2 after the library was loaded:
 * CYCLOCK_SOURCE's complaint comes at load, on the stderr the process
 * started with (one line), and CYCLOCK_COARSE_PERIOD_US's, as the ticker
 * starts after stderr was closed and a file opened, nowhere (the child
 * checks that the file stays empty). */
static void no_complaint_into_a_file_opened_as_descriptor_2(void **state)
{
	struct child_run run;
	char period[] = "CYCLOCK_COARSE_PERIOD_US=0";

	(void)state;
	run_child("reopened", "bogus", period, &run);
	assert_int_equal(child_result("stderr closed, a file opened", &run, 1),
			 CYCLOCK_USING_COUNTER);
	if (!strstr(run.err, "CYCLOCK_SOURCE"))
		fail_msg("not CYCLOCK_SOURCE's complaint: \"%s\"", run.err);
}

static void coarse_period_is_taken_from_the_environment(void **state)
{
	struct child_run run;
	char period[] = "CYCLOCK_COARSE_PERIOD_US=50000";

	(void)state;
	run_child("period", NULL, period, &run);
	assert_int_equal(child_result(period, &run, 0), CYCLOCK_USING_COUNTER);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(unset_is_silent_and_uses_the_counter),
		cmocka_unit_test(kernel_forces_the_kernel_clocks),
		cmocka_unit_test(tsc_forces_the_counter),
		cmocka_unit_test(init_kernel_flag_forces_the_kernel_clocks),
		cmocka_unit_test(bad_values_warn_once_and_are_ignored),
		cmocka_unit_test(a_newline_in_the_value_still_makes_one_line),
		cmocka_unit_test(no_complaint_into_a_file_opened_as_descriptor_2),
		cmocka_unit_test(coarse_period_is_taken_from_the_environment),
	};

	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child_main(argv[2]);
	/* Each case execve()s this program, which qemu-user (without
	 * binfmt_misc) cannot run, and expects the x86 counter's spelling. */
	if (getenv("CYCLOCK_TEST_EMULATED")) {
		printf("test_source_env: its children cannot run under qemu-user: skipped\n");
		return 77;
	}
	if (!CYCLOCK_ARCH_HAS_COUNTER) {
		printf("test_source_env: no counter on this architecture, so CYCLOCK_SOURCE "
		       "has nothing to choose: skipped\n");
		return 77;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
