/* cli/cmd_simulate.c -- `gpuidx simulate`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_simulate(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'simulate' is not built yet in this version");
    return 1;
}
