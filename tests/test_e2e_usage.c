/* tests/test_e2e_usage.c -- every command on the shared option parser
 * (cli/args.c): the same mistake gets the same message and exit code 2
 * from every command, before anything is read or written.
 *
 * Property: for every command and subcommand, an unknown option, an
 * option without its value and (for commands with subcommands) an option
 * of another subcommand are refused in exactly one form each,
 *   gpuidx: CMD: unknown argument 'X' (see gpuidx TOPIC --help)
 *   gpuidx: CMD: option 'X' needs a value
 *   gpuidx: CMD: option 'X' does not apply here (see gpuidx TOPIC --help)
 * with nothing on stdout, and the help named there exists (exit 0, a usage
 * line on stdout, nothing on stderr).  The database named by --db does
 * not exist and must still not exist afterwards.  The global options
 * before the command (--db, --data, --help, --version) go through the same
 * parser and say the same of a missing value, without a command's prefix.
 */
#include "tests/testutil.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/gpi.h"

/* A command line, its message prefix, the topic of its help, one option
 * that takes a value, and one option of another subcommand (or NULL). */
static const struct {
    const char *args, *cmd, *topic, *valued, *elsewhere;
} cmds[] = {
    {"ingest", "ingest", "ingest", "--source", NULL},
    {"ingest offers", "ingest", "ingest", "--rejects", NULL},
    {"index build", "index build", "index build", "--from", NULL},
    {"index show", "index show", "index show", "--grade", NULL},
    {"index publish", "index publish", "index publish", "--out", NULL},
    {"site", "site", "site", "--out", NULL},
    {"settle", "settle", "settle", "--contracts", NULL},
    {"hedge analyze", "hedge", "hedge analyze", "--rent", "--side"},
    {"hedge simulate", "hedge", "hedge simulate", "--ratio", "--freq"},
    {"hedge compare", "hedge", "hedge compare", "--grades", "--strategy"},
    {"cost days", "cost", "cost days", "--deployments", "--svg"},
    {"cost curve", "cost", "cost curve", "--date", "--every"},
    {"cost moves", "cost", "cost moves", "--every", "--date"},
    {"grades evaluate", "grades evaluate", "grades evaluate", "--grades", NULL},
    {"grades list", "grades list", "grades list", "--grades", NULL},
    {"grades drop", "grades drop", "grades drop", NULL, NULL},
    {"grades restore", "grades restore", "grades restore", NULL, NULL},
    {"simulate", "simulate", "simulate", "--truth", NULL},
    {"verify", "verify", "verify", "--contracts", NULL},
};

/* A command line, the exit status and stderr it must give (stdout empty). */
typedef struct usage_case {
    const char *args;
    int status;
    const char *err;
} usage_case;

static void expect_args(const char *dir, const char *args, int status, const char *err)
{
    tu_run r = tu_gpuidx(dir, "%s", args);
    if (r.status != status || strcmp(r.err, err) != 0 || r.out[0])
        fail_msg("gpuidx %s: exit %d, want %d\n got  %s\n want %s\n stdout %s", args, r.status,
                 status, r.err, err, r.out);
    tu_run_free(&r);
}

/* The same after "--db none.db". */
static void expect(const char *dir, const char *args, int status, const char *err)
{
    char line[1024];
    snprintf(line, sizeof line, "--db none.db %s", args);
    expect_args(dir, line, status, err);
}

static void test_same_mistake_same_message(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-usage");
    char line[512], want[512];
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        snprintf(line, sizeof line, "%s --nope", cmds[i].args);
        snprintf(want, sizeof want, "gpuidx: %s: unknown argument '--nope' (see gpuidx %s --help)\n",
                 cmds[i].cmd, cmds[i].topic);
        expect(dir, line, 2, want);
        /* --name=VALUE of an unknown option: the argument as given */
        snprintf(line, sizeof line, "%s --nope=1", cmds[i].args);
        snprintf(want, sizeof want,
                 "gpuidx: %s: unknown argument '--nope=1' (see gpuidx %s --help)\n", cmds[i].cmd,
                 cmds[i].topic);
        expect(dir, line, 2, want);
        if (cmds[i].valued) {
            snprintf(line, sizeof line, "%s %s", cmds[i].args, cmds[i].valued);
            snprintf(want, sizeof want, "gpuidx: %s: option '%s' needs a value\n", cmds[i].cmd,
                     cmds[i].valued);
            expect(dir, line, 2, want);
        }
        if (cmds[i].elsewhere) {
            snprintf(line, sizeof line, "%s %s=x", cmds[i].args, cmds[i].elsewhere);
            snprintf(want, sizeof want,
                     "gpuidx: %s: option '%s' does not apply here (see gpuidx %s --help)\n",
                     cmds[i].cmd, cmds[i].elsewhere, cmds[i].topic);
            expect(dir, line, 2, want);
        }
        /* the help it points to */
        tu_run r = tu_gpuidx(dir, "--db none.db %s --help", cmds[i].topic);
        if (r.status != 0 || strncmp(r.out, "usage: gpuidx ", 14) != 0 || r.err[0])
            fail_msg("gpuidx %s --help: exit %d, stdout %.40s, stderr %s", cmds[i].topic,
                     r.status, r.out, r.err);
        tu_run_free(&r);
    }
    char db[4096];
    snprintf(db, sizeof db, "%s/none.db", dir);
    if (access(db, F_OK) == 0) fail_msg("a usage error created %s", db);
    free(dir);
}

