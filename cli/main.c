/* cli/main.c -- entry point: the global options (on the shared option
 * parser, cli/args.c, up to the first argument that is not an option: the
 * command) and command dispatch. */
#include "cli/cli.h"

#include <gsl/gsl_errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"

static const char usage[] =
    "usage: gpuidx [--db PATH] [--data DIR] COMMAND [ARGS]\n"
    "\n"
    "GPU-compute rental-price index and futures settlement engine.\n"
    "\n"
    "commands:\n"
    "  ingest offers|trades [--source NAME] [--rejects FILE] [--strict]\n"
    "                       [--admit-providers] FILE...   (.gz read as is; - is stdin)\n"
    "  ingest FILE...                 files with a kind column\n"
    "  index build [--grades FILE] --from D --to D [--as-of T]\n"
    "  index show [--grade ID] [--from D] [--to D]\n"
    "  index publish --date D --out DIR [--grades FILE] [--sign KEY]\n"
    "  site --out DIR [--grades FILE]\n"
    "  settle --contracts FILE [--positions FILE] [--through D] [--latest]\n"
    "  hedge analyze --rent FILE --grade ID [--freq day|week|month] [--json]\n"
    "  hedge simulate --rent FILE --grade ID [--side payer|earner] [--ratio auto|X] ...\n"
    "  hedge compare --rent FILE --grades FILE\n"
    "  cost curve --deployments FILE [--date D] [--workload W] [--operator NAME] ...\n"
    "  cost days|moves --deployments FILE [--from D] [--to D] ...\n"
    "  grades evaluate [--grades FILE] --from D --to D\n"
    "  grades list | drop ID | restore ID\n"
    "  simulate --days N --seed S --out DIR\n"
    "  verify [--strict] [--key PUB] [--inputs RAW] DIR/D... | DIR\n"
    "                                 recompute published days from their files\n"
    "  verify --settlement --contracts FILE [--against FILE] DIR\n"
    "  key new --out FILE             an Ed25519 key pair to sign publications\n"
    "  review --from D --to D --out DIR   the periodic review report\n"
    "\n"
    "global options:\n"
    "  --db PATH      database file (default $GPUIDX_DB, else ./gpuidx.db)\n"
    "  --data DIR     normalization tables and default grades (default: found\n"
    "                 next to the install prefix or in the source tree)\n"
    "  -h, --help     this help; `gpuidx COMMAND --help` for a command\n"
    "  --version      print the version\n"
    "\n"
    "exit status: 0 ok, 1 input or data error, 2 usage error.\n";

void cli_error(const char *fmt, ...)
{
    va_list ap;
    fputs("gpuidx: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
}

const char *cli_num(char buf[32], double v, int dp)
{
    double lim = 1e12; /* gpi_double_to_units keeps 12 significant digits */
    for (int i = 0; i < dp && i < 12; i++) lim /= 10;
    if (dp >= 0 && dp <= 12 && fabs(v) < lim)
        gpi_fixed_format(gpi_double_to_units(v, dp), dp, buf);
    else
        snprintf(buf, 32, "%.*f", dp, v);
    return buf;
}

int cli_have_db(const cli_ctx *ctx, const char *cmd)
{
    if (access(ctx->db_path, F_OK) == 0) return 1;
    cli_error("%s: no database at %s (ingest observations first, or pass --db)", cmd,
              ctx->db_path);
    return 0;
}

static int is_dir(const char *p)
{
    struct stat sb;
    return stat(p, &sb) == 0 && S_ISDIR(sb.st_mode);
}

const char *cli_data_dir(cli_ctx *ctx)
{
    char *buf = ctx->data_buf;
    if (ctx->data_dir) return ctx->data_dir;
    const char *env = getenv("GPUIDX_DATA");
    if (env && *env) return ctx->data_dir = env;
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        char *slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(buf, sizeof ctx->data_buf, "%s/../share/gpuidx", exe);
            if (is_dir(buf)) return ctx->data_dir = buf;
        }
    }
    snprintf(buf, sizeof ctx->data_buf, "%s/share/gpuidx", GPUIDX_PREFIX);
    if (is_dir(buf)) return ctx->data_dir = buf;
    snprintf(buf, sizeof ctx->data_buf, "%s/data", GPUIDX_SRCDIR);
    if (is_dir(buf)) return ctx->data_dir = buf;
    return ctx->data_dir = "data";
}

enum { OPT_DB, OPT_DATA, OPT_VERSION };

/* --version prints the version and ends the parse (exit 0) where it stands. */
static int take_global(const cli_args *a, int k, const char *value)
{
    (void)a;
    (void)value;
    if (k != OPT_VERSION) return -1;
    printf("gpuidx %s\n", GPUIDX_VERSION);
    return 0;
}

int main(int argc, char **argv)
{
    cli_prefer_huge_pages(argv);
    cli_tune_memory();
    gsl_set_error_handler_off();
    store_library_init();
    cli_ctx ctx = {NULL, NULL, argv[0], {0}, {0}};
    const char *env = getenv("GPUIDX_DB");
    ctx.db_path = env && *env ? env : "gpuidx.db";
    int version = 0, i = argc;
    const cli_opt_spec spec[] = {[OPT_DB] = {"--db", &ctx.db_path, NULL},
                                 [OPT_DATA] = {"--data", &ctx.data_dir, NULL},
                                 [OPT_VERSION] = {"--version", NULL, &version},
                                 {NULL, NULL, NULL}};
    const cli_args args = {.cmd = NULL, .help = usage, .spec = spec, .take = take_global,
                           .rest = &i};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    if (i >= argc) {
        fputs(usage, stderr);
        return 2;
    }
    /* the database is a file: SQLite would take "" and ":memory:" for a
     * database that vanishes on exit, and "file:..." for a URI */
    if (!*ctx.db_path) {
        cli_error("--db: empty path");
        return 2;
    }
    /* an empty data directory would be read as the root: "/gpus.csv" */
    if (ctx.data_dir && !*ctx.data_dir) {
        cli_error("--data: empty path");
        return 2;
    }
    if (strcmp(ctx.db_path, ":memory:") == 0 || strncmp(ctx.db_path, "file:", 5) == 0) {
        if (snprintf(ctx.db_buf, sizeof ctx.db_buf, "./%s", ctx.db_path) >= (int)sizeof ctx.db_buf) {
            cli_error("--db: path too long");
            return 2;
        }
        ctx.db_path = ctx.db_buf;
    }
    static const struct {
        const char *name;
        int (*fn)(cli_ctx *, int, char **);
    } cmds[] = {
        {"ingest", cmd_ingest}, {"index", cmd_index},   {"site", cmd_site},
        {"settle", cmd_settle}, {"hedge", cmd_hedge},   {"grades", cmd_grades},
        {"simulate", cmd_simulate}, {"cost", cmd_cost},     {"verify", cmd_verify},
        {"key", cmd_key},       {"review", cmd_review},
    };
    for (size_t k = 0; k < sizeof cmds / sizeof cmds[0]; k++)
        if (strcmp(argv[i], cmds[k].name) == 0) {
            int rc = cmds[k].fn(&ctx, argc - i, argv + i);
            /* output that never reached stdout (a full disk) fails the
             * command; a command that failed has said why already */
            if ((fflush(stdout) != 0 || ferror(stdout)) && rc == 0) {
                cli_error("stdout: write failed");
                rc = 1;
            }
            return rc;
        }
    cli_error("unknown command '%s' (see gpuidx --help)", argv[i]);
    return 2;
}
