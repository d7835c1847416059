#!/bin/sh
# tools/hedge_real_rents.sh -- six real renters' rent histories, built from
# the real SkyPilot catalogue (../shared/data/real), and the observations a
# hedge comparison needs, into a work folder.  Nothing of the real data is
# ever written into the repository: run it on a scratch folder.
#
#   sh tools/hedge_real_rents.sh REAL_DIR OUT_DIR
#
# Writes into OUT_DIR:
#   obs.csv          the catalogue's T4, A100, H100 and V100 offers since
#                    2022-11-01 (of T4 and V100 the spot ones: no grade
#                    or rent here reads the others), canonical format;
#   rent_<name>.csv  one renter each (CSV date,price,quantity, USD per
#                    GPU-hour and GPU-hours a day), its description as
#                    "# key: value" header lines (gpu, term, scope,
#                    provider, region, instance_type, zone).
#
# The renters (issue 27): each pays one offer's price every day it is
# listed, per GPU (the catalogue prices whole instances: the price is
# divided by the instance's GPUs), for its GPUs all day:
#   t4        AWS g4dn.xlarge, T4 spot, zone use1-az1 (10 GPUs)
#   p4d       AWS p4d.24xlarge, A100 40GB spot, zone use1-az6 (one instance)
#   p5spot    AWS p5.48xlarge, H100 spot, zone use1-az5 (one instance)
#   lambda80  Lambda gpu_8x_a100_80gb_sxm4, A100 80GB on-demand, us-east-1
#   lambdah   Lambda gpu_1x_h100_pcie, H100 PCIe on-demand, us-east-1
#   p5od      AWS p5.48xlarge, H100 on-demand, zone use1-az5: a flat price
# The zone is read from the offer id, <instance type>@<zone>/<count>x/<term>.
set -eu
REAL=${1:?usage: hedge_real_rents.sh REAL_DIR OUT_DIR}
OUT=${2:?usage: hedge_real_rents.sh REAL_DIR OUT_DIR}
mkdir -p "$OUT"
zcat "$REAL/skypilot_offers_canonical.csv.gz" |
    awk -F, 'NR == 1 || ($7 ~ /^(T4|A100|H100|V100)/ && $7 != "T4g" && $3 >= "2022-11-01" &&
             !($7 ~ /^(T4|V100)/ && $14 != "spot"))' >"$OUT/obs.csv"

# rent NAME OFFER_ID GPUS GPU_HOURS_A_DAY "key: value" ...
rent() {
    name=$1 id=$2 gpus=$3 hours=$4
    shift 4
    {
        for kv in "$@"; do printf '# %s\n' "$kv"; done
        echo "date,price,quantity"
        awk -F, -v id="$id" -v g="$gpus" -v q="$hours" \
            '$2 == id { printf "%s,%.6f,%s\n", $3, $10 / g, q }' "$OUT/obs.csv"
    } >"$OUT/rent_$name.csv"
    [ "$(wc -l <"$OUT/rent_$name.csv")" -gt 20 ] || {
        echo "hedge_real_rents: $id: too few rows in $REAL" >&2
        exit 1
    }
}

rent t4 "g4dn.xlarge@use1-az1/1x/spot" 1 240 "gpu: T4" "term: spot" "scope: vm" \
    "provider: aws" "region: us-east-1" "instance_type: g4dn.xlarge" "zone: use1-az1"
rent p4d "p4d.24xlarge@use1-az6/8x/spot" 8 192 "gpu: A100-SXM-40GB" "term: spot" "scope: vm" \
    "provider: aws" "region: us-east-1" "instance_type: p4d.24xlarge" "zone: use1-az6"
rent p5spot "p5.48xlarge@use1-az5/8x/spot" 8 192 "gpu: H100-SXM-80GB" "term: spot" "scope: vm" \
    "provider: aws" "region: us-east-1" "instance_type: p5.48xlarge" "zone: use1-az5"
rent lambda80 "gpu_8x_a100_80gb_sxm4@us-east-1/8x/on-demand" 8 192 "gpu: A100-SXM-80GB" \
    "term: on-demand" "scope: vm" "provider: lambda" "region: us-east-1" \
    "instance_type: gpu_8x_a100_80gb_sxm4"
rent lambdah "gpu_1x_h100_pcie@us-east-1/1x/on-demand" 1 24 "gpu: H100-PCIE-80GB" \
    "term: on-demand" "scope: vm" "provider: lambda" "region: us-east-1" \
    "instance_type: gpu_1x_h100_pcie"
rent p5od "p5.48xlarge@use1-az5/8x/on-demand" 8 192 "gpu: H100-SXM-80GB" "term: on-demand" \
    "scope: vm" "provider: aws" "region: us-east-1" "instance_type: p5.48xlarge" "zone: use1-az5"