/* Positional arguments: where a command takes none, or only so many, the
 * next is unknown; "-" is a file where files are read; "--" ends the
 * options of ingest. */
static void test_positionals(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-usage-pos");
    static const usage_case cases[] = {
        {"grades drop A B", 2, "gpuidx: grades drop: unknown argument 'B' (see gpuidx grades drop --help)\n"},
        {"index build extra", 2,
         "gpuidx: index build: unknown argument 'extra' (see gpuidx index build --help)\n"},
        {"settle extra", 2, "gpuidx: settle: unknown argument 'extra' (see gpuidx settle --help)\n"},
        {"hedge analyze extra", 2,
         "gpuidx: hedge: unknown argument 'extra' (see gpuidx hedge analyze --help)\n"},
        {"cost curve extra", 2,
         "gpuidx: cost: unknown argument 'extra' (see gpuidx cost curve --help)\n"},
        {"simulate extra", 2,
         "gpuidx: simulate: unknown argument 'extra' (see gpuidx simulate --help)\n"},
        {"ingest - -", 2, "gpuidx: ingest: standard input (-) can be read once\n"},
        /* options only */
        {"ingest offers --strict", 2, "gpuidx: ingest: no input files (see gpuidx ingest --help)\n"},
        /* a key or raw files do not check a settlement: refused, never ignored */
        {"verify --settlement --contracts c.json --key k.pub pub", 2,
         "gpuidx: verify: --key and --inputs do not go with --settlement\n"},
        {"verify --settlement --contracts c.json --inputs raw pub", 2,
         "gpuidx: verify: --key and --inputs do not go with --settlement\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect(dir, cases[i].args, cases[i].status, cases[i].err);
    /* "--" ends ingest's options: "--help" after it is a file, not the help */
    tu_run r = tu_gpuidx(dir, "--db u.db ingest offers -- --help");
    assert_int_equal(r.status, 1);
    assert_string_equal(r.out, "--help: failed, nothing stored\n");
    tu_run_free(&r);
    free(dir);
}

/* The global options: each mistake in one form, exit 2, nothing on
 * stdout and no database created; the forms that work reach the command. */
static void test_global_options(void **state)
{
    (void)state;
    char *dir = tu_mkdtemp("e2e-usage-global");
    static const usage_case cases[] = {
        {"--nope index show", 2, "gpuidx: unknown option '--nope' (see gpuidx --help)\n"},
        {"--nope=1 index show", 2, "gpuidx: unknown option '--nope=1' (see gpuidx --help)\n"},
        {"--db none.db -x index show", 2, "gpuidx: unknown option '-x' (see gpuidx --help)\n"},
        {"--version=2", 2, "gpuidx: unknown option '--version=2' (see gpuidx --help)\n"},
        {"--db", 2, "gpuidx: option '--db' needs a value\n"},
        {"--data", 2, "gpuidx: option '--data' needs a value\n"},
        {"--db none.db --data", 2, "gpuidx: option '--data' needs a value\n"},
        {"--db '' index show", 2, "gpuidx: --db: empty path\n"},
        {"--db= index show", 2, "gpuidx: --db: empty path\n"},
        /* an empty data directory is no directory (it read /gpus.csv) */
        {"--data '' --db none.db index show", 2, "gpuidx: --data: empty path\n"},
        {"--data= --db none.db ingest x.csv", 2, "gpuidx: --data: empty path\n"},
        {"--db none.db bogus", 2, "gpuidx: unknown command 'bogus' (see gpuidx --help)\n"},
        /* after the command too (up to a "--"): as if given before it */
        {"index show --db none.db", 1,
         "gpuidx: index show: no database at none.db (ingest observations first, or pass --db)\n"},
        {"index show --db=none.db --data=/nonexistent", 1,
         "gpuidx: index show: no database at none.db (ingest observations first, or pass --db)\n"},
        {"index show --db", 2, "gpuidx: index: option '--db' needs a value\n"},
        {"index show --db ''", 2, "gpuidx: --db: empty path\n"},
        /* gpuidx help COMMAND: a command it does not know, with the nearest */
        {"help indx", 2, "gpuidx: help: no command 'indx'; did you mean index? (see gpuidx --help)\n"},
        {"help index bild", 2, "gpuidx: help: no command 'index bild'; did you mean index build, index? "
                               "(see gpuidx --help)\n"},
        /* both forms of a value reach the command; a later option wins */
        {"--db=none.db index show", 1,
         "gpuidx: index show: no database at none.db (ingest observations first, or pass --db)\n"},
        {"--db a.db --db none.db --data=/nonexistent index show", 1,
         "gpuidx: index show: no database at none.db (ingest observations first, or pass --db)\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        expect_args(dir, cases[i].args, cases[i].status, cases[i].err);
    static const char usage[] = "usage: gpuidx [--db PATH] [--data DIR] COMMAND [ARGS]\n";
    /* no command: the usage on stderr, exit 2 */
    tu_run r = tu_gpuidx(dir, "--db none.db");
    assert_int_equal(r.status, 2);
    assert_string_equal(r.out, "");
    assert_int_equal(strncmp(r.err, usage, strlen(usage)), 0);
    tu_run_free(&r);
    /* --help and -h anywhere among the global options, --version: stdout, 0 */
    static const char *const helps[] = {"--help", "-h", "--db none.db --help index show",
                                        "--data x -h"};
    for (size_t i = 0; i < sizeof helps / sizeof helps[0]; i++) {
        r = tu_gpuidx(dir, "%s", helps[i]);
        if (r.status != 0 || r.err[0] ||
            strncmp(r.out, usage, strlen(usage)) != 0)
            fail_msg("gpuidx %s: exit %d, stdout %.50s, stderr %s", helps[i], r.status, r.out,
                     r.err);
        tu_run_free(&r);
    }
    /* gpuidx help: the same top-level help; gpuidx help CMD and CMD --help:
     * that command alone; the top level lists every command's options */
    r = tu_gpuidx(dir, "help");
    assert_int_equal(r.status, 0);
    assert_int_equal(strncmp(r.out, usage, strlen(usage)), 0);
    assert_non_null(strstr(r.out, "\n  cost moves --deployments FILE --from D --to D [--every N]"));
    assert_non_null(strstr(r.out, "\n  settle --contracts FILE [--positions FILE --ledger FILE]"));
    assert_non_null(strstr(r.out, "\nglobal options (before the command, or after it):\n"));
    tu_run_free(&r);
    static const char *const one[][2] = {{"help index build", "index build --help"},
                                         {"help settle", "settle --help"},
                                         {"help cost moves", "cost moves --help"}};
    for (size_t i = 0; i < sizeof one / sizeof one[0]; i++) {
        r = tu_gpuidx(dir, "%s", one[i][0]);
        tu_run r2 = tu_gpuidx(dir, "%s", one[i][1]);
        if (r.status != 0 || r2.status != 0 || strcmp(r.out, r2.out) != 0)
            fail_msg("%s and %s differ:\n%s\n%s", one[i][0], one[i][1], r.out, r2.out);
        tu_run_free(&r2);
        /* that command alone: one usage form of it, none of its neighbours' */
        assert_int_equal(strncmp(r.out, "usage: gpuidx ", 14), 0);
        if (strstr(r.out, "gpuidx [--db PATH] index show") ||
            strstr(r.out, "gpuidx [--db PATH] cost curve"))
            fail_msg("%s shows other commands:\n%s", one[i][0], r.out);
        tu_run_free(&r);
    }
    r = tu_gpuidx(dir, "help index");
    assert_int_equal(r.status, 0);
    assert_non_null(strstr(r.out, "gpuidx [--db PATH] index show [--grade ID]"));
    assert_non_null(strstr(r.out, "gpuidx [--db PATH] index publish --date D"));
    tu_run_free(&r);
    r = tu_gpuidx(dir, "--db none.db --version --nope");
    assert_int_equal(r.status, 0);
    assert_string_equal(r.out, "gpuidx " GPUIDX_VERSION "\n");
    assert_string_equal(r.err, "");
    tu_run_free(&r);
    char db[4096];
    snprintf(db, sizeof db, "%s/none.db", dir);
    if (access(db, F_OK) == 0) fail_msg("a usage error created %s", db);
    free(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_same_mistake_same_message),
        cmocka_unit_test(test_positionals),
        cmocka_unit_test(test_global_options),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
