/* cli/cmd_settle.c -- `gpuidx settle`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_settle(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'settle' is not built yet in this version");
    return 1;
}
