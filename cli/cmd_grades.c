/* cli/cmd_grades.c -- `gpuidx grades evaluate`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_grades(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'grades evaluate' is not built yet in this version");
    return 1;
}
