#include "compare/sandbox/protocol.hpp"

#include <stdexcept>

namespace kl::protocol {

using nlohmann::json;

void to_json(json& j, const BufferRef& v) { j = {{"h", v.handle}, {"o", v.offset}, {"bytes", v.bytes}}; }
void from_json(const json& j, BufferRef& v) {
  j.at("h").get_to(v.handle);
  j.at("o").get_to(v.offset);
  j.at("bytes").get_to(v.bytes);
}

void to_json(json& j, const Fixup& v) { j = {{"at", v.at}, {"buffer", v.buffer}}; }
void from_json(const json& j, Fixup& v) {
  j.at("at").get_to(v.at);
  j.at("buffer").get_to(v.buffer);
}

void to_json(json& j, const Arguments& v) { j = {{"bytes", v.bytes}, {"fixups", v.fixups}}; }
void from_json(const json& j, Arguments& v) {
  j.at("bytes").get_to(v.bytes);
  j.at("fixups").get_to(v.fixups);
}

void to_json(json& j, const Error& v) { j = {{"kind", v.kind}, {"message", v.message}}; }
void from_json(const json& j, Error& v) {
  v.kind = j.value("kind", std::string());
  v.message = j.value("message", std::string());
}

void to_json(json& j, const Ready& v) {
  j = {{"version", v.version}};
  if (!v.unguarded.empty()) j["unguarded"] = v.unguarded;
}
void from_json(const json& j, Ready& v) {
  v.version = j.value("version", 0);
  v.unguarded = j.value("unguarded", std::string());
}

void to_json(json& j, const BindRequest& v) { j = {{"entry", v.entry}, {"size", v.size}}; }
void from_json(const json& j, BindRequest& v) {
  j.at("entry").get_to(v.entry);
  j.at("size").get_to(v.size);
}

void to_json(json& j, const BindReply& v) {
  j = {{"workspace", v.workspace}, {"depth", v.depth}, {"work", v.work}, {"unsupported", v.unsupported}, {"hook_error", v.error}};
}
void from_json(const json& j, BindReply& v) {
  j.at("workspace").get_to(v.workspace);
  j.at("depth").get_to(v.depth);
  j.at("work").get_to(v.work);
  j.at("unsupported").get_to(v.unsupported);
  j.at("hook_error").get_to(v.error);
}

void to_json(json& j, const RunRequest& v) { j = {{"entry", v.entry}, {"args", v.args}}; }
void from_json(const json& j, RunRequest& v) {
  j.at("entry").get_to(v.entry);
  j.at("args").get_to(v.args);
}

void to_json(json& j, const TimeRequest& v) {
  j = {{"entry", v.entry},
       {"sets", v.sets},
       {"warmup", v.warmup},
       {"min_samples", v.rule.min_samples},
       {"max_samples", v.rule.max_samples},
       {"floor_samples", v.rule.floor_samples},
       {"min_seconds", v.rule.min_seconds},
       {"max_seconds", v.rule.max_seconds},
       {"max_noise", v.rule.max_noise},
       {"flush", v.flush == L2Flush::read ? "read" : "write"},
       {"clock", v.clock},
       {"keep", v.keep}};
}
void from_json(const json& j, TimeRequest& v) {
  j.at("entry").get_to(v.entry);
  j.at("sets").get_to(v.sets);
  j.at("warmup").get_to(v.warmup);
  j.at("min_samples").get_to(v.rule.min_samples);
  j.at("max_samples").get_to(v.rule.max_samples);
  j.at("floor_samples").get_to(v.rule.floor_samples);
  j.at("min_seconds").get_to(v.rule.min_seconds);
  j.at("max_seconds").get_to(v.rule.max_seconds);
  j.at("max_noise").get_to(v.rule.max_noise);
  const std::string flush = j.at("flush").get<std::string>();
  if (flush != "read" && flush != "write") throw std::runtime_error("unknown flush mode '" + flush + "'");
  v.flush = flush == "read" ? L2Flush::read : L2Flush::write;
  j.at("clock").get_to(v.clock);
  j.at("keep").get_to(v.keep);
}

void to_json(json& j, const Next& v) { j = {{"sample", v.sample}, {"last", v.last}}; }
void from_json(const json& j, Next& v) {
  j.at("sample").get_to(v.sample);
  j.at("last").get_to(v.last);
}

void to_json(json& j, const NextAnswer& v) { j = {{"slot", v.slot}}; }
void from_json(const json& j, NextAnswer& v) { j.at("slot").get_to(v.slot); }

void to_json(json& j, const TimeReply& v) { j = {{"samples", v.samples}, {"converged", v.converged}}; }
void from_json(const json& j, TimeReply& v) {
  j.at("samples").get_to(v.samples);
  j.at("converged").get_to(v.converged);
}

Error error_of(const json& reply) {
  if (reply.value("ok", false)) return {};
  if (reply.contains("error") && reply.at("error").is_object()) {
    Error e = reply.at("error").get<Error>();
    if (e.message.empty()) e.message = "the sandbox gave no reason";
    return e;
  }
  return {"", "the sandbox gave no reason"};
}

std::string hex(const void* p, std::size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s(2 * n, '0');
  const auto* b = static_cast<const unsigned char*>(p);
  for (std::size_t i = 0; i < n; ++i) s[2 * i] = d[b[i] >> 4], s[2 * i + 1] = d[b[i] & 15];
  return s;
}

std::vector<unsigned char> unhex(const std::string& s) {
  if (s.size() % 2) throw std::runtime_error("a hex blob of odd length");
  std::vector<unsigned char> b(s.size() / 2);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<unsigned char>(std::stoul(s.substr(2 * i, 2), nullptr, 16));
  return b;
}

}  // namespace kl::protocol
