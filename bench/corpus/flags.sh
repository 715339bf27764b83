# Per-project compile flags of the corpus, relative to the root of the source tree (the folder
# holding cuda-samples/ and ggml/). Sourced by select.sh, run.sh and compile.sh.
# The nvcc flags are those of each project's own CMake build for one arch (sm_90).
nvcc_flags() { # FILE (path relative to the tree root)
  case $1 in
    # the dynamic-parallelism samples build with CUDA_SEPARABLE_COMPILATION
    cuda-samples/*/cdp*) echo "-std=c++17 -arch=sm_90 -rdc=true -I cuda-samples/Common" ;;
    cuda-samples/*) echo "-std=c++17 -arch=sm_90 -I cuda-samples/Common" ;;
    # ggml/src/ggml-cuda/CMakeLists.txt: -use_fast_math -extended-lambda; defaults of its options
    ggml/*) echo "-std=c++17 -arch=sm_90 -use_fast_math -extended-lambda -I ggml/include -I ggml/src" \
      "-I ggml/src/ggml-cuda -DGGML_USE_CUDA -DGGML_SCHED_MAX_COPIES=4" \
      "-DGGML_CUDA_PEER_MAX_BATCH_SIZE=128 -DGGML_CUDA_USE_GRAPHS" ;;
    *) echo "no flags for $1" >&2; return 1 ;;
  esac
}
# The flags a Clang parse understands: -I, -D and -std of the nvcc flags.
clang_flags() { # FILE
  local f out=() prev=
  for f in $(nvcc_flags "$1"); do
    if [[ $prev == -I ]]; then out+=("-I$f"); prev=; continue; fi
    case $f in -I) prev=-I ;; -D* | -std=*) out+=("$f") ;; esac
  done
  echo "${out[@]}"
}
