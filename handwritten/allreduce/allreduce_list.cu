// The all-reduce ladder, in order (compare/families/family_allreduce.hpp; docs/allreduce.md): through
// the host, peer copies, one-shot and two-shot peer kernels, their 16-byte forms, the one-shot that
// pushes instead of pulling, the one that carries its flags in its data, the two-shot that only
// stores, the flags-in-data one-shot with 128-byte lines, the same launched early (PDL), the
// two-shot in those lines, the ring with the copy engines moving, the two-shot with its peers
// staggered, and the step picked by size. NCCL is the library (library_baselines/allreduce_nccl.cu).
#include "handwritten/allreduce/allreduce1_through_host.cuh"
#include "handwritten/allreduce/allreduce2_peer_copy.cuh"
#include "handwritten/allreduce/allreduce3_one_shot.cuh"
#include "handwritten/allreduce/allreduce4_two_shot.cuh"
#include "handwritten/allreduce/allreduce5_one_shot_vec16.cuh"
#include "handwritten/allreduce/allreduce6_two_shot_vec16.cuh"
#include "handwritten/allreduce/allreduce7_one_shot_push.cuh"
#include "handwritten/allreduce/allreduce8_one_shot_ll.cuh"
#include "handwritten/allreduce/allreduce9_two_shot_push.cuh"
#include "handwritten/allreduce/allreduce10_one_shot_ll128.cuh"
#include "handwritten/allreduce/allreduce11_one_shot_ll128_pdl.cuh"
#include "handwritten/allreduce/allreduce12_two_shot_ll128_pdl.cuh"
#include "handwritten/allreduce/allreduce13_ring_copy_engines.cuh"
#include "handwritten/allreduce/allreduce14_two_shot_staggered.cuh"
#include "handwritten/allreduce/allreduce_auto.cuh"

namespace kl {

template <class T>
std::vector<AllreduceVariant<T>> allreduce_handwritten() {
  return {
      allreduce1::variant<T>(),
      allreduce2::variant<T>(),
      allreduce3::variant<T>(),
      allreduce4::variant<T>(),
      allreduce5::variant<T>(),
      allreduce6::variant<T>(),
      allreduce7::variant<T>(),
      allreduce8::variant<T>(),
      allreduce9::variant<T>(),
      allreduce10::variant<T>(),
      allreduce11::variant<T>(),
      allreduce12::variant<T>(),
      allreduce13::variant<T>(),
      allreduce14::variant<T>(),
      allreduce_auto::variant<T>(),
  };
}

template std::vector<AllreduceVariant<int>> allreduce_handwritten<int>();
template std::vector<AllreduceVariant<float>> allreduce_handwritten<float>();
template std::vector<AllreduceVariant<double>> allreduce_handwritten<double>();

}  // namespace kl
