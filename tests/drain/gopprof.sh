#!/usr/bin/env bash
# Runs `go tool pprof ARGS...` offline: private HOME/GOCACHE in a temporary directory, no module
# proxy, no symbol server (PPROF_BINARY_PATH is only what the caller sets).
set -u
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
HOME=$tmp GOCACHE=$tmp/cache GOPATH=$tmp/go GOPROXY=off GOFLAGS= PPROF_TMPDIR=$tmp \
  go tool pprof "$@"
