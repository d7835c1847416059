/* cli/cmd_ingest.c -- `gpuidx ingest`.  PLACEHOLDER: not built yet. */
#include "cli/cli.h"

int cmd_ingest(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("'ingest' is not built yet in this version");
    return 1;
}
