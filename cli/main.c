/* cli/main.c -- entry point: the global options (on the shared option
 * parser, cli/args.c, up to the first argument that is not an option: the
 * command; --db and --data are also taken after the command, up to a
 * "--"), `gpuidx help`, and command dispatch.  Every help text is
 * cli/help.c's. */
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

/* --db PATH and --data DIR (or --db=PATH, --data=DIR) after the command,
 * up to a "--": taken as if given before it and removed from argv (the
 * command's own parser never sees them).  Returns -1 to go on, else an
 * exit code. */
static int globals_after(int *argc_io, char **argv, int cmd, cli_ctx *ctx)
{
    int argc = *argc_io, w = cmd + 1;
    for (int r = cmd + 1; r < argc; r++) {
        const char *a = argv[r];
        if (strcmp(a, "--") == 0) {
            while (r < argc) argv[w++] = argv[r++];
            break;
        }
        const char **slot = strncmp(a, "--db", 4) == 0 && (a[4] == '\0' || a[4] == '=')
                                ? &ctx->db_path
                            : strncmp(a, "--data", 6) == 0 && (a[6] == '\0' || a[6] == '=')
                                ? &ctx->data_dir
                                : NULL;
        if (!slot) {
            argv[w++] = argv[r];
            continue;
        }
        const char *eq = strchr(a, '=');
        if (eq) {
            *slot = eq + 1;
        } else if (r + 1 < argc) {
            *slot = argv[++r];
        } else {
            cli_error("%s: option '%s' needs a value", argv[cmd], a);
            return 2;
        }
    }
    argv[w] = NULL;
    *argc_io = w;
    return -1;
}

int main(int argc, char **argv)
{
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
    const cli_args args = {.cmd = NULL, .help = "", .spec = spec, .take = take_global,
                           .rest = &i};
    int ec = cli_parse_args(argc, argv, &args);
    if (ec >= 0) return ec;
    if (i >= argc) {
        cli_help_print(stderr, "");
        return 2;
    }
    if (strcmp(argv[i], "help") == 0) return cli_help_command(argc - i, argv + i);
    if ((ec = globals_after(&argc, argv, i, &ctx)) >= 0) return ec;
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
        {"curve", cmd_curve},
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
