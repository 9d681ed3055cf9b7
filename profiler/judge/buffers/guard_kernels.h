// The judge's device code for guard zones (guard_layout.h): fill them with bytes derived from a
// key no variant knows, and count the bytes a variant changed. The expected bytes are recomputed
// from the key, so no copy of the guards is kept. Included by .cu code: no heavy headers.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace kb::judge {

// One guard zone: `bytes` bytes at `begin`, which lies `position` bytes into an allocation whose
// guard bytes come from `key`.
struct GuardZone {
  unsigned char* begin = nullptr;
  unsigned long long bytes = 0;
  unsigned long long position = 0;
  unsigned long long key = 0;
};

// What the check of one zone found; zero it before the check. The nearest changed byte's offset
// from the zone's start is stored inverted (~offset), so that a zeroed record and atomicMax give
// the minimum.
struct GuardFinding {
  unsigned long long changed = 0;
  unsigned long long first_inverted = 0;
  unsigned long long last = 0;
  unsigned long long first() const { return ~first_inverted; }
};

// Fills the `count` zones of `zones` (device memory) with their bytes.
cudaError_t launch_fill_guards(const GuardZone* zones, int count, cudaStream_t s);

// Counts each zone's bytes that differ from what fill_guards wrote, into `findings[k]` (device
// memory, zeroed by the caller).
cudaError_t launch_check_guards(const GuardZone* zones, int count, GuardFinding* findings, cudaStream_t s);

}  // namespace kb::judge
