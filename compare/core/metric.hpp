// What a family's rate means: a unit, the work one run of the operation does in that unit's
// base (bytes for GB/s, flops for TFLOP/s), and the ceiling it is measured against. A value
// type, so the writers never compare unit strings.
#pragma once

#include <string>

namespace kl {

struct Metric {
  std::string unit;         // "GB/s", "TFLOP/s", "Gelem/s"
  std::string work_unit;    // "bytes", "flop", "elements"
  double scale = 1e9;       // work / seconds / scale = rate in `unit`
  int decimals = 1;         // digits after the point in tables
  double work = 0;          // per run of the operation
  double ceiling = 0;       // in `unit`; 0 = none
  std::string ceiling_label;
  // What the rate is called in tables ("busbw"); empty: "rate". A second rate derived from it may
  // be shown beside it: also = rate × also_factor (allreduce: the rate is nccl-tests' bus
  // bandwidth, the one comparable with a link's, and `also` its algorithm bandwidth, bytes/time).
  std::string rate_name;
  std::string also_name;    // empty: none
  double also_factor = 0;
  // The highest rate the hardware allows for this operation, in `unit`, where it is above the
  // ceiling (a double product may run on the FP64 tensor cores, past the FP64 FMA peak it is
  // reported against); 0: the ceiling. A hand-written rate above it fails (execute.cpp).
  double limit = 0;
  std::string limit_label;

  double rate(double work_done, double seconds) const { return work_done / seconds / scale; }

  // GB/s over `bytes` that must move, against a measured copy bandwidth.
  static Metric bandwidth(double bytes, double copy_gbps);
  // TFLOP/s over `flops`, against a peak whose derivation is `peak_label`.
  static Metric flops(double flops, double peak_tflops, std::string peak_label);
};

}  // namespace kl
