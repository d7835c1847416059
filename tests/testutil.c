/* tests/testutil.c -- see testutil.h. */
#include "tests/testutil.h"
#include "core/vec.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

void tu_assert_close(double got, double want, double rel, const char *what)
{
    if (!(fabs(got - want) <= rel * fmax(1.0, fabs(want))))
        fail_msg("%s: got %.17g, want %.17g", what, got, want);
}

static void iso_second(int64_t t, char *iso)
{
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    strftime(iso, 21, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int64_t tu_next_second(char *iso)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    time_t s = now.tv_sec;
    /* to 2 ms past the tick, then until time() (a coarser clock on some
     * systems, and the one gpuidx stamps with) agrees */
    struct timespec t = {0, 1000000000L - now.tv_nsec + 2000000L};
    if (t.tv_nsec >= 1000000000L) {
        t.tv_sec = 1;
        t.tv_nsec -= 1000000000L;
    }
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {}
    for (struct timespec ms = {0, 1000000L}; time(NULL) <= s;) nanosleep(&ms, NULL);
    time_t got = time(NULL);
    if (iso) iso_second((int64_t)got, iso);
    return (int64_t)got;
}

int64_t tu_last_batch_second(const char *dir, const char *db, char *iso)
{
    tu_run r = tu_sh(dir, "sqlite3 '%s' 'SELECT max(ingested_at) FROM batches'", db);
    char *end = NULL;
    long long t = strtoll(r.out, &end, 10);
    if (r.status != 0 || end == r.out)
        fail_msg("%s/%s: no batch's ingest time: %s%s", dir, db, r.out, r.err);
    tu_run_free(&r);
    if (iso) iso_second(t, iso);
    return (int64_t)t;
}

void tu_wait_past(int64_t t)
{
    for (struct timespec ms = {0, 1000000L}; (int64_t)time(NULL) <= t;) nanosleep(&ms, NULL);
}

static char *slurp_fd(FILE *f)
{
    size_t cap = 0, n = 0, k;
    char *buf = NULL;
    do {
        if (GPI_VEC_RESERVE(buf, cap, n + 4096) != 0) abort();
        k = fread(buf + n, 1, cap - n - 1, f);
        n += k;
    } while (k > 0);
    buf[n] = '\0';
    return buf;
}

static tu_run run_v(const char *cwd, const char *prefix, const char *fmt, va_list ap)
{
    tu_run r = {-1, NULL, NULL};
    char cmd[16384];
    char errpath[] = "/tmp/gpuidx-test-err-XXXXXX";
    int fd = mkstemp(errpath);
    close(fd);
    int n = snprintf(cmd, sizeof cmd, "%s%s", cwd ? "cd '" : "", cwd ? cwd : "");
    if (cwd) n += snprintf(cmd + n, sizeof cmd - (size_t)n, "' && ");
    n += snprintf(cmd + n, sizeof cmd - (size_t)n, "%s", prefix);
    n += vsnprintf(cmd + n, sizeof cmd - (size_t)n, fmt, ap);
    snprintf(cmd + n, sizeof cmd - (size_t)n, " </dev/null 2>'%s'", errpath);
    FILE *p = popen(cmd, "r");
    if (!p) fail_msg("popen failed: %s", cmd);
    r.out = slurp_fd(p);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r.err = tu_read(errpath);
    if (!r.err) r.err = strdup("");
    unlink(errpath);
    return r;
}

tu_run tu_gpuidx(const char *cwd, const char *fmt, ...)
{
    const char *bin = getenv("GPUIDX_BIN");
    if (!bin) bin = "build/gpuidx";
    char prefix[4096];
    snprintf(prefix, sizeof prefix, "'%s' ", bin);
    va_list ap;
    va_start(ap, fmt);
    tu_run r = run_v(cwd, prefix, fmt, ap);
    va_end(ap);
    return r;
}

tu_run tu_sh(const char *cwd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    tu_run r = run_v(cwd, "", fmt, ap);
    va_end(ap);
    return r;
}

tu_run tu_sh_all(const char *cwd, const char *const *steps, size_t n)
{
    tu_run r = {0, NULL, NULL};
    for (size_t i = 0; i < n; i++) {
        tu_run_free(&r);
        r = tu_sh(cwd, "%s", steps[i]);
        if (r.status != 0) fail_msg("%s: exit %d: %s%s", steps[i], r.status, r.out, r.err);
    }
    return r;
}

void tu_run_free(tu_run *r)
{
    free(r->out);
    free(r->err);
    r->out = r->err = NULL;
}

char *tu_mkdtemp(const char *tag)
{
    const char *tmp = getenv("TMPDIR");
    char buf[4096];
    snprintf(buf, sizeof buf, "%s/gpuidx-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", tag);
    if (!mkdtemp(buf)) fail_msg("mkdtemp failed for %s", buf);
    return strdup(buf);
}

char *tu_write(const char *dir, const char *name, const char *text)
{
    size_t n = strlen(dir) + strlen(name) + 2;
    char *path = malloc(n);
    snprintf(path, n, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) fail_msg("cannot write %s", path);
    fputs(text, f);
    fclose(f);
    return path;
}

char *tu_read(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    char *s = slurp_fd(f);
    fclose(f);
    return s;
}

const char *tu_srcdir(void) { return GPUIDX_SRCDIR; }

const char *tu_real_data(void)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/../shared/data/real", GPUIDX_SRCDIR);
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        printf("skip: %s is absent (real data lives in ../shared, never in the repo)\n", path);
        return NULL;
    }
    return path;
}

