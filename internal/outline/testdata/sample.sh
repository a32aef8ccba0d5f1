#!/usr/bin/env bash
set -euo pipefail

usage() {
  cat <<EOF
fake() {
EOF
}

function build {
  go build ./...
}

deploy_all () {
  build
}

# notafunction() {
main() { usage; }
main "$@"
