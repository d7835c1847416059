/* cli/help.c -- the one table of what each command takes and does.
 *
 * Every help gpuidx prints comes from the table below: `gpuidx --help`
 * and `gpuidx help` (every command's usage lines), `gpuidx help index`
 * and `gpuidx index --help` (the usage lines of a group), `gpuidx help
 * index build` and `gpuidx index build --help` (that subcommand alone:
 * its usage lines and its text), and the usage lines after a usage error.
 * A command's options are written once, in its `forms`; adding an option
 * is one edit here (and the command's parser).
 *
 * An entry: the command's words ("index build"), whether it takes --db
 * (the usage line shows "[--db PATH]"), its forms (the arguments after
 * the command's words, one form a line: a command with two ways of being
 * called has two), and its text (empty for none).  Entries of one group
 * are next to each other; the group's summary is made of them.
 */
#include "cli/cli.h"

#include <string.h>

#include "index/index.h"
#include "sim/sim.h"

typedef struct help_entry {
    const char *cmd;
    int db;
    const char *forms;
    const char *text;
} help_entry;

static const help_entry table[] = {
    {"ingest", 1,
     "offers|trades [--source NAME] [--rejects FILE] [--strict] [--admit-providers]\n"
     "    [--complete] FILE...\n"
     "[--source NAME] [--rejects FILE] [--strict] [--admit-providers] [--complete] FILE...\n"
     "--regroup",
     "Reads observation files (canonical CSV, or JSON: .json array, .ndjson/.jsonl one\n"
     "object per line; gzip files are read as they are, and - is standard input),\n"
     "normalizes them through the tables in the data directory (gpus.csv,\n"
     "providers.csv, tiers.csv, fx.csv, skus.csv) and stores them.  Without\n"
     "offers|trades every row needs a kind column.\n"
     "\n"
     "  --source NAME      feed name for rows without a source column (default: the\n"
     "                     file name; \"stdin\" for -)\n"
     "  --rejects FILE     also write rejected rows as CSV: file,line,column,reason,raw_row\n"
     "  --strict           exit 1 when any row is rejected\n"
     "  --admit-providers  store rows of providers that providers.csv does not list,\n"
     "                     each as its own group, with one warning per new name\n"
     "                     (default: such rows are rejected, with the nearest known name)\n"
     "  --complete         the CSV files are whole: read a last line that has no line\n"
     "                     end (default: it is held back with a warning, as the line\n"
     "                     a writer may still be appending to; the file's hash covers\n"
     "                     its complete lines, and the finished file stores the rest)\n"
     "  --regroup          (no files) move the stored rows whose provider name\n"
     "                     providers.csv now gives another provider, group or\n"
     "                     segment to those (after an alias was added); one\n"
     "                     transaction, recorded as a batch, so builds and\n"
     "                     publications see the days it changed as late data\n"
     "\n"
     "Each file is one transaction.  A file whose SHA-256 was already ingested is\n"
     "skipped.  A row that cannot be normalized is rejected (rejects table, stderr,\n"
     "--rejects) and the rest of the file is stored; a structurally broken file\n"
     "(unbalanced quote, invalid JSON, no header, missing required column) stores\n"
     "nothing and makes the exit status 1, but the other files are still ingested.\n"
     "On a terminal, a large file's progress is shown on stderr.\n"
     "\n"
     "Prints per file: PATH: read R, stored S, duplicates D, rejected X\n"
     "Exit status: 0 ok, 1 a file failed (or rejects with --strict), 2 usage.\n"},
    {"index build", 1, "[--grades FILE] --from YYYY-MM-DD --to YYYY-MM-DD [--as-of TIME]",
     "Computes every grade's daily rows (METHODOLOGY.md) from the stored\n"
     "observations ingested at or before --as-of (default now), for days from\n"
     "2000-01-01 to 2099-12-31, one transaction a day (a killed build is completed\n"
     "by running it again).  Grades come from --grades (default DATA/grades.json,\n"
     "the published grades file), less the grades dropped with `gpuidx grades\n"
     "drop`; a grade that names no \"method\" is computed with method "
     IDX_METHOD_DEFAULT_NAME " (the\n"
     "default; the shipped grades name theirs).  Later days already built are\n"
     "re-evaluated when they depend on the rebuilt ones.  Grades of another file\n"
     "are candidates: they are stored for `index show`, `hedge` and `settle`,\n"
     "never published; a candidate may not reuse the id of a published grade with\n"
     "another definition.  A grade with \"max_unchanged_days\": M takes only fresh\n"
     "offers: an offer whose price has stood more than M days (looked up at most\n"
     "M + 15 days back; absent days do not reset it) is listed as excluded,\n"
     "\"price unchanged longer than max_unchanged_days\", and counts nowhere\n"
     "(METHODOLOGY.md §12.1; `grades stale` shows the coverage it leaves).  Method\n"
     "v1 and v3 grades only: a v2 grade that sets it is refused.  Warns about\n"
     "filters that match no stored observation, and prints each grade's days per\n"
     "level.  On a terminal, a long build's progress is shown on stderr.  A\n"
     "published day whose rows are older than observations ingested since (late\n"
     "data) is built again too (the range starts there, and the build says so),\n"
     "and every published day whose built rows are no longer its latest vintage\n"
     "is named with the restatement or revision publishing it again would make.\n"
     "A stored chain state that is damaged or another grade's is refused, said,\n"
     "and the chain replayed.\n"},
    {"index show", 1, "[--grade ID] [--from D] [--to D]",
     "Prints the stored rows as CSV (the index.csv format); the vintage column\n"
     "names the latest vintage that published the row's value, empty when none\n"
     "did.\n"},
    {"index publish", 1,
     "--date D --out DIR [--grades FILE] [--sign KEY] [--contracts FILE --futures FILE]\n"
     "  [--restate]\n"
     "--from D --to D --out DIR [--grades FILE] [--sign KEY] [--contracts FILE --futures FILE]\n"
     "  [--restate]\n"
     "--restate --out DIR [--grades FILE] [--sign KEY]",
     "Writes DIR/D/index.csv, index.json, observations.csv, datapackage.json and\n"
     "DIR/D/v<n>/ for vintage n, and DIR/restatements.csv, for the published\n"
     "grade set: the grades of --grades FILE (default DATA/grades.json) that are\n"
     "not dropped.  index.json records the file's SHA-256 (grades_sha256), the\n"
     "ingested files the fixes could see (inputs) and, with --sign KEY (a private\n"
     "key of `gpuidx key new`), the key's fingerprint; a new vintage is then\n"
     "signed (DIR/D/signature.json, Ed25519 over its files' SHA-256).  The key is\n"
     "never stored or published.  A new vintage (file format 4) also has\n"
     "curve.csv and curve.json, each grade's 1-36 month term curve of the day\n"
     "(METHODOLOGY.md \"Term curve\"; index.json names their SHA-256, so the\n"
     "signature covers them); with --contracts FILE and --futures FILE\n"
     "(settlement prices: date,symbol,settlement_price) the prices of the\n"
     "contracts on a grade are inputs of its curve.  To publish grades of your\n"
     "own, give their file: --grades FILE.  Each day is said on stderr as it is\n"
     "written.\n"
     "A day built before late data reached it is refused (build it again), and so\n"
     "is a day whose new rows are computed from published days that late data left\n"
     "behind; every such published day is named with the restatement it would\n"
     "make.  --restate first builds again the published days late data reached and\n"
     "publishes every published day whose rows changed, in order (the daily job:\n"
     "index publish --date D --out DIR --restate).\n"},
    {"site", 1,
     "--out DIR [--grades FILE] [--deployments FILE] [--accuracy FILE] [--admin FILE] "
     "[--curve-backtest FILE]",
     "Writes DIR/index.html (one page, inline SVG charts: each grade's series\n"
     "with its p25-p75 band, the level of each day marked, suspended days\n"
     "shaded; no JavaScript, no network), DIR/<grade>.csv, each grade's\n"
     "history in the index.csv format (DIR/datapackage.json describes them),\n"
     "and DIR/statement.html, the benchmark\n"
     "statement: per grade what it measures, its data thresholds, fallback\n"
     "waterfall, restatement policy and what happens when data is insufficient,\n"
     "from the definitions stored with the values, and a back-test (days per\n"
     "level, restatements) -- for the published grade set: the grades of\n"
     "--grades FILE (default DATA/grades.json) that are not dropped.  With\n"
     "--deployments FILE (the format of `gpuidx cost`), the page also shows each\n"
     "workload's cost curve on the last day its deployments cover.  With\n"
     "--accuracy FILE (bench/accuracy's accuracy.csv) the statement also shows\n"
     "each grade's error against the demo market's true price and the planted\n"
     "pusher's effect.  Each grade's term curve of its last day is drawn against\n"
     "those of one and three months before (as published: curve.csv), and the\n"
     "statement describes the curve's method; --curve-backtest FILE (`gpuidx curve\n"
     "backtest --csv`) adds its back-test table.\n"
     "The statement ends with the IOSCO Principles, one row each:\n"
     "what the administrator states in --admin FILE (default\n"
     "DATA/administration.json, the shipped example, marked as such; \"not stated\n"
     "by the administrator\" where an entry is missing) and what the published\n"
     "files show.  The latest review report in DIR (review-*.md, `gpuidx review\n"
     "--out DIR`) is linked from it.\n"},
    {"settle", 1,
     "--contracts FILE [--positions FILE --ledger FILE] [--through YYYY-MM-DD] [--latest]",
     "Daily and final settlement prices of the contracts in FILE (METHODOLOGY.md,\n"
     "\"Futures settlement\"), as CSV date,symbol,settlement_price,kind on stdout\n"
     "(kind daily, final, insufficient; under a contract's fallback fallback-daily,\n"
     "fallback-final, suspended).\n"
     "\n"
     "  --contracts FILE   contract file {\"contracts\": [{\"symbol\", \"grade\", \"month\",\n"
     "                     \"size\", \"tick\", \"min_published_days\", \"fsp_days\",\n"
     "                     \"fallback\"}, ...], \"holidays\": [...]}; fsp_days\n"
     "                     \"calendar\" (default) or \"business\" (Monday-Friday less\n"
     "                     the holidays: only those days' values count and get a\n"
     "                     price); fallback {\"rule\": \"grade\" (with \"grade\": ID),\n"
     "                     \"last_value\" or \"suspend\", \"after_days\": N (default 3)}:\n"
     "                     what the contract settles on once its grade has had no\n"
     "                     value (dropped or suspended) for more than N days\n"
     "  --positions FILE   CSV account,symbol,contracts[,entry_price]; with --ledger\n"
     "  --ledger FILE      the variation-margin ledger of the positions (integer\n"
     "                     cents), as CSV date,account,symbol,contracts,\n"
     "                     settlement_price,variation_margin_cents\n"
     "  --through D        settle up to day D (default: the end of each delivery month)\n"
     "  --latest           use restated index values (default: as first published)\n"
     "\n"
     "Each contract settles as far as its index is built; stderr says per contract:\n"
     "settled (final price), provisional (month not over, or not built to its end),\n"
     "insufficient (too few values in the month) or suspended (under its fallback),\n"
     "with the reason, and, when its grade ceased, from when its fallback applies.\n"
     "\n"
     "exit status: 0 ok (whatever each contract's status), 1 input or data error,\n"
     "2 usage error.\n"},
    {"hedge analyze", 1,
     "--rent FILE --grade ID [--freq day|week|month] [--window N] [--latest] [--json] "
     "[--svg FILE]",
     "How well futures on grade ID would have hedged the rent in FILE (CSV\n"
     "date,price[,quantity], USD per GPU-hour; dates YYYY-MM-DD or ISO timestamps,\n"
     "taken as their UTC day).  Rent and index are aggregated to --freq (default\n"
     "month; weeks are ISO, Monday start) and aligned on periods present in both.\n"
     "Reports the minimum-variance hedge ratio h on changes, hedge effectiveness,\n"
     "levels and robust fits, basis risk, the regression and dollar-offset tests,\n"
     "Newey-West se, rolling h (--window periods, default 12) and horizons 1-3,\n"
     "and out of sample: the walk-forward effectiveness (each period hedged at the\n"
     "h fitted before it), a block-bootstrap interval of h (GSL mt19937, seed 1)\n"
     "and whether h held at the largest index move.  Index values as first\n"
     "published (--latest: restated).  --svg FILE writes a chart.  The rent file\n"
     "is read, never stored.\n"},
    {"hedge simulate", 1,
     "--rent FILE --grade ID [--side payer|earner] [--strategy roll|strip|all] "
     "[--months N] [--start YYYY-MM] [--ratio auto|X] [--min-changes N] [--size N] "
     "[--exposure N] [--contracts FILE] [--forward FILE] [--min-days N] [--latest] [--json] "
     "[--svg FILE]",
     "Replays the rent month by month with futures on grade ID: payers buy,\n"
     "earners sell (default payer) h x exposure / size contracts (size default\n"
     "1000 GPU-hours, a multiple of 100), cash-settled at each month's final\n"
     "settlement price (FSP: mean of its index values rounded to 0.0001;\n"
     "--min-days values needed, default 15).\n"
     "  --strategy roll  (default) each month is hedged at the end of the month\n"
     "                   before, entered at that month's FSP;\n"
     "  --strategy strip at the end of the month before a strip, the futures of\n"
     "                   its --months months (default 12) are all entered at that\n"
     "                   month's FSP; strips follow one another from --start\n"
     "                   (default: the first month that can be entered);\n"
     "  --strategy all   both, then a side-by-side table.\n"
     "--forward FILE (CSV month,price) gives the entry price of each delivery\n"
     "month instead of the FSP of the month of entry; without it a strip locks\n"
     "each month at the term curve's forward for it on the strip's entry day\n"
     "(gpuidx curve; a month the curve withholds at the FSP of the month of\n"
     "entry; with --contracts rounded half-up to the tick).  Headline: the budget\n"
     "error, effective price - price locked at entry (entry + basis at entry),\n"
     "unhedged and hedged.  --ratio auto (default) fits h on the months before\n"
     "each entry; with fewer than --min-changes monthly changes (default 12) or a\n"
     "fit <= 0 the month is not hedged (the reason is printed); a fit above 2 is\n"
     "capped at 2.  A fixed --ratio X runs and says when it contradicts the fit.\n"
     "--contracts FILE sizes the futures on a contract file's terms (size, tick,\n"
     "calendar or business-day average, min_published_days: its contract on the\n"
     "grade, else its first -- another grade's terms, which the output says) and\n"
     "adds the cash settled, the residual basis in dollars and what rounding to\n"
     "whole contracts cost.\n"
     "Exposure: the quantity of the month of entry, or --exposure GPU-hours a\n"
     "month.  --svg FILE draws rent, index (FSP), locked and hedged prices and\n"
     "the budget errors per month.\n"},
    {"hedge compare", 1,
     "--rent FILE [--grades FILE | --grade ID...] [--suggest] [--include-own] [--gpu MODEL] "
     "[--term T] [--scope S] [--region R] [--provider P] [--instance-type I] [--zone Z] "
     "[--freq day|week|month] [--window N] [--min-changes N] [--latest] [--json] "
     "[--svg FILE]",
     "Analyzes the rent against each grade (ids from the grades JSON file, or\n"
     "--grade repeated) and ranks them as hedges: only grades with at least\n"
     "--min-changes changes (default 12), a rent that moved on 3 of them, a\n"
     "positive h and an effectiveness of 1% or more, in sample and out of sample\n"
     "(walk-forward), that are not largely your own price, are ranked, by the\n"
     "low end of the 95% interval of their hedge effectiveness; a fit that holds\n"
     "in sample only is never recommended.  Grades given are called published\n"
     "only when in the published grade set (DATA/grades.json less dropped\n"
     "grades), else candidates.  Each grade shows its out-of-sample (walk-forward)\n"
     "effectiveness, a bootstrap interval of h and whether h held at the largest\n"
     "index move.  --gpu MODEL (the rent's GPU, e.g. A100 or A100-SXM-80GB)\n"
     "flags grades of another GPU.  With --provider (and --region,\n"
     "--instance-type, --zone as far as known) your own quotes are found in each\n"
     "grade: how much of its fix they supply, and its fit without them.\n"
     "--suggest also builds grades around the rent -- its GPU and term; + scope;\n"
     "+ provider; + region; + instance type; the instance type in every region;\n"
     "every provider but the renter's -- in the published grades' style, leaving\n"
     "your own quotes out (--include-own keeps them), computes their values from\n"
     "the stored observations (to the last day of data) without writing\n"
     "anything, and ranks them with the rest.  What is rented comes from the\n"
     "options above or from '# key: value' lines of the rent file (keys gpu,\n"
     "term, scope, region, provider, instance_type, zone); --suggest needs the GPU.\n"
     "--svg FILE draws the effectiveness of each grade with its 95% interval and\n"
     "its out-of-sample figure.  Ends with one verdict line.\n"},
    {"cost days", 1,
     "--deployments FILE [--from D] [--to D] [--operator NAME] [--grades FILE] "
     "[--latest] [--csv | --json]",
     "USD per million acceptable output tokens for every deployment and day of FILE\n"
     "(clipped to --from/--to): price per GPU-hour / (tokens/s x 3600 x acceptance)\n"
     "x 1e6, with the price from the grade's index value of the day (as first\n"
     "published; --latest: restated) or the row's own rent.  With other_cost and\n"
     "api_price columns: the cost with other costs, the rent's share of it, and\n"
     "the margin against the API list price (never an input to the cost).\n"
     "Days whose grade has no value (suspended, not built) are listed as such.\n"},
    {"cost curve", 1,
     "--deployments FILE [--date D] [--workload W] [--latency T] [--grade ID] "
     "[--capacity tokens|gpus] [--operator NAME] [--grades FILE] [--latest] "
     "[--csv | --json] [--svg FILE]",
     "The cost curve of one workload (and latency target) on day D (default: the\n"
     "last day its deployments cover): deployments sorted by cost per acceptable\n"
     "token against cumulative capacity (acceptable output tokens/s, or GPUs), each\n"
     "with its rank and its distance to the cheapest and to the capacity-weighted\n"
     "median.  --grade keeps the peers on one grade; --operator adds where that\n"
     "operator stands.  --svg FILE writes the chart.\n"},
    {"cost moves", 1,
     "--deployments FILE --from D --to D [--every N] [--workload W] [--latency T] "
     "[--grade ID] [--capacity tokens|gpus] [--operator NAME] [--grades FILE] "
     "[--latest] [--csv | --json]",
     "How each producer's position on the curve moved over the range: the curve on\n"
     "every N-th day (default 1) and on --to; per producer its first and last rank\n"
     "and cost, the cost change split into the index (GPU-hour price) effect and\n"
     "the throughput (tokens/s x acceptance) effect, and whether it improved and\n"
     "whether it fell back against its peers.  --csv / --json: every sampled day.\n"},
    {"grades evaluate", 1,
     "[--grades FILE] --from YYYY-MM-DD --to YYYY-MM-DD [--as-of TIME] [--json | --csv] "
     "[--no-split] [--curve]",
     "Evaluates candidate grades (default DATA/grades.json) on the stored\n"
     "observations with the index methodology, without building them: per\n"
     "grade the share of days at each level, mean providers per day, the\n"
     "top-provider share and HHI of the level used (trade volume on trades\n"
     "days, offer counts on offers days), the volatility of daily log changes\n"
     "of the value (sd and x sqrt(365)), the largest move one provider could\n"
     "cause (leave-one-provider-out), what one new participant must add to move\n"
     "the value one tick and 1 %, the price level (median, min, max) and the\n"
     "market's spread around it, providers per day with a value, the months a\n"
     "monthly future could settle, and the correlation of daily changes between\n"
     "grades with its sample sizes (pairs with >= 10 common change days, >= 5\n"
     "on which both moved; the matrix up to 64 grades, beyond that each grade's\n"
     "most correlated one), the final settlement price's change from month to\n"
     "month, and the provider segments: a grade whose segments' median prices\n"
     "stand at least 2x apart on most days is bimodal, and its segment-only\n"
     "grades (id + .HYP, .NEO, .MKT, ...) are evaluated after it; per calendar\n"
     "month of a v3 grade, the largest move of its final settlement price one\n"
     "participant can cause by withdrawing, printing or entering (METHODOLOGY.md\n"
     "section 11.4; --json: fsp.moves).  Filters that\n"
     "match no stored observation are warned about.  Days from 2000-01-01 to\n"
     "2099-12-31.  A grade that names no \"method\" is evaluated with method\n"
     IDX_METHOD_DEFAULT_NAME " (the default).\n"
     "\n"
     "  --as-of TIME   use observations ingested at or before TIME (default now)\n"
     "  --json         one JSON object\n"
     "  --csv          one CSV row per grade (the segment-only grades after the\n"
     "                 file's, with split_of)\n"
     "  --no-split     do not evaluate the segment-only grades (one pass)\n"
     "  --curve        also each grade's term curve (METHODOLOGY.md \"Term curve\"):\n"
     "                 on how many of its days with a value it would have a curve,\n"
     "                 how many tenors (of 36) have a forward (mean, most), how many\n"
     "                 are fitted (an input ends there), and each tenor's days\n"
     "                 (the file's grades; a segment-only grade's columns empty)\n"},
    {"grades list", 1, "[--grades FILE]",
     "Every grade of the published grades file (--grades, default\n"
     "DATA/grades.json) and of the database: published, candidate (built from\n"
     "another file: never published) or dropped; the days built, with a value\n"
     "and published, and the definition hash.\n"},
    {"grades drop", 1, "ID",
     "Stops building, publishing and showing grade ID (its rows and published\n"
     "vintages stay); `gpuidx grades restore ID` undoes it.\n"},
    {"grades restore", 1, "ID", "Undoes `gpuidx grades drop ID`.\n"},
    {"grades stale", 1,
     "[--grades FILE] --from D --to D [--repeat-days N] [--max-unchanged-days M] [--as-of T] "
     "[--json]",
     "Stale and repeating inputs of each grade over the range, from the stored\n"
     "offers (trades are never carried forward):\n"
     "  - the stale share: per day, the share of the provider groups whose every\n"
     "    offer's price has stood 30 days or more; its mean and its last value;\n"
     "  - the groups whose prices never changed in the range;\n"
     "  - each feed (source and group) whose rows repeated the day before's,\n"
     "    byte for byte but for the time, for N days in a row (--repeat-days,\n"
     "    default 30): flagged, with its longest run;\n"
     "  - coverage: the days with at least min_providers groups, with every offer\n"
     "    and with only offers whose price has stood at most M days (the grade's\n"
     "    max_unchanged_days, else --max-unchanged-days, default 30).\n"
     "Nothing is written.\n"},
    {"simulate", 0,
     "--days N --seed S --out DIR [--start YYYY-MM-DD] [--scale K] [--grade ID] "
     "[--truth FILE] [--no-push]",
     "Writes a synthetic but realistic GPU rental market into DIR:\n"
     "  offers.csv       daily offer snapshots (canonical CSV, stable ids, tier column)\n"
     "  trades.csv       trades with quantity, buyer and status\n"
     "  term_offers.csv  reservations of 1 to 24 months and forward starts (offers,\n"
     "                   with starts_on) on the demo's true term structure\n"
     "  rent_payer.csv   an example rent history of a payer (date,price,quantity)\n"
     "  rent_earner.csv  an example rent history of an earner\n"
     "  contracts.json   monthly futures contracts on the months of the run\n"
     "  positions.csv    a zero-net book of positions on those contracts\n"
     "  deployments.csv  example inference deployments for `gpuidx cost`\n"
     "The same options give byte-identical files.  Every provider of the market\n"
     "is in the shipped data/providers.csv: the market ingests as it is.\n"
     "\n"
     "  --days N      days to simulate (1..3660)\n"
     "  --seed S      random seed (unsigned integer)\n"
     "  --out DIR     output directory (created if missing)\n"
     "  --start D     first day (default 2025-01-01)\n"
     "  --scale K     multiply regions and trades by K (1..1000, default 1;\n"
     "                about 750 x K observations a day: K = 37 gives ~10 million a year)\n"
     "  --grade ID    grade of the example contracts (default " SIM_DEFAULT_GRADE ")\n"
     "  --truth FILE  also write the market's true prices: the model's expected\n"
     "                trades, one per offer key and day, at the key's noise-free\n"
     "                price with its expected GPU-hours (canonical trades CSV,\n"
     "                source \"truth\"); a grade built on them alone with its\n"
     "                defences off is its true price (see bench/accuracy); and\n"
     "                beside it (FILE without .csv, then -curve.csv) the true term\n"
     "                structure: per day, GPU and tenor 1..36 the term rate and the\n"
     "                monthly forward relative to the GPU's on-demand level\n"
     "  --no-push     leave out the off-market trades of the provider that pushes\n"
     "                the H100 grade (Nimbus Compute); every other row is the same\n"},
    {"verify", 0,
     "[--strict] [--key PUB] [--inputs RAW] [--max-file-mib N] DIR/YYYY-MM-DD...\n"
     "[--strict] [--key PUB] [--inputs RAW] [--max-file-mib N] DIR\n"
     "--settlement --contracts FILE [--symbol S] [--through D] [--against FILE] DIR",
     "Recomputes every fix of the published days from their files alone (index.json,\n"
     "index.csv, observations.csv; no database): the receipt (the grade definition\n"
     "against grade_hash, the grade's lines of observations.csv against their SHA-256),\n"
     "index.csv against index.json, the screen, the statistics, the level, the\n"
     "adjustment, the carry, the value and, for methodology v2, the matched\n"
     "relative, the chain, the anchor and the splice.  What a day took from other\n"
     "days (the chain of the day before, reference and base prices, the\n"
     "adjustment's days, the anchor's window) is checked against those days when\n"
     "DIR has them.  DIR alone verifies every day published in it.  A day of file\n"
     "format 4 also has its term curves (curve.csv, curve.json): their SHA-256 in\n"
     "index.json, and each grade's curve recomputed from its published inputs and\n"
     "the day's fix, the inputs' references against observations.csv.\n"
     "Every kept vintage (DIR/D/v<n>/) is checked like the current files (which must\n"
     "be the latest vintage's), against the other days as they were published when\n"
     "it was; then, from file format 4, its links to the vintage and the day before,\n"
     "index.csv's hash, the day's grade list and its inputs against the receipts;\n"
     "with DIR alone, restatements.csv against the vintages, and every change of a\n"
     "published value against it.\n"
     "\n"
     "Prints per grade and day: ok; ok with what is not verifiable without a day DIR\n"
     "does not have; or DIFFERS and the first difference, naming the field.\n"
     "\n"
     "  --strict          a grade-day that is not fully verifiable fails too\n"
     "  --key PUB         the publisher's public key (gpuidx key new's FILE.pub): every\n"
     "                    day must be signed by it (signature.json over the files'\n"
     "                    SHA-256); a missing signature, a changed file, a wrong key\n"
     "                    and a bad signature each fail the day, named.  Without it a\n"
     "                    signed day is reported signed and its file hashes checked,\n"
     "                    an unsigned one as unsigned (valid).  DIR's\n"
     "                    restatements.csv is checked the same way\n"
     "                    (restatements.signature.json)\n"
     "  --inputs RAW      re-ingest the raw files each day commits to (index.json\n"
     "                    \"inputs\", file format 4; found in folder RAW by SHA-256,\n"
     "                    symbolic links followed) into a scratch store and check\n"
     "                    that each grade's published observations are exactly the\n"
     "                    eligible ones at its cut-off (a dropped or added\n"
     "                    observation fails, named), and recompute each row's\n"
     "                    stale share and confidence flag from them\n"
     "  --settlement      the daily and final settlement prices of the contracts in\n"
     "                    --contracts (or the one --symbol) from the values of the\n"
     "                    published days as first published (DIR/D/v1/), as CSV\n"
     "                    date,symbol,settlement_price,kind; with --against FILE (the\n"
     "                    output of gpuidx settle) each price is compared instead; the\n"
     "                    days settled on are verified too (a difference exits 1)\n"
     "  --through D       settle up to day D (any day: a contract not listed by then\n"
     "                    has nothing to verify)\n"
     "  --max-file-mib N  read published files of at most N MiB (default 128); a\n"
     "                    bigger file, and anything that is not a regular file (a\n"
     "                    FIFO, a device), is refused\n"
     "\n"
     "exit status: 0 every fix recomputes, 1 a difference (or unreadable files, or\n"
     "with --strict a fix not fully verifiable), 2 usage error.\n"},
    {"curve", 1,
     "--date D [--to D] [--grade ID]... [--grades FILE] [--csv | --json] "
     "[--contracts FILE --futures FILE]",
     "The term curve of each grade of the published grade set (or the --grade\n"
     "ones) on day D (to --to): per tenor 1..36 months the term rate (the average\n"
     "rent locked for that many months) and the monthly forward, fitted to the day's\n"
     "reserved and forward-start quotes restated to the grade, with the grade's fix\n"
     "as the front; a tenor the inputs do not support is withheld with the reason\n"
     "(METHODOLOGY.md \"Term curve\", docs/curve.md).  The fix and the cut-off are\n"
     "the stored index row's: build the days first.  `gpuidx curve backtest` tests\n"
     "the curves against what they forecast.\n"
     "\n"
     "  --csv             curve.csv lines\n"
     "                    (date,grade,tenor,term_rate,forward,status,reason)\n"
     "  --json            curve.json (every input with its restatement and residual)\n"
     "  --contracts FILE  with --futures FILE (CSV date,symbol,settlement_price and\n"
     "                    optionally kind: gpuidx settle's output, or an exchange's):\n"
     "                    the settlement prices of the contracts on each grade are\n"
     "                    inputs too\n"},
    {"curve backtest", 1,
     "--from D --to D [--grade ID]... [--grades FILE] [--truth FILE [--truth-values FILE]] "
     "[--csv]",
     "Each day's term curve of the range (at the stored fixes) against what it\n"
     "forecast: for each tenor k, the forward for the month k months ahead against\n"
     "the realised monthly final settlement price of that month (the mean of the\n"
     "grade's values, at least 15), bias (mean of forward / realised - 1) and RMSE\n"
     "by tenor; values after --to count as realised when built.  With --truth FILE\n"
     "(the true term structure `gpuidx simulate --truth` writes beside its true\n"
     "prices) also against the simulator's true curve at the day's fix (the curve's\n"
     "shape), and with --truth-values FILE (`index show` of a database of the true\n"
     "prices, bench/curve) at the grade's true price (shape and level), with the\n"
     "share of forwards within 3 %.  A grade of more than one GPU has no true curve.\n"},
    {"key new", 0, "--out FILE",
     "Writes an Ed25519 key pair: the private key to FILE (PEM, mode 0600) and\n"
     "the public key to FILE.pub; neither file may exist.  `gpuidx index publish\n"
     "--sign FILE` signs each new vintage with it; give FILE.pub to the readers\n"
     "(`gpuidx verify --key FILE.pub`).  Prints the key's fingerprint (the SHA-256\n"
     "of the raw public key), which every signed index.json names.  Keep FILE\n"
     "out of the database folder and the publication folder.\n"
     "\n"
     "exit status: 0 ok, 1 the files could not be written, 2 usage error.\n"},
    {"review", 1,
     "--from D --to D --out DIR [--grades FILE] [--repeat-days N] [--as-of T]",
     "Writes the periodic review report a benchmark committee reads, per grade of\n"
     "--grades FILE (default DATA/grades.json): data sufficiency and its trend\n"
     "(first and second half of the range), concentration, the manipulation\n"
     "figures and their trend, the stale share and the feeds repeating their rows\n"
     "for N days (--repeat-days, default 30), segment bimodality (the lab's\n"
     "provider segments), the carried and suspended days with their reasons,\n"
     "restatements, and a recommendation -- keep, widen, split or retire -- with\n"
     "the figures behind it.  DIR/review-FROM-TO.md and DIR/review-FROM-TO.json;\n"
     "`gpuidx site --out DIR` links the latest one from statement.html.  Nothing is\n"
     "written to the database.\n"},
};
enum { N_ENTRIES = sizeof table / sizeof table[0] };

