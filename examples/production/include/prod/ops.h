// The ops of a (small) model's forward pass. Launchers take device pointers and the stream to
// queue on, and return without synchronizing.
#pragma once

#include "prod/dtype.h"

// out[i, c] = gelu(inp[i, c] + bias[c]) (tanh approximation) for an N x C activation.
void bias_gelu_forward(floatX* out, const floatX* inp, const floatX* bias, int N, int C, cudaStream_t stream);

// out[r, c] = inp[r, c] + bias[c] for a rows x cols matrix.
void add_bias_forward(floatX* out, const floatX* inp, const floatX* bias, int rows, int cols, cudaStream_t stream);

// out[r, :] = softmax(inp[r, :]) for each of `rows` rows of `cols` values; fp32 (the loss path)
// and floatX overloads.
void softmax_forward(float* out, const float* inp, int rows, int cols, cudaStream_t stream);
void softmax_forward(floatX* out, const floatX* inp, int rows, int cols, cudaStream_t stream);

// embedding_forward (a gather) is defined in prod/embedding.cuh, header-only.
