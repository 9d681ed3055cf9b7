#!/bin/sh
# Builds bench/numerics/numerics_gpu_check (not part of the CMake build) into OUT (default: this
# directory): the harness's input formulas, comparator and examples' row_sum/layernorm originals,
# the hand-written candidates of tests/profiler/candidates and two attacks, for sm_90 by default.
# Run the binary on a GPU: it prints one line per check and exits 1 on any unexpected outcome.
set -e
R=$(cd "$(dirname "$0")/../.." && pwd)
O=${1:-$R/bench/numerics}
ARCH=${ARCH:-sm_90}
F="-std=c++20 -O2 -arch=$ARCH -I$R -I$R/examples/include"
nvcc $F -c "$R/tests/profiler/candidates/row_sum/row_sum_warp.cu" -Dlaunch_row_sum=cand_launch_row_sum -o "$O/cand_rs.o"
nvcc $F -c "$R/tests/profiler/candidates/layernorm/layernorm_warp.cu" -Dlaunch_layernorm=cand_launch_layernorm -o "$O/cand_ln.o"
nvcc $F -c "$R/examples/src/reduction.cu" -o "$O/orig_rs.o"
nvcc $F -c "$R/examples/src/layernorm.cu" -o "$O/orig_ln.o"
nvcc $F "$R/bench/numerics/numerics_gpu_check.cu" "$R/profiler/judge/inputs/input_generator.cpp" \
  "$R/profiler/judge/inputs/dtype_codec.cpp" "$R/profiler/judge/outputs/output_comparator.cpp" \
  "$O/cand_rs.o" "$O/cand_ln.o" "$O/orig_rs.o" "$O/orig_ln.o" -o "$O/numerics_gpu_check"
rm -f "$O/cand_rs.o" "$O/cand_ln.o" "$O/orig_rs.o" "$O/orig_ln.o"