static const char intro[] =
    "usage: gpuidx [--db PATH] [--data DIR] COMMAND [ARGS]\n"
    "\n"
    "GPU-compute rental-price index and futures settlement engine.\n"
    "\n"
    "commands:\n";

static const char globals[] =
    "\n"
    "global options (before the command, or after it):\n"
    "  --db PATH      database file (default $GPUIDX_DB, else ./gpuidx.db)\n"
    "  --data DIR     normalization tables and default grades (default: found\n"
    "                 next to the install prefix or in the source tree)\n"
    "  -h, --help     this help; `gpuidx help COMMAND` (or `gpuidx COMMAND --help`)\n"
    "                 for one command\n"
    "  --version      print the version\n"
    "\n"
    "exit status: 0 ok, 1 input or data error, 2 usage error.\n";

/* The entry named cmd (case as written), or NULL. */
static const help_entry *find(const char *cmd)
{
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (strcmp(table[i].cmd, cmd) == 0) return &table[i];
    return NULL;
}

/* 1 when entry e belongs to group g ("index" for "index build"). */
static int in_group(const help_entry *e, const char *g)
{
    size_t n = strlen(g);
    return strncmp(e->cmd, g, n) == 0 && (e->cmd[n] == ' ' || e->cmd[n] == '\0');
}