tu_fifo tu_fifo_writer(const char *path, const char *const *texts, const size_t *len, int n)
{
    unlink(path);
    if (mkfifo(path, 0600) != 0) fail_msg("mkfifo %s: %s", path, strerror(errno));
    int report[2];
    if (pipe(report) != 0) fail_msg("pipe: %s", strerror(errno));
    pid_t pid = fork();
    if (pid < 0) fail_msg("fork: %s", strerror(errno));
    if (pid > 0) {
        close(report[1]);
        return (tu_fifo){(int)pid, report[0]};
    }
    close(report[0]);
    signal(SIGPIPE, SIG_IGN);
    long total = 0;
    int ok = 1;
    for (int i = 0; i < n && ok; i++) {
        /* a FIFO gives its reader the end of the file only when no writer
         * is left: before opening again, wait until the last reader has
         * closed (a non-blocking open finds no reader), or it would read
         * on into the next text */
        for (int fd; i > 0 && (fd = open(path, O_WRONLY | O_NONBLOCK)) >= 0;) {
            close(fd);
            usleep(1000);
        }
        int fd = open(path, O_WRONLY);
        if (fd < 0) break;
        size_t k = len ? len[i] : strlen(texts[i]), off = 0;
        while (off < k) {
            size_t chunk = k - off < 65536 ? k - off : 65536;
            ssize_t w = write(fd, texts[i] + off, chunk);
            if (w <= 0) {
                ok = 0;
                break;
            }
            off += (size_t)w;
            total += w;
        }
        close(fd);
    }
    char num[32];
    int m = snprintf(num, sizeof num, "%ld", total);
    if (write(report[1], num, (size_t)m) != m) _exit(1);
    _exit(0);
}

long tu_fifo_release(const char *path, tu_fifo w, int wait)
{
    if (!wait) kill((pid_t)w.pid, SIGKILL);
    int st;
    waitpid((pid_t)w.pid, &st, 0);
    long total = -1;
    char num[32];
    ssize_t k = read(w.report_fd, num, sizeof num - 1);
    if (k > 0) {
        num[k] = '\0';
        total = atol(num);
    }
    close(w.report_fd);
    unlink(path);
    return total;
}

int tu_run_rss(const char *dir, const char *const *args, const char *out_path, long *kib)
{
    pid_t pid = fork();
    if (pid < 0) fail_msg("fork: %s", strerror(errno));
    if (pid == 0) {
        if (chdir(dir) != 0) _exit(127);
        int null = open("/dev/null", O_RDWR);
        int out = out_path ? open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644) : null;
        dup2(null, 0);
        dup2(out, 1);
        dup2(null, 2);
        const char *asan = getenv("ASAN_OPTIONS");
        char opts[512];
        snprintf(opts, sizeof opts, "%s%squarantine_size_mb=4", asan ? asan : "",
                 asan && *asan ? ":" : "");
        setenv("ASAN_OPTIONS", opts, 1);
        execv(args[0], (char *const *)args);
        _exit(127);
    }
    int st;
    struct rusage ru;
    if (wait4(pid, &st, 0, &ru) != pid) fail_msg("wait4: %s", strerror(errno));
    *kib = ru.ru_maxrss;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}
