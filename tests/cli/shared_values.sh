#!/usr/bin/env bash
# Machine files that share a calibrated machine's value (`# shared: <machine>`) carry
# its current value: configs/sync-shared.py --check finds none out of date.
set -u
command -v python3 >/dev/null 2>&1 || { echo "SKIP: python3 not found"; exit 77; }
python3 "${CLEARSIM_SOURCE_DIR:?}/configs/sync-shared.py" --check
