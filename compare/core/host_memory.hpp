// Host memory a run can still take: a problem's host arrays (its inputs, the fp64 reference with
// its per-element bounds, the downloaded outputs) are several times its device buffers, so a size
// the device holds can still exhaust the host. The runner refuses such a problem before anything
// runs, with one line, instead of being killed by the kernel's out-of-memory handler mid-run.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace kl {

// MemAvailable of a /proc/meminfo text, in bytes; none if the line is missing or unreadable.
std::optional<std::size_t> parse_mem_available(std::string_view meminfo);
// This machine's MemAvailable; none where /proc/meminfo cannot be read (then nothing is refused).
std::optional<std::size_t> host_available_bytes();

}  // namespace kl
