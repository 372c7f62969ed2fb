// Without NCCL the allreduce family is not built; --list says why and asking for it is a usage
// error that says it.
#include "compare/core/family.hpp"

#if !KL_HAVE_NCCL
namespace kl {
namespace {
[[maybe_unused]] const bool kl_unbuilt_allreduce =
    (register_unbuilt_family("allreduce", "not built: CMake found no NCCL (nccl.h and libnccl.so, searched under the CUDA "
                                          "toolkit, NCCL_ROOT and the system; or -DKL_WITH_NCCL=OFF)"),
     true);
}  // namespace
}  // namespace kl
#endif
