/* cli/cmd_hedge.c -- `gpuidx hedge`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_hedge(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'hedge' is not built yet in this version");
    return 1;
}
