#include "compare/core/graph_check.hpp"

#include "common/cuda_check.hpp"

#include <vector>

namespace kl {

namespace {

bool on_device(const void* ptr) {
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, ptr) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return a.type == cudaMemoryTypeDevice;
}

// "" when a kernel node's launch attributes leave caching and scheduling as the stream has them.
std::string kernel_attribute_refusal(cudaGraphNode_t node) {
  cudaLaunchAttributeValue v{};
  if (cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributeAccessPolicyWindow, &v) == cudaSuccess) {
    if (v.accessPolicyWindow.num_bytes > 0)
      return "its launch carries an access-policy window over " + std::to_string(v.accessPolicyWindow.num_bytes) +
             " bytes (a caching attribute: lines it marks persisting outlive the L2 flush between samples)";
  } else {
    cudaGetLastError();
  }
  v = {};
  if (cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &v) == cudaSuccess) {
    if (v.priority != 0)
      return "its launch carries a scheduling priority of its own (" + std::to_string(v.priority) +
             "): launch attributes may not change how the work is scheduled";
  } else {
    cudaGetLastError();
  }
  return {};
}

std::string refusal(cudaGraph_t g, GraphRules rules) {
  std::size_t n = 0;
  KL_CUDA_CHECK(cudaGraphGetNodes(g, nullptr, &n));
  std::vector<cudaGraphNode_t> nodes(n);
  if (n) KL_CUDA_CHECK(cudaGraphGetNodes(g, nodes.data(), &n));
  const bool strict = rules == GraphRules::submission;
  for (cudaGraphNode_t node : nodes) {
    cudaGraphNodeType t{};
    KL_CUDA_CHECK(cudaGraphNodeGetType(node, &t));
    switch (t) {
      case cudaGraphNodeTypeKernel: {
        const std::string why = kernel_attribute_refusal(node);
        if (!why.empty()) return why;
        break;
      }
      case cudaGraphNodeTypeMemset:
      case cudaGraphNodeTypeEmpty: break;
      case cudaGraphNodeTypeMemcpy: {
        if (!strict) break;
        cudaMemcpy3DParms p{};
        KL_CUDA_CHECK(cudaGraphMemcpyNodeGetParams(node, &p));
        const bool d2d = p.kind == cudaMemcpyDeviceToDevice ||
                         (p.kind == cudaMemcpyDefault && on_device(p.srcPtr.ptr) && on_device(p.dstPtr.ptr));
        if (!d2d) return "did work on the host: its launch copies between host and device memory";
        break;
      }
      case cudaGraphNodeTypeGraph: {
        cudaGraph_t child = nullptr;
        KL_CUDA_CHECK(cudaGraphChildGraphNodeGetGraph(node, &child));
        const std::string why = refusal(child, rules);
        if (!why.empty()) return why;
        break;
      }
      case cudaGraphNodeTypeHost:
        if (strict) return "did work on the host: its launch enqueues a host function (cudaLaunchHostFunc)";
        break;
      case cudaGraphNodeTypeMemAlloc:
      case cudaGraphNodeTypeMemFree:
        if (strict) return "its launch allocates or frees memory (ask for a workspace instead)";
        break;
      case cudaGraphNodeTypeWaitEvent:
      case cudaGraphNodeTypeEventRecord:
        if (strict)
          return "its launch records or waits for an event of its own (an event node): only kernels, memsets and "
                 "device-to-device copies may be enqueued";
        break;
      case cudaGraphNodeTypeExtSemaphoreSignal:
      case cudaGraphNodeTypeExtSemaphoreWait:
        if (strict) return "its launch signals or waits on an external semaphore";
        break;
      case cudaGraphNodeTypeConditional:
        if (strict) return "its launch holds a conditional node (work whose amount the graph decides at replay)";
        break;
      default:
        if (strict)
          return "its launch enqueues a graph node of type " + std::to_string(static_cast<int>(t)) +
                 ": only kernels, memsets and device-to-device copies may be enqueued";
        break;
    }
  }
  return {};
}

}  // namespace

std::string graph_refusal(cudaGraph_t g, GraphRules rules) { return refusal(g, rules); }

std::string stream_attribute_refusal(cudaStream_t s) {
  cudaStreamAttrValue v{};
  if (cudaStreamGetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) == cudaSuccess) {
    if (v.accessPolicyWindow.num_bytes > 0)
      return "its launch set an access-policy window over " + std::to_string(v.accessPolicyWindow.num_bytes) +
             " bytes on the stream it is given (a caching attribute: lines it marks persisting outlive the L2 "
             "flush between samples)";
  } else {
    cudaGetLastError();
  }
  return {};
}

void clear_stream_window(cudaStream_t s) {
  cudaStreamAttrValue v{};
  v.accessPolicyWindow.num_bytes = 0;
  if (cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &v) != cudaSuccess) cudaGetLastError();
}

}  // namespace kl
