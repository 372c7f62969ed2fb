// The protocol between compare and a kl-sandbox process (compare/sandbox/sandbox_process.cpp and
// compare/sandbox/child/sandbox.cu): one JSON object a line, each message a struct with its
// to_json/from_json here, used by both processes, so neither can drift from the other.
//
//   sandbox -> compare   Ready                      once, after the module loaded (or why not)
//   compare -> sandbox   BindRequest | RunRequest | TimeRequest | {"op": "quit"}
//   sandbox -> compare   Next (during a TimeRequest: which slot sample j runs on?)
//   compare -> sandbox   NextAnswer
//   sandbox -> compare   Reply: ok, or an Error; with a BindReply or a TimeReply's fields
//
// A launch's arguments cross as the bytes of the family's struct with each device pointer named
// by the buffer it points into (a CUDA IPC handle) and its offset there; which bytes are pointers
// comes from the struct's declaration (common/args_kind.hpp: ArgsKind<Args>::pointers).
#pragma once

#include "compare/core/stats.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kl::protocol {

inline constexpr int kVersion = 2;

// A region of one of compare's allocations: its IPC handle (hex), the offset into it, its size.
struct BufferRef {
  std::string handle;
  std::uint64_t offset = 0, bytes = 0;
};
// The pointer at byte `at` of the arguments points into `buffer`.
struct Fixup {
  std::uint64_t at = 0;
  BufferRef buffer;
};
struct Arguments {
  std::string bytes;  // hex
  std::vector<Fixup> fixups;
};

// Why a request failed. kind: "contract" (the launch broke the contract: the stream, the graph,
// a thread of its own, the GPU's state), "left_running" (work on the GPU outside what was asked;
// the process ends after saying so), or "" (anything else: a CUDA error, a hook that threw).
struct Error {
  std::string kind, message;
};

struct Ready {
  int version = kVersion;
  // Set where this system would not install the sandbox's process filter (no_new_processes.hpp):
  // why. The sandbox still serves; compare says once that this defence is off.
  std::string unguarded;
};

struct BindRequest {
  std::size_t entry = 0;
  std::string size;  // hex of the family's Size
};
struct BindReply {
  std::size_t workspace = 0;
  double depth = 0, work = 0;
  std::string unsupported, error;  // error: a hook threw
};

struct RunRequest {
  std::size_t entry = 0;
  Arguments args;
};

struct TimeRequest {
  std::size_t entry = 0;
  std::vector<Arguments> sets;  // the arguments of input slot 0, 1, ...: one graph each
  int warmup = 2;
  StopRule rule;
  L2Flush flush = L2Flush::read;
  BufferRef clock;                // 2 marks per sample
  std::vector<std::string> keep;  // handles to keep open besides the arguments'
};
struct Next {
  long long sample = 0;
  bool last = false;
};
struct NextAnswer {
  std::size_t slot = 0;
};
struct TimeReply {
  std::vector<double> samples;
  bool converged = false;
};

// One struct's to_json/from_json each (nlohmann's ADL hooks).
void to_json(nlohmann::json& j, const BufferRef& v);
void from_json(const nlohmann::json& j, BufferRef& v);
void to_json(nlohmann::json& j, const Fixup& v);
void from_json(const nlohmann::json& j, Fixup& v);
void to_json(nlohmann::json& j, const Arguments& v);
void from_json(const nlohmann::json& j, Arguments& v);
void to_json(nlohmann::json& j, const Error& v);
void from_json(const nlohmann::json& j, Error& v);
void to_json(nlohmann::json& j, const Ready& v);
void from_json(const nlohmann::json& j, Ready& v);
void to_json(nlohmann::json& j, const BindRequest& v);
void from_json(const nlohmann::json& j, BindRequest& v);
void to_json(nlohmann::json& j, const BindReply& v);
void from_json(const nlohmann::json& j, BindReply& v);
void to_json(nlohmann::json& j, const RunRequest& v);
void from_json(const nlohmann::json& j, RunRequest& v);
void to_json(nlohmann::json& j, const TimeRequest& v);
void from_json(const nlohmann::json& j, TimeRequest& v);
void to_json(nlohmann::json& j, const Next& v);
void from_json(const nlohmann::json& j, Next& v);
void to_json(nlohmann::json& j, const NextAnswer& v);
void from_json(const nlohmann::json& j, NextAnswer& v);
void to_json(nlohmann::json& j, const TimeReply& v);
void from_json(const nlohmann::json& j, TimeReply& v);

// A message on the wire: {"op": OP, ...the struct's fields}.
template <class T>
nlohmann::json message(const char* op, const T& body) {
  nlohmann::json j = body;
  j["op"] = op;
  return j;
}
// A reply: {"ok": true, ...the struct's fields}, or {"ok": false, "error": Error}.
template <class T>
nlohmann::json ok_reply(const T& body) {
  nlohmann::json j = body;
  j["ok"] = true;
  return j;
}
inline nlohmann::json ok_reply() { return {{"ok", true}}; }
inline nlohmann::json error_reply(const Error& e) { return {{"ok", false}, {"error", e}}; }
// The error of a reply, or none (an empty message) where it is ok.
Error error_of(const nlohmann::json& reply);

// Hex of bytes and back.
std::string hex(const void* p, std::size_t n);
std::vector<unsigned char> unhex(const std::string& s);

}  // namespace kl::protocol
