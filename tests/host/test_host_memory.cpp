// What a problem holds on the host, and how much the host has left: the runner refuses a problem
// whose host arrays would not fit (compare/core/host_memory.hpp) before anything runs.
#include "compare/core/family_core.hpp"
#include "compare/core/host_memory.hpp"
#include "compare/core/problem.hpp"

#include <doctest/doctest.h>

namespace kl {

TEST_CASE("MemAvailable is read from /proc/meminfo's own format, and nothing else") {
  const char* meminfo =
      "MemTotal:       131891428 kB\n"
      "MemFree:         2014208 kB\n"
      "MemAvailable:   120437760 kB\n"
      "Buffers:          110448 kB\n";
  CHECK(parse_mem_available(meminfo) == std::size_t{120437760} * 1024);
  CHECK(!parse_mem_available("MemTotal: 1 kB\n").has_value());
  CHECK(!parse_mem_available("MemAvailable: kB\n").has_value());
  CHECK(!parse_mem_available("MemAvailable: 12 MB\n").has_value());
  // A key that only ends in the name is not the line.
  CHECK(!parse_mem_available("XMemAvailable: 5 kB\n").has_value());
  CHECK(parse_mem_available("XMemAvailable: 5 kB\nMemAvailable: 7 kB\n") == std::size_t{7} * 1024);
  // This machine's, where it is Linux: something, and not more than the machine could hold.
  if (const auto here = host_available_bytes()) CHECK(*here > 0);
}

TEST_CASE("a problem's host bytes: its inputs, the fp64 reference and bounds, two downloaded outputs") {
  const Family* scan = find_family("scan");
  REQUIRE(scan != nullptr);
  RunOptions o;
  const std::size_t n = 1000;
  // float: n inputs of 4 bytes; n outputs of ref, scale, slack (3 × 8) and two downloads (2 × 4).
  CHECK(scan->host_bytes(make_key(*scan, DType::f32, {static_cast<long long>(n)}), o) == n * 4 + n * (24 + 8));
  CHECK(scan->host_bytes(make_key(*scan, DType::f64, {static_cast<long long>(n)}), o) == n * 8 + n * (24 + 16));
  // End to end keeps a pinned copy of each input and of the output.
  o.end_to_end = true;
  CHECK(scan->host_bytes(make_key(*scan, DType::f32, {static_cast<long long>(n)}), o) == n * 8 + n * (24 + 12));
  // At 2^31 + 7 doubles, more than many hosts have: the check the runner makes is real there.
  o.end_to_end = false;
  const long long big = (1LL << 31) + 7;
  CHECK(scan->host_bytes(make_key(*scan, DType::f64, {big}), o) > (std::size_t{96} << 30));
}

TEST_CASE("a download buffer holds what is written to it, page-locked or, without a driver, pageable") {
  DownloadBuffer<double> b;
  CHECK(b.size() == 0);
  b.resize(1000);
  REQUIRE(b.size() == 1000);
  for (std::size_t i = 0; i < b.size(); ++i) b.data()[i] = static_cast<double>(i) * 0.5;
  CHECK(b[999] == 499.5);
  b.resize(1000);  // the same size keeps the values
  CHECK(b[10] == 5.0);
  b.resize(3);
  CHECK(b.size() == 3);
  b.data()[2] = -1;
  CHECK(b[2] == -1);
}

}  // namespace kl
