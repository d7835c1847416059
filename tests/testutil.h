/* tests/testutil.h -- helpers shared by the cmocka test programs.
 *
 * Include after <cmocka.h>'s prerequisites; provides relative float
 * comparison (cmocka's assert_float_equal is float precision), running the
 * real gpuidx binary, scratch directories and small file helpers.
 */
#ifndef GPI_TESTUTIL_H
#define GPI_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* Fails the test when |got - want| > rel * max(1, |want|). */
void tu_assert_close(double got, double want, double rel, const char *what);

/* Result of running a command. Free with tu_run_free(). */
typedef struct tu_run {
    int status;      /* exit code, or 128+signal */
    char *out;       /* whole stdout, NUL-terminated */
    char *err;       /* whole stderr */
} tu_run;

/* Runs "$GPUIDX_BIN <args>" through /bin/sh (args is shell text), with the
 * working directory cwd (NULL: unchanged).  stdin is /dev/null. */
tu_run tu_gpuidx(const char *cwd, const char *args_fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Runs any shell command the same way. */
tu_run tu_sh(const char *cwd, const char *cmd_fmt, ...) __attribute__((format(printf, 2, 3)));
void tu_run_free(tu_run *r);
/* Runs the shell commands steps[0..n) in cwd in turn; fails the test at
 * the first that exits non-zero, naming it.  Returns the last one's run
 * (free it). */
tu_run tu_sh_all(const char *cwd, const char *const *steps, size_t n);

/* Creates a fresh scratch directory under $TMPDIR; returns a malloc'd path
 * (free it; the directory is left for inspection). */
char *tu_mkdtemp(const char *tag);
/* Runs args (args[0] the program, no shell) in dir with stdin and stderr
 * on /dev/null and stdout to out_path (NULL: /dev/null); returns its exit
 * status and its peak resident memory in KiB (*kib).  Under ASan (make
 * check) the freed-memory quarantine is kept small (4 MB), else its up to
 * 256 MB would count as resident. */
int tu_run_rss(const char *dir, const char *const *args, const char *out_path, long *kib);
/* Writes text to dir/name; returns the malloc'd full path. */
char *tu_write(const char *dir, const char *name, const char *text);
/* Reads a whole file (malloc'd, NUL-terminated) or NULL. */
char *tu_read(const char *path);
/* Path of the source tree (tests run from it): GPUIDX_SRCDIR. */
const char *tu_srcdir(void);
/* Path of ../shared/data/real relative to the source tree, or NULL with a
 * printed skip reason when it is absent. */
const char *tu_real_data(void);

/* Waits until the wall clock is in the next second after the call (the
 * second of anything committed before the call is then in the past) and
 * returns that second; iso (when not NULL, 21 bytes) gets it as
 * YYYY-MM-DDTHH:MM:SSZ.  Batches and cut-offs are stamped in whole
 * seconds: this replaces `sleep 1.1` by the wait for the observable tick
 * (half a second on average). */
int64_t tu_next_second(char *iso);
/* The second the last batch of dir/db was stamped with (its ingest time:
 * what an inclusive --as-of needs to see it and nothing later); iso (when
 * not NULL, 21 bytes) gets it as YYYY-MM-DDTHH:MM:SSZ.  Fails the test
 * when the database has no batch. */
int64_t tu_last_batch_second(const char *dir, const char *db, char *iso);
/* Waits until the wall clock (time()) is past second t -- at once when
 * it already is: work done since t counts, unlike tu_next_second. */
void tu_wait_past(int64_t t);

/* A FIFO at path, and a child process that opens it for writing n times
 * in turn, writing texts[i] (len[i] bytes; len NULL: strlen) on the i-th
 * open and closing it: a reader that opens the path twice gets texts[0],
 * then texts[1] (the writer waits for the first reader to close before it
 * opens again).  The writer stops at the first failed write (SIGPIPE is
 * ignored).  tu_fifo_release ends it and removes the FIFO: wait = 1 waits
 * for the writer to finish by itself (it has written everything, or a
 * write failed once the reader was gone) and returns the bytes it wrote;
 * wait = 0 kills it (a writer may be left waiting for a reader that never
 * comes) and returns -1 unless it had finished. */
typedef struct tu_fifo {
    int pid;
    int report_fd;
} tu_fifo;
tu_fifo tu_fifo_writer(const char *path, const char *const *texts, const size_t *len, int n);
long tu_fifo_release(const char *path, tu_fifo w, int wait);

#endif
