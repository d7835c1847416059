/* cli/args.c -- the shared option parser (contract in cli/cli.h).
 *
 * One loop for every command and for the global options before the
 * command (cli/main.c), so that the same mistake gets the same message and
 * exit code 2 everywhere.  An argument is, in this order: -h/--help; "--"
 * when the command allows it (everything after it is positional); an
 * option of the spec ("--name", "--name=VALUE" or "--name VALUE"); a
 * positional argument when the command takes them ("-" is one), or the
 * command itself where the first positional ends the options; otherwise
 * unknown.
 */
#include "cli/cli.h"

#include <string.h>

int cli_is_help(const char *arg)
{
    return strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0;
}

/* The value of option `name` at argv[*i] ("--name VALUE" or
 * "--name=VALUE"); advances *i.  NULL when argv[*i] is not this option;
 * sets *missing when the value is absent. */
static const char *cli_opt(int argc, char **argv, int *i, const char *name, int *missing)
{
    size_t n = strlen(name);
    const char *a = argv[*i];
    *missing = 0;
    if (strncmp(a, name, n) != 0) return NULL;
    if (a[n] == '=') return a + n + 1;
    if (a[n] != '\0') return NULL;
    if (*i + 1 >= argc) {
        *missing = 1;
        return NULL;
    }
    (*i)++;
    return argv[*i];
}

int cli_not_here(const cli_args *a, const char *name)
{
    cli_error("%s: option '%s' does not apply here (see gpuidx %s --help)", a->cmd, name,
              a->topic);
    return 2;
}

static int unknown(const cli_args *a, const char *arg)
{
    if (!a->cmd) /* before the command, where only options stand */
        cli_error("unknown option '%s' (see gpuidx --help)", arg);
    else
        cli_error("%s: unknown argument '%s' (see gpuidx %s --help)", a->cmd, arg, a->topic);
    return 2;
}

int cli_parse_args(int argc, char **argv, const cli_args *a)
{
    int opts_done = 0;
    if (a->n_pos) *a->n_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        if (!opts_done && cli_is_help(arg)) {
            cli_help_print(stdout, a->help);
            return 0;
        }
        if (!opts_done && a->dashdash && strcmp(arg, "--") == 0) {
            opts_done = 1;
            continue;
        }
        int k = 0, missing = 0;
        const char *v = NULL;
        for (; !opts_done && a->spec[k].name; k++) {
            const cli_opt_spec *o = &a->spec[k];
            if (o->flag) {
                if (strcmp(arg, o->name) != 0) continue;
                *o->flag = 1;
                break;
            }
            if (!(v = cli_opt(argc, argv, &i, o->name, &missing)) && !missing) continue;
            if (missing) {
                cli_error("%s%soption '%s' needs a value", a->cmd ? a->cmd : "",
                          a->cmd ? ": " : "", arg);
                return 2;
            }
            if (o->value) *o->value = v;
            break;
        }
        if (!opts_done && a->spec[k].name) {
            int rc = a->take ? a->take(a, k, v) : -1;
            if (rc >= 0) return rc;
            continue;
        }
        int dash = !opts_done && arg[0] == '-' && arg[1] != '\0';
        if (!dash && a->rest) {
            *a->rest = i;
            return -1;
        }
        if (dash || !a->pos || *a->n_pos >= a->max_pos) return unknown(a, arg);
        a->pos[(*a->n_pos)++] = arg;
    }
    if (a->rest) *a->rest = argc;
    return -1;
}

int cli_parse(int argc, char **argv, const cli_opt_spec *spec, const char *cmd,
              const char *topic, const char *help)
{
    const cli_args a = {cmd, topic, help, spec, NULL, NULL, NULL, 0, NULL, 0, NULL};
    return cli_parse_args(argc, argv, &a);
}
