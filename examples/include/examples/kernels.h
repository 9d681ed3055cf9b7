// Launchers for the example kernels in examples/src/. Plain C++: host code can include this
// without any CUDA header.
//
// Every launcher takes DEVICE pointers, launches on the default (legacy) stream and returns
// without synchronizing; errors surface through cudaGetLastError() / the next synchronizing call.
#pragma once

// y[i] = a * x[i] + y[i] for i in [0, n).
void launch_saxpy(const float* x, float* y, float a, int n);

// out = transpose(in): in is rows x cols row-major, out is cols x rows row-major,
// out[c * rows + r] = in[r * cols + c].
void launch_transpose(const float* in, float* out, int rows, int cols);

// out[r] = sum of row r of in (rows x cols row-major). Overwrites out (it is zeroed first).
void launch_row_sum(const float* in, float* out, int rows, int cols);

// Layer normalization of each row of x (rows x cols row-major):
// y[r, c] = (x[r, c] - mean_r) / sqrt(var_r + eps) * gamma[c] + beta[c],
// where var_r is the population variance of row r. gamma and beta hold cols elements.
void launch_layernorm(const float* x, const float* gamma, const float* beta, float* y, int rows,
                      int cols, float eps);
