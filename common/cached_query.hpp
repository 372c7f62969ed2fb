// A library's size query, asked once per problem size.
//
// Library launchers need the temporary-storage size they declared as their workspace, but the
// queries (CUB's dispatch with a null pointer: device attributes, occupancy) cost host
// microseconds, and the runner's timed region starts at an event recorded before the launch.
// So a launcher asks once per size and remembers the answer (per thread, per query function).
#pragma once

namespace kl {

template <auto Query, class Size>
auto remembered(const Size& size) {
  using Result = decltype(Query(size));
  thread_local bool have = false;
  thread_local Size last_size{};
  thread_local Result last{};
  if (!have || !(size == last_size)) last = Query(size), last_size = size, have = true;
  return last;
}

}  // namespace kl