/* Writes text from p of length n, breaking it into lines of at most
 * `width` columns at blanks outside [...] and not between an option and
 * its value, continued lines indented by `indent`; `col` columns are used
 * already.  Returns the column where it ends. */
static size_t wrap(FILE *f, const char *p, size_t n, size_t col, size_t indent, size_t width)
{
    size_t i = 0;
    int first = 1;
    while (i < n) {
        while (i < n && p[i] == ' ') i++;
        size_t j = i;
        int depth = 0;
        while (j < n && (p[j] != ' ' || depth > 0)) {
            if (p[j] == '[') depth++;
            if (p[j] == ']' && depth > 0) depth--;
            j++;
        }
        if (j == i) break;
        /* "--to YYYY-MM-DD": an option and its value stay on one line */
        if (p[i] == '-' && p[i + 1] == '-' && j + 1 < n && p[j] == ' ' && p[j + 1] != '-' &&
            p[j + 1] != '[')
            for (j++; j < n && p[j] != ' '; j++)
                ;
        size_t w = j - i;
        if (!first && col + 1 + w > width) {
            fprintf(f, "\n%*s", (int)indent, "");
            col = indent;
        } else if (!first) {
            fputc(' ', f);
            col++;
        }
        fwrite(p + i, 1, w, f);
        col += w;
        i = j;
        first = 0;
    }
    return col;
}

