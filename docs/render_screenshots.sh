#!/usr/bin/env bash
# Re-render docs/summary.png and docs/plan.png from the 12-month programme example:
# procure writes the workbook, LibreOffice prints it to PDF, pdftoppm turns the pages into PNGs.
# Needs: procure installed, soffice (LibreOffice Calc) and pdftoppm (poppler-utils).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
procure solve "$here/../examples/programme-12-months.yaml" --out "$work/report.xlsx" > /dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf --outdir "$work" "$work/report.xlsx" > /dev/null
page_of() {  # first page whose text starts with $1
  local n
  n=$(pdfinfo "$work/report.pdf" | awk '/^Pages:/ {print $2}')
  for ((i = 1; i <= n; i++)); do
    if pdftotext -f "$i" -l "$i" "$work/report.pdf" - | head -1 | grep -q "^$1"; then echo "$i"; return; fi
  done
  echo "no page starts with '$1'" >&2; exit 1
}
s=$(page_of "in-house 7B model programme")
p=$(page_of "Plan per workload")
pdftoppm -png -r 80 -f "$s" -l "$s" -singlefile "$work/report.pdf" "$here/summary"
pdftoppm -png -r 80 -f "$p" -l "$p" -singlefile "$work/report.pdf" "$here/plan"
echo "wrote $here/summary.png (page $s) and $here/plan.png (page $p)"
# docs/analysis.png: the Sensitivity sheet (tornado chart and table) of `procure analyze`
procure analyze "$here/../examples/programme-12-months.yaml" --sensitivity --out "$work/analysis.xlsx" > /dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf --outdir "$work" "$work/analysis.xlsx" > /dev/null
pdftoppm -png -r 110 -f 1 -l 1 -x 30 -y 40 -W 1240 -H 560 -singlefile "$work/analysis.pdf" "$here/analysis"
echo "wrote $here/analysis.png"
