/* cli/curve_backtest.c -- `gpuidx curve backtest` (placeholder filled below). */
#include "cli/curve_cmd.h"

int cc_curve_backtest(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    (void)argc;
    (void)argv;
    cli_error("curve backtest: not yet");
    return 2;
}
