#!/usr/bin/env bash
# Builds the Windows doctor: one static dlready.exe, cross-compiled with Debian's mingw-w64
# (scripts/setup.sh installs g++-mingw-w64-x86-64-posix), zipped as dist/dlready-windows-x86_64.zip.
# usage: scripts/build-windows.sh
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v x86_64-w64-mingw32-g++-posix >/dev/null; then
  echo "build-windows: x86_64-w64-mingw32-g++-posix not found: run scripts/setup.sh (it installs g++-mingw-w64-x86-64-posix)" >&2
  exit 3
fi
cmake -S . -B build/windows -DCMAKE_TOOLCHAIN_FILE=cmake/mingw-w64-x86_64.cmake -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/windows -j "$(nproc)"
x86_64-w64-mingw32-strip build/windows/dlready.exe
mkdir -p dist
rm -f dist/dlready-windows-x86_64.zip
(cd build/windows && cmake -E tar cf ../../dist/dlready-windows-x86_64.zip --format=zip dlready.exe)
echo "build-windows: dist/dlready-windows-x86_64.zip ($(stat -c %s build/windows/dlready.exe) bytes dlready.exe)"
