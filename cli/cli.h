/* cli/cli.h -- the gpuidx program: argument parsing and printing only.
 *
 * main.c parses the global options (--db, --data, --help, --version) and
 * dispatches to one cmd_* function per command.  Commands parse their own
 * options, call the modules, print data to stdout and messages to stderr,
 * and return an exit code: 0 ok, 1 input or data error, 2 usage error.
 * All of them, main.c too, parse with the shared option parser below.
 */
#ifndef GPI_CLI_H
#define GPI_CLI_H

#include <stdio.h>

#include "core/gpi.h"
#include "index/index.h"
#include "store/store.h"

typedef struct cli_ctx {
    const char *db_path;    /* --db, $GPUIDX_DB, or ./gpuidx.db */
    const char *data_dir;   /* --data, or found by cli_data_dir() */
    const char *argv0;
    char data_buf[4096];   /* storage for a found data_dir */
    char db_buf[4096];     /* storage for a db_path made plain ("./" + it) */
} cli_ctx;

/* Directory of the shipped tables: --data, then $GPUIDX_DATA, then the
 * install prefix (<exe>/../share/gpuidx), then the source tree's data/. */
const char *cli_data_dir(cli_ctx *ctx);

/* Prints "gpuidx: <msg>" to stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Keeps freed memory in the process and, where the kernel gives huge
 * pages on request, the heap's first 32 MiB on them (cli/memory.c). */
void cli_tune_memory(void);

/* Formats a finite statistic with dp decimals, rounded once, halves away
 * from zero, after the binary error is corrected (gpi_double_to_units):
 * 5/16 at 3 decimals is "0.313", not printf's "0.312".  Values too large
 * for that (|v| 10^dp >= 10^12) fall back to printf.  Returns buf. */
const char *cli_num(char buf[32], double v, int dp);

/* True when the database exists; otherwise prints "CMD: no database at
 * PATH (...)" and returns 0.  Commands that only read (everything but
 * ingest) check this first, so a mistyped --db is an error (exit 1), not a
 * new empty database. */
int cli_have_db(const cli_ctx *ctx, const char *cmd);

/* ---- the shared option parser (cli/args.c) ----
 * Every command parses its arguments with cli_parse_args (or cli_parse,
 * its short form), so every command says the same of the same mistake,
 * on stderr, and returns 2:
 *   "CMD: unknown argument 'X' (see gpuidx TOPIC --help)"
 *   "CMD: option 'X' needs a value"
 *   "CMD: option 'X' does not apply here (see gpuidx TOPIC --help)"
 * The global options (cmd NULL) say "unknown option 'X' (see gpuidx
 * --help)" and "option 'X' needs a value".
 * -h or --help anywhere (not as an option's value) prints the help to
 * stdout and returns 0.  Options are "--name VALUE", "--name=VALUE" or a
 * bare "--name" (a flag); a later option wins. */

/* True when arg is -h or --help. */
int cli_is_help(const char *arg);

/* One option of a command: with flag set, a bare "--name" sets *flag = 1;
 * otherwise "--name VALUE" stores VALUE in *value (when value is set).
 * A spec list ends with {NULL}. */
typedef struct cli_opt_spec {
    const char *name;
    const char **value;
    int *flag;
} cli_opt_spec;

typedef struct cli_args cli_args;
struct cli_args {
    const char *cmd;          /* the messages' prefix: "ingest", "grades drop";
                                 NULL: the global options (no prefix) */
    const char *topic;        /* "(see gpuidx TOPIC --help)" */
    const char *help;         /* the command whose help -h/--help prints
                                 (cli/help.c: "index build"; "" the top level) */
    const cli_opt_spec *spec;
    /* Optional: called for each option found, after *value or *flag is
     * set, with its index in spec and its value (NULL for a flag).
     * Returns -1 to go on, else the command's exit code, having said why
     * (cli_not_here for an option of another subcommand). */
    int (*take)(const cli_args *a, int k, const char *value);
    void *ud;                 /* for take */
    /* Optional: the positional arguments ("-" is one) go to pos[0..max_pos),
     * their number to *n_pos; one more, or any when pos is NULL, is an
     * unknown argument. */
    const char **pos;
    int max_pos;
    int *n_pos;
    int dashdash;             /* 1: "--" ends the options */
    /* Optional (instead of pos): the first positional argument ends the
     * parse -- the command after the global options; its index goes to
     * *rest, argc when there is none. */
    int *rest;
};

/* Parses argv[1..argc).  Returns 0 after --help, 2 (or take's code) after
 * a usage error, -1 to go on. */
