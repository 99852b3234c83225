#!/bin/bash
# SPDX-License-Identifier: MIT
# make demo: profile the bundled workload from outside, print the jit.p-style
# report and write a flame graph next to it.
#
# The workload runs on the LuaJIT already installed, if any; else on
# Debian's, extracted into .deps/ (apt-get download + dpkg -x): installing
# the luajit package would remove nginx's Lua module on hosts that have it.
set -eu
cd "$(dirname "$0")/.."

SECS=5
if LUAJIT=$(command -v luajit); then
	echo "== using the installed LuaJIT: $LUAJIT"
else
	echo "== no LuaJIT installed: extracting Debian's into .deps/luajit-deb (nothing is installed)"
	tests/deps/setup-luajit.sh deb
	LUAJIT=$PWD/tests/bin/luajit
fi
"$LUAJIT" tests/workloads/demo.lua 60 >/dev/null &
target=$!
trap 'kill $target 2>/dev/null; wait $target 2>/dev/null || true' EXIT
sleep 1	# let it warm up: luabpfprof attaches to a process already running

echo "== luajit tests/workloads/demo.lua is running as PID $target"
echo "== sudo ./luabpfprof -p $target -d $SECS"
# The flame graph comes from a second profiler on the same target.
./luabpfprof -p "$target" -d "$SECS" -o demo.svg 2>/dev/null &
svg=$!
./luabpfprof -p "$target" -d "$SECS"
wait $svg
echo "== flame graph: $PWD/demo.svg (open it in a browser)"
