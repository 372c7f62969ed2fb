// The all-reduce's library: ncclAllReduce (sum) through one communicator per GPU, made once by
// ncclCommInitAll (compare/families/allreduce_group.cpp), never inside the timed launch. One thread drives
// every GPU, so the G calls are one NCCL group (ncclGroupStart/End), as NCCL requires.
//
// NVLink multicast (NVLS) is off: the runner sets NCCL_NVLS_ENABLE=0 unless the user set it,
// before NCCL initialises (compare/families/multi_gpu.hpp). On two H200s NCCL then runs its ring (or
// tree) with the LL/LL128/Simple protocols it picks by size.
#include "common/gpu_group.hpp"
#include "common/nccl_check.hpp"
#include "common/args/allreduce_args.hpp"

#include <nccl.h>

namespace kl {
namespace {

template <class T> ncclDataType_t nccl_type();
template <> ncclDataType_t nccl_type<int>() { return ncclInt32; }
template <> ncclDataType_t nccl_type<float>() { return ncclFloat32; }
template <> ncclDataType_t nccl_type<double>() { return ncclFloat64; }

template <class T>
void nccl_allreduce(const AllreduceArgs<T>& a, cudaStream_t s) {
  const GpuGroup& g = *a.group;
  const OpStreams o = begin_op(g, s);
  {
    DeviceScope dev;  // NCCL may change the current device; the runner's is put back
    KL_NCCL_CHECK(ncclGroupStart());
    for (int r = 0; r < g.gpus; ++r)
      KL_NCCL_CHECK(ncclAllReduce(a.in[r], a.out[r], a.n, nccl_type<T>(), ncclSum, g.comm[r], o.s[r]));
    KL_NCCL_CHECK(ncclGroupEnd());
  }
  end_op(g, o, s);
}

}  // namespace

template <class T>
std::vector<AllreduceVariant<T>> allreduce_library() {
  return {
      {.info = {"nccl_allreduce", "NCCL", "ncclAllReduce (sum), one communicator per GPU, grouped", Source::library},
       .launch = nccl_allreduce<T>},
  };
}

template std::vector<AllreduceVariant<int>> allreduce_library<int>();
template std::vector<AllreduceVariant<float>> allreduce_library<float>();
template std::vector<AllreduceVariant<double>> allreduce_library<double>();

}  // namespace kl