int cli_parse_args(int argc, char **argv, const cli_args *a);

/* cli_parse_args without positional arguments or take. */
int cli_parse(int argc, char **argv, const cli_opt_spec *spec, const char *cmd,
              const char *topic, const char *help);

/* Says "CMD: option 'NAME' does not apply here (see gpuidx TOPIC --help)";
 * returns 2. */
int cli_not_here(const cli_args *a, const char *name);

/* ---- help (cli/help.c: the one table of commands and options) ---- */

/* Prints the help of cmd ("index build": its usage lines and text; a
 * group, "index": its subcommands' usage lines; NULL or "": every
 * command's and the global options).  -1 (nothing printed) for an
 * unknown cmd. */
int cli_help_print(FILE *f, const char *cmd);
/* Prints only the usage lines of cmd (or of a group's subcommands). */
void cli_usage(FILE *f, const char *cmd);
/* `gpuidx help [COMMAND...]` (argv[0] "help"): the help of the words that
 * follow, or a did-you-mean; returns the exit code. */
int cli_help_command(int argc, char **argv);

/* ---- grade files and the published grade set (cli/gradeset.c) ---- */

/* Prints a grade file's notes ("gpuidx: note: ..."). */
void cli_print_notes(const idx_grades *gs);
/* Warns ("gpuidx: warning: ...") about filters that match no stored
 * observation (idx_grades_check with the data directory's tables). */
gpi_status cli_check_filters(cli_ctx *ctx, store *st, const idx_grades *gs, const char *name,
                             gpi_diag *d);
/* path, or DATA/grades.json written into buf. */
const char *cli_published_path(cli_ctx *ctx, const char *path, char buf[4096]);

typedef struct cli_gradeset {
    char path[4096];         /* the published grades file */
    idx_grades *gs;          /* its grades */
    const char **ids;        /* the published ones: not dropped (borrowed from gs) */
    const char **hashes;     /* their definitions' hashes (borrowed from gs) */
    size_t n;
    int *dropped;            /* per grade of gs */
} cli_gradeset;
/* Loads the published grades file (path, default DATA/grades.json) and,
 * with a store, marks the dropped grades.  Free with cli_gradeset_free. */
gpi_status cli_gradeset_load(cli_ctx *ctx, store *st, const char *path, cli_gradeset *out,
                             gpi_diag *d);
/* index + 1 of id in the file's grades, or 0. */
int cli_gradeset_has(const cli_gradeset *s, const char *id);
void cli_gradeset_free(cli_gradeset *s);
/* Up to three names close to want (case, a few edits, a prefix), ", "
 * separated, into out ("" when none). */
void cli_suggest(const char *want, const char *const *names, size_t n, char *out, size_t cap);
/* The grades of the database (st may be NULL) and of the published
 * grades file (ctx may be NULL) close to want (cli_suggest), into out (""
 * when none or unreadable). */
void cli_grades_near(cli_ctx *ctx, store *st, const char *want, char *out, size_t cap);
/* " (did you mean X?)" for a grade id the database does not have, or ""
 * (cli_grades_near); into out, which is returned. */
const char *cli_grade_hint(cli_ctx *ctx, store *st, const char *want, char *out, size_t cap);

int cmd_ingest(cli_ctx *ctx, int argc, char **argv);
int cmd_index(cli_ctx *ctx, int argc, char **argv);
int cmd_site(cli_ctx *ctx, int argc, char **argv);
int cmd_settle(cli_ctx *ctx, int argc, char **argv);
int cmd_hedge(cli_ctx *ctx, int argc, char **argv);
int cmd_cost(cli_ctx *ctx, int argc, char **argv);
int cmd_grades(cli_ctx *ctx, int argc, char **argv);
/* cmd_grades_set.c: list; drop (drop = 1) or restore (0) */
int cmd_grades_list(cli_ctx *ctx, int argc, char **argv);
int cmd_grades_drop_restore(cli_ctx *ctx, int argc, char **argv, int drop);
int cmd_simulate(cli_ctx *ctx, int argc, char **argv);
int cmd_verify(cli_ctx *ctx, int argc, char **argv);
int cmd_key(cli_ctx *ctx, int argc, char **argv);
int cmd_review(cli_ctx *ctx, int argc, char **argv);
int cmd_grades_stale(cli_ctx *ctx, int argc, char **argv); /* cmd_stale.c */
int cmd_curve(cli_ctx *ctx, int argc, char **argv);

#endif
