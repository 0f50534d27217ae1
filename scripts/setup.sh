# Sourced by run.sh and test.sh: installs what is missing (Debian 12 / Ubuntu 24.04), then
# configures and builds into build/. Needs the CUDA toolkit (nvcc) from NVIDIA.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

packages=(cmake ninja-build pkg-config g++ libglfw3-dev libglm-dev libimgui-dev libstb-dev python3-glad
          nlohmann-json3-dev libcli11-dev libgtest-dev libegl1 libgl1-mesa-dri xvfb libxtst-dev
          libpng-dev zlib1g-dev libdeflate-dev libisal-dev libopenexr-dev libmpfr-dev libopenmpi-dev openmpi-bin)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [[ $(id -u) == 0 ]]; then sudo=""
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then sudo="sudo"
  else
    echo "mandelpipe: missing packages; run: sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  echo "mandelpipe: installing ${missing[*]}" >&2
  $sudo apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

nvcc=$(command -v nvcc || true)
[[ -z $nvcc && -x /usr/local/cuda/bin/nvcc ]] && nvcc=/usr/local/cuda/bin/nvcc
if [[ -z $nvcc ]]; then
  echo "mandelpipe: nvcc not found (PATH, /usr/local/cuda/bin): install NVIDIA's CUDA toolkit" >&2
  exit 1
fi
# nvcc may be a wrapper script outside the toolkit (e.g. /usr/local/bin/nvcc), so ask nvcc itself
# where its toolkit lives rather than deriving it from the path.
cuda_root=$("$nvcc" -v --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -n1 || true)
[[ -n $cuda_root ]] && cuda_root=$(readlink -f "$cuda_root")
[[ -z $cuda_root ]] && cuda_root=$(dirname "$(dirname "$(readlink -f "$nvcc")")")
if [[ ! -f $cuda_root/include/cuda_runtime.h ]] && ! ls "$cuda_root"/targets/*/include/cuda_runtime.h >/dev/null 2>&1; then
  echo "mandelpipe: $cuda_root has nvcc but not the CUDA runtime headers: install the toolkit's cudart development package (cuda-cudart-dev-*)" >&2
  exit 1
fi

# Kernels for the GPU present only (CMake's "native"), a fraction of the build time of every
# architecture; without a GPU, the full list CMakeLists.txt sets (README: how to build it anyway).
archs=()
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; then
  archs=(-DCMAKE_CUDA_ARCHITECTURES=native)
fi
if [[ ! -f build/build.ninja ]]; then
  rm -rf build  # a build folder from another generator would make cmake refuse
  cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_COMPILER="$nvcc" \
    "${archs[@]}" >/dev/null
fi
cmake --build build