/* One form of e: "PREFIX gpuidx [--db PATH] CMD FORM", wrapped. */
static void usage_line(FILE *f, const char *prefix, const help_entry *e, const char *form,
                       size_t len)
{
    char head[128];
    int n = snprintf(head, sizeof head, "%sgpuidx %s%s ", prefix, e->db ? "[--db PATH] " : "",
                     e->cmd);
    fputs(head, f);
    size_t indent = (size_t)n <= 40 ? (size_t)n : 11;
    wrap(f, form, len, (size_t)n, indent, 79);
    fputc('\n', f);
}

/* The usage lines of e ("usage: " on the first of all, first is 1). */
static void usage_lines(FILE *f, const help_entry *e, int *first)
{
    const char *p = e->forms;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        usage_line(f, *first ? "usage: " : "       ", e, p, len);
        *first = 0;
        if (!nl) break;
        p = nl + 1;
    }
}

/* Joins argv-style words into "index build" (at most cap bytes). */
static void join(char *out, size_t cap, int n, char **words)
{
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        size_t l = strlen(out);
        snprintf(out + l, cap - l, "%s%s", i ? " " : "", words[i]);
    }
}

int cli_help_print(FILE *f, const char *cmd)
{
    if (!cmd || !*cmd) {
        fputs(intro, f);
        for (size_t i = 0; i < N_ENTRIES; i++) {
            const char *p = table[i].forms;
            for (;;) {
                const char *nl = strchr(p, '\n');
                size_t len = nl ? (size_t)(nl - p) : strlen(p);
                int n = fprintf(f, "  %s ", table[i].cmd);
                wrap(f, p, len, (size_t)n, (size_t)n, 79);
                fputc('\n', f);
                if (!nl) break;
                p = nl + 1;
            }
        }
        fputs(globals, f);
        return 0;
    }
    const help_entry *e = find(cmd);
    if (e) {
        int first = 1;
        usage_lines(f, e, &first);
        if (e->text[0]) fprintf(f, "\n%s", e->text);
        return 0;
    }
    int first = 1, any = 0;
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (in_group(&table[i], cmd)) {
            usage_lines(f, &table[i], &first);
            any = 1;
        }
    if (!any) return -1;
    fprintf(f, "\n`gpuidx help %s SUBCOMMAND` (or `gpuidx %s SUBCOMMAND --help`) for one of them.\n",
            cmd, cmd);
    return 0;
}

void cli_usage(FILE *f, const char *cmd)
{
    int first = 1;
    const help_entry *e = find(cmd);
    if (e) {
        usage_lines(f, e, &first);
        return;
    }
    for (size_t i = 0; i < N_ENTRIES; i++)
        if (in_group(&table[i], cmd)) usage_lines(f, &table[i], &first);
}

int cli_help_command(int argc, char **argv)
{
    char cmd[128];
    join(cmd, sizeof cmd, argc - 1, argv + 1);
    if (cli_help_print(stdout, cmd) == 0) return 0;
    const char *names[N_ENTRIES + 8];
    size_t n = 0;
    for (size_t i = 0; i < N_ENTRIES; i++) names[n++] = table[i].cmd;
    static const char *const groups[] = {"index", "hedge", "cost", "grades", "key"};
    for (size_t i = 0; i < sizeof groups / sizeof groups[0]; i++) names[n++] = groups[i];
    char near[256];
    cli_suggest(cmd, names, n, near, sizeof near);
    cli_error("help: no command '%s'%s%s%s (see gpuidx --help)", cmd,
              near[0] ? "; did you mean " : "", near, near[0] ? "?" : "");
    return 2;
}
