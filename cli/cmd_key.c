/* cli/cmd_key.c -- `gpuidx key new --out FILE`: an Ed25519 key pair to
 * sign publications with (publish/sign.c; METHODOLOGY.md §7.3).
 *
 * Argument parsing and printing only.  Prints the public key's
 * fingerprint on stdout; the private key stays in FILE (mode 0600), the
 * public key goes to FILE.pub for the readers who verify.
 */
#include "cli/cli.h"

#include <string.h>

#include "publish/publish.h"

int cmd_key(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    if (argc < 2 || cli_is_help(argv[1])) {
        cli_help_print(argc < 2 ? stderr : stdout, "key");
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "new") != 0) {
        cli_error("key: unknown subcommand '%s' (new)", argv[1]);
        return 2;
    }
    const char *out = NULL;
    const cli_opt_spec spec[] = {{"--out", &out, NULL}, {NULL, NULL, NULL}};
    int ec = cli_parse(argc - 1, argv + 1, spec, "key new", "key new", "key new");
    if (ec >= 0) return ec;
    if (!out) {
        cli_error("key new: --out FILE is required");
        return 2;
    }
    gpi_diag d = {{0}};
    char fp[65];
    gpi_status rc = pub_key_new(out, fp, &d);
    if (rc != GPI_OK) {
        cli_error("key new: %s", d.msg);
        return gpi_exit_code(rc);
    }
    printf("%s\n", fp);
    fprintf(stderr, "key new: private key %s, public key %s.pub\n", out, out);
    return 0;
}
