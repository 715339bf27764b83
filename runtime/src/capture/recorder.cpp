// Explicit mode: a caller-owned buffer for one launch.
#include "device_buffer.h"
#include "marker_calibration.h"

#include <cutrace/run.h>

#include <stdexcept>

namespace cutrace {

struct Recorder::State {
  std::string map_json;
  DeviceBuffer buffer;

  std::vector<uint8_t> read() {
    int current = 0;
    cudaGetDevice(&current);
    cudaSetDevice(buffer.device());
    const cudaError_t err = cudaDeviceSynchronize();
    cudaSetDevice(current);
    if (err != cudaSuccess)
      throw std::runtime_error("cutrace::Recorder: " + cuda_error("cudaDeviceSynchronize", err));
    Expected<std::vector<uint8_t>> bytes = buffer.read_back();
    if (!bytes)
      throw std::runtime_error("cutrace::Recorder: " + bytes.error);
    return std::move(*bytes);
  }
};

Recorder::Recorder(const KernelMap &map, dim3 grid, dim3 block) {
  Expected<DeviceBuffer> buf = DeviceBuffer::allocate(map, grid, block, /*stream=*/0);
  if (!buf)
    throw std::runtime_error(std::string("cutrace::Recorder: ") + map.kernel + ": " + buf.error);
  // The caller may launch on any stream: make the zeroed buffer visible to all of them.
  if (cudaError_t err = cudaStreamSynchronize(0); err != cudaSuccess)
    throw std::runtime_error("cutrace::Recorder: " + cuda_error("cudaStreamSynchronize", err));
  state_.reset(new State{map.json ? map.json : "", std::move(*buf)});
}

Recorder::~Recorder() = default;

Slots *Recorder::slots() { return state_->buffer.slots(); }

void Recorder::dump(const std::string &stem) {
  Ctrace raw;
  raw.map_json = state_->map_json;
  for (int i = 0; i < 3; ++i) {
    raw.grid[i] = state_->buffer.header().grid[i];
    raw.block[i] = state_->buffer.header().block[i];
  }
  const std::vector<uint8_t> full = state_->read();
  raw.buffer = compact_buffer(full.data(), full.size()); // what was recorded, not the capacity
  if (std::optional<std::string> err = write_ctrace_file(stem + ".ctrace", raw))
    throw std::runtime_error("cutrace::Recorder: " + *err);
}

Trace Recorder::decode(const DecodeOptions &options) {
  const std::vector<uint8_t> bytes = state_->read();
  Expected<DecodeMap> map = parse_decode_map(state_->map_json);
  if (!map) {
    Trace t;
    t.problems.push_back(map.error);
    return t;
  }
  return cutrace::decode(*map, bytes.data(), bytes.size(), options);
}

MarkerCost measure_marker_cost() {
  Expected<std::vector<uint8_t>> probe = record_marker_probe();
  if (!probe)
    throw std::runtime_error("cutrace::measure_marker_cost: " + probe.error);
  Expected<MarkerCost> cost = marker_cost_from_probe(probe->data(), probe->size());
  if (!cost)
    throw std::runtime_error("cutrace::measure_marker_cost: " + cost.error);
  return *cost;
}

} // namespace cutrace
