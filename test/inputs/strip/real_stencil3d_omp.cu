// cutrace-test-flags: -std=c++17 -Xcompiler -fopenmp
// 7-point Jacobi stencil on a 3-D grid with 3-D blocks; each block stages its brick plus a
// one-cell halo in dynamic shared memory. The host computes a reference with OpenMP and checks
// the result (isfinite on both sides).
#include <cuda_runtime.h>
#include <cutrace/trace.h>
#include <omp.h>

#include <cmath>
#include <cstdio>
#include <vector>

struct Grid3 {
  int nx;
  int ny;
  int nz;
};

__host__ __device__ inline size_t at(const Grid3 &g, int x, int y, int z) {
  return (static_cast<size_t>(z) * g.ny + y) * g.nx + x;
}

__host__ __device__ inline float clamp_finite(float v) { return isfinite(v) ? v : 0.0f; }

template <int Bx, int By, int Bz>
__global__ void __launch_bounds__(Bx * By * Bz)
    jacobi7(const float *__restrict__ in, float *__restrict__ out, Grid3 g, float c0, float c1) {
  extern __shared__ float tile[];
  TRACE_GROUP("z_slab", 0);
  TRACE_DAG("halo", "update");
  constexpr int Sx = Bx + 2;
  constexpr int Sy = By + 2;
  const int x = blockIdx.x * Bx + threadIdx.x;
  const int y = blockIdx.y * By + threadIdx.y;
  const int z = blockIdx.z * Bz + threadIdx.z;
  const int lx = threadIdx.x + 1;
  const int ly = threadIdx.y + 1;
  const int lz = threadIdx.z + 1;
  auto s = [&](int i, int j, int k) -> float & { return tile[(k * Sy + j) * Sx + i]; };

  const bool inside = x < g.nx && y < g.ny && z < g.nz;
  const auto halo = TRACE_RANGE_START("halo", "load", blockIdx.z * Bz);
  s(lx, ly, lz) = inside ? in[at(g, x, y, z)] : 0.0f;
  if (threadIdx.x == 0) {
    TRACE_RECORD("halo_x", Bx, "load");
    s(0, ly, lz) = (inside && x > 0) ? in[at(g, x - 1, y, z)] : 0.0f;
  }
  if (threadIdx.x == Bx - 1) {
    s(Bx + 1, ly, lz) = (inside && x + 1 < g.nx) ? in[at(g, x + 1, y, z)] : 0.0f;
  }
  if (threadIdx.y == 0) {
    s(lx, 0, lz) = (inside && y > 0) ? in[at(g, x, y - 1, z)] : 0.0f;
  }
  if (threadIdx.y == By - 1) {
    s(lx, By + 1, lz) = (inside && y + 1 < g.ny) ? in[at(g, x, y + 1, z)] : 0.0f;
  }
  if (threadIdx.z == 0) {
    s(lx, ly, 0) = (inside && z > 0) ? in[at(g, x, y, z - 1)] : 0.0f;
  }
  if (threadIdx.z == Bz - 1) {
    s(lx, ly, Bz + 1) = (inside && z + 1 < g.nz) ? in[at(g, x, y, z + 1)] : 0.0f;
  }
  __syncthreads();
  TRACE_RANGE_END(halo);

  if (!inside) {
    TRACE_RECORD("outside", z);
    return;
  }
  TRACE_RANGE("update", "compute", x + y * Bx);
  const float sum = s(lx - 1, ly, lz) + s(lx + 1, ly, lz) + s(lx, ly - 1, lz) +
                    s(lx, ly + 1, lz) + s(lx, ly, lz - 1) + s(lx, ly, lz + 1);
  out[at(g, x, y, z)] = clamp_finite(c0 * s(lx, ly, lz) + c1 * sum);
}

template <int Bx, int By, int Bz>
cudaError_t jacobi_sweeps(float *a, float *b, Grid3 g, int sweeps, cudaStream_t stream) {
  const dim3 block(Bx, By, Bz);
  const dim3 grid((g.nx + Bx - 1) / Bx, (g.ny + By - 1) / By, (g.nz + Bz - 1) / Bz);
  const size_t smem = static_cast<size_t>(Bx + 2) * (By + 2) * (Bz + 2) * sizeof(float);
  for (int it = 0; it < sweeps; ++it) {
    jacobi7<Bx, By, Bz><<<grid, block, smem, stream>>>(a, b, g, 0.4f, 0.1f);
    float *t = a;
    a = b;
    b = t;
  }
  return cudaGetLastError();
}

void jacobi_reference(std::vector<float> &a, std::vector<float> &b, Grid3 g, int sweeps) {
  auto get = [&](const std::vector<float> &v, int x, int y, int z) {
    if (x < 0 || y < 0 || z < 0 || x >= g.nx || y >= g.ny || z >= g.nz) {
      return 0.0f;
    }
    return v[at(g, x, y, z)];
  };
  for (int it = 0; it < sweeps; ++it) {
#pragma omp parallel for collapse(2) schedule(static)
    for (int z = 0; z < g.nz; ++z) {
      for (int y = 0; y < g.ny; ++y) {
        for (int x = 0; x < g.nx; ++x) {
          const float sum = get(a, x - 1, y, z) + get(a, x + 1, y, z) + get(a, x, y - 1, z) +
                            get(a, x, y + 1, z) + get(a, x, y, z - 1) + get(a, x, y, z + 1);
          b[at(g, x, y, z)] = clamp_finite(0.4f * a[at(g, x, y, z)] + 0.1f * sum);
        }
      }
    }
    a.swap(b);
  }
}

int main() {
  const Grid3 g{96, 64, 40};
  const size_t n = static_cast<size_t>(g.nx) * g.ny * g.nz;
  const int sweeps = 6;
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) {
    h[i] = static_cast<float>(i % 13) * 0.25f;
  }
  std::vector<float> ref_a = h;
  std::vector<float> ref_b(n, 0.0f);
  std::printf("reference on %d OpenMP threads\n", omp_get_max_threads());
  jacobi_reference(ref_a, ref_b, g, sweeps);

  float *a = nullptr;
  float *b = nullptr;
  cudaMalloc(&a, n * sizeof(float));
  cudaMalloc(&b, n * sizeof(float));
  cudaMemcpy(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  cudaStream_t stream;
  cudaStreamCreate(&stream);
  cudaError_t err = jacobi_sweeps<8, 8, 4>(a, b, g, sweeps, stream);
  if (err == cudaSuccess) {
    cudaMemcpyAsync(a, h.data(), n * sizeof(float), cudaMemcpyHostToDevice, stream);
    err = jacobi_sweeps<16, 4, 4>(a, b, g, sweeps, stream);
  }
  cudaStreamSynchronize(stream);

  std::vector<float> got(n);
  cudaMemcpy(got.data(), sweeps % 2 == 0 ? a : b, n * sizeof(float), cudaMemcpyDeviceToHost);
  double max_err = 0.0;
  int nonfinite = 0;
#pragma omp parallel for reduction(max : max_err) reduction(+ : nonfinite)
  for (long i = 0; i < static_cast<long>(n); ++i) {
    if (!isfinite(got[i])) {
      ++nonfinite;
      continue;
    }
    max_err = std::fmax(max_err, std::fabs(static_cast<double>(got[i]) - ref_a[i]));
  }
  std::printf("%s max_err=%g nonfinite=%d\n", cudaGetErrorString(err), max_err, nonfinite);
  cudaStreamDestroy(stream);
  cudaFree(a);
  cudaFree(b);
  return err == cudaSuccess && nonfinite == 0 ? 0 : 1;
}
