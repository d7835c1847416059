/* cli/cmd_site.c -- `gpuidx site`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_site(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'site' is not built yet in this version");
    return 1;
}
