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

static const char help[] =
    "usage: gpuidx key new --out FILE\n"
    "\n"
    "Writes an Ed25519 key pair: the private key to FILE (PEM, mode 0600) and\n"
    "the public key to FILE.pub; neither file may exist.  `gpuidx index publish\n"
    "--sign FILE` signs each new vintage with it; give FILE.pub to the readers\n"
    "(`gpuidx verify --key FILE.pub`).  Prints the key's fingerprint (the SHA-256\n"
    "of the raw public key), which every signed index.json names.  Keep FILE\n"
    "out of the database folder and the publication folder.\n"
    "\n"
    "exit status: 0 ok, 1 the files could not be written, 2 usage error.\n";

int cmd_key(cli_ctx *ctx, int argc, char **argv)
{
    (void)ctx;
    if (argc < 2 || cli_is_help(argv[1])) {
        fputs(help, argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    if (strcmp(argv[1], "new") != 0) {
        cli_error("key: unknown subcommand '%s' (new)", argv[1]);
        return 2;
    }
    const char *out = NULL;
    const cli_opt_spec spec[] = {{"--out", &out, NULL}, {NULL, NULL, NULL}};
    int ec = cli_parse(argc - 1, argv + 1, spec, "key new", "key", help);
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
