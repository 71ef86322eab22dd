#!/usr/bin/env bash
# Re-render the workbook screenshots in docs/:
#   summary.png, plan.png   Summary and Plan pages of the 12-month programme example
#   summary-charts.png      the Summary's charts (their own page when the head above is tall)
#   summary-buy.png         Summary page of the same programme with buying as the only mode (> 1 M USD)
#   summary-zh.png          Summary page of the negotiated-quotes workbook in Chinese (--lang zh-CN)
#   analysis.png            the Sensitivity sheet of `procure analyze`
# procure writes the workbook, LibreOffice prints it to PDF, pdftoppm turns the pages into PNGs.
# Needs: procure installed, soffice (LibreOffice Calc) and pdftoppm/pdftotext (poppler-utils).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
procure solve "$here/../examples/programme-12-months.yaml" --out "$work/report.xlsx" > /dev/null
procure solve "$here/programme-buy-only.yaml" --out "$work/buy.xlsx" > /dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf --outdir "$work" "$work/report.xlsx" "$work/buy.xlsx" > /dev/null
page_of() {  # first page of $1 whose text starts with $2
  local n
  n=$(pdfinfo "$1" | awk '/^Pages:/ {print $2}')
  for ((i = 1; i <= n; i++)); do
    if pdftotext -f "$i" -l "$i" "$1" - | sed -n 1p | grep -q "^$2"; then echo "$i"; return; fi
  done
  echo "no page of $1 starts with '$2'" >&2; exit 1
}
s=$(page_of "$work/report.pdf" "in-house 7B model programme")
p=$(page_of "$work/report.pdf" "Plan per workload")
b=$(page_of "$work/buy.pdf" "in-house 7B model programme")
pdftoppm -png -r 80 -f "$s" -l "$s" -singlefile "$work/report.pdf" "$here/summary"
# the Summary's charts start the next page when its head leaves them too little room (printed whole, never cut)
c=$(page_of "$work/report.pdf" "Total cost of ownership by")
pdftoppm -png -r 80 -f "$c" -l "$c" -x 0 -y 0 -W 935 -H 260 -singlefile "$work/report.pdf" "$here/summary-charts"
pdftoppm -png -r 80 -f "$p" -l "$p" -singlefile "$work/report.pdf" "$here/plan"
pdftoppm -png -r 80 -f "$b" -l "$b" -singlefile "$work/buy.pdf" "$here/summary-buy"
echo "wrote $here/summary.png (page $s), $here/plan.png (page $p) and $here/summary-buy.png (page $b)"
# docs/summary-zh.png: the Summary of the negotiated-quotes workbook in Chinese (--lang zh-CN; needs fonts-noto-cjk)
procure solve "$here/../examples/negotiated-quotes.yaml" --lang zh-CN --quiet --out "$work/报告.xlsx" > /dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf --outdir "$work" "$work/报告.xlsx" > /dev/null
z=$(page_of "$work/报告.pdf" "negotiated quotes, 7B programme")
pdftoppm -png -r 80 -f "$z" -l "$z" -singlefile "$work/报告.pdf" "$here/summary-zh"
echo "wrote $here/summary-zh.png (page $z)"
# docs/analysis.png: the Sensitivity sheet (tornado chart and table) of `procure analyze`
procure analyze "$here/../examples/programme-12-months.yaml" --sensitivity --out "$work/analysis.xlsx" > /dev/null
soffice --headless "-env:UserInstallation=file://$work/profile" --convert-to pdf --outdir "$work" "$work/analysis.xlsx" > /dev/null
pdftoppm -png -r 110 -f 1 -l 1 -x 30 -y 40 -W 1240 -H 560 -singlefile "$work/analysis.pdf" "$here/analysis"
echo "wrote $here/analysis.png"
