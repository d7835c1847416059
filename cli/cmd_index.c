/* cli/cmd_index.c -- `gpuidx index build/show/publish`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_index(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'index build/show/publish' is not built yet in this version");
    return 1;
}
