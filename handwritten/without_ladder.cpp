// The families' hand-written lists in a grader build (-DKL_LADDER=OFF, CMakeLists.txt): empty, in
// place of the ladder's list files, so that compare, the families and the library baselines link
// without compiling the ladder's kernels. Every family still runs its library baselines and the
// submissions' variants (docs/your-kernel.md, "A class folder").
#include "common/args/allreduce_args.hpp"
#include "common/args/dot_args.hpp"
#include "common/args/gemm_args.hpp"
#include "common/args/matvec_args.hpp"
#include "common/args/reduce_args.hpp"
#include "common/args/rows_args.hpp"
#include "common/args/scan_args.hpp"
#include "common/args/table_args.hpp"
#include "common/args/transpose_args.hpp"

namespace kl {

template <class T> std::vector<AllreduceVariant<T>> allreduce_handwritten() { return {}; }
template <class T> std::vector<DotVariant<T>> dot_handwritten() { return {}; }
template <class T> std::vector<GemmVariant<T>> gemm_handwritten() { return {}; }
template <class T> std::vector<AatVariant<T>> aat_handwritten() { return {}; }
template <class T> std::vector<MatVecVariant<T>> gemv_handwritten() { return {}; }
template <class T> std::vector<MatVecVariant<T>> gevm_handwritten() { return {}; }
template <class T> std::vector<ReduceVariant<T>> reduce_handwritten() { return {}; }
template <class T> std::vector<RowsVariant<T>> rows_handwritten() { return {}; }
template <class T> std::vector<ScanVariant<T>> scan_handwritten() { return {}; }
template <class T> std::vector<TableVariant<T>> table_handwritten() { return {}; }
template <class T> std::vector<TransposeVariant<T>> transpose_handwritten() { return {}; }

// The types each list file instantiates (ctest without_ladder checks that they are all here).
template std::vector<AllreduceVariant<int>> allreduce_handwritten<int>();
template std::vector<AllreduceVariant<float>> allreduce_handwritten<float>();
template std::vector<AllreduceVariant<double>> allreduce_handwritten<double>();
template std::vector<DotVariant<int>> dot_handwritten<int>();
template std::vector<DotVariant<float>> dot_handwritten<float>();
template std::vector<DotVariant<double>> dot_handwritten<double>();
template std::vector<GemmVariant<float>> gemm_handwritten<float>();
template std::vector<GemmVariant<double>> gemm_handwritten<double>();
template std::vector<AatVariant<float>> aat_handwritten<float>();
template std::vector<AatVariant<double>> aat_handwritten<double>();
template std::vector<MatVecVariant<float>> gemv_handwritten<float>();
template std::vector<MatVecVariant<double>> gemv_handwritten<double>();
template std::vector<MatVecVariant<float>> gevm_handwritten<float>();
template std::vector<MatVecVariant<double>> gevm_handwritten<double>();
template std::vector<ReduceVariant<int>> reduce_handwritten<int>();
template std::vector<ReduceVariant<float>> reduce_handwritten<float>();
template std::vector<ReduceVariant<double>> reduce_handwritten<double>();
template std::vector<RowsVariant<float>> rows_handwritten<float>();
template std::vector<RowsVariant<double>> rows_handwritten<double>();
template std::vector<ScanVariant<int>> scan_handwritten<int>();
template std::vector<ScanVariant<float>> scan_handwritten<float>();
template std::vector<ScanVariant<double>> scan_handwritten<double>();
template std::vector<TableVariant<float>> table_handwritten<float>();
template std::vector<TransposeVariant<float>> transpose_handwritten<float>();
template std::vector<TransposeVariant<double>> transpose_handwritten<double>();

}  // namespace kl
