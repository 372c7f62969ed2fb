// The runner core's side of outside submissions (compare/core/remote_variants.hpp), without a
// sandbox, a manifest or a GPU: a family lists the remote variants of its name and type after its
// own, and only those; with none given (nullptr) it lists its own alone. The core reaches them
// only through the interface, so a stand-in set is all it needs.
#include "compare/core/family.hpp"
#include "compare/core/remote_variants.hpp"

#include <doctest/doctest.h>

#include <stdexcept>
#include <string>
#include <vector>

using namespace kl;

namespace {

// Two variants, one a reduce float, one a gemv double; bind and launch are never reached here.
class StandIn final : public RemoteVariants {
 public:
  StandIn() {
    sum_.full_name = "zoe/sum";
    sum_.origin = "submission zoe";
    sum_.lesson = "a stand-in";
    gemv_.full_name = "zoe/gemv";
  }
  std::vector<const RemoteVariant*> of(std::string_view family, DType t) const override {
    asked.push_back(std::string(family) + " " + std::string(dtype_name(t)));
    if (family == "reduce" && t == DType::f32) return {&sum_};
    if (family == "gemv" && t == DType::f64) return {&gemv_};
    return {};
  }
  RemoteBind bind(const RemoteVariant&, const void*, std::size_t) override { throw std::logic_error("not here"); }
  std::shared_ptr<RemoteLaunch> launch(const RemoteVariant&, std::function<std::vector<unsigned char>(void*)>,
                                       std::vector<std::size_t>) override {
    throw std::logic_error("not here");
  }
  mutable std::vector<std::string> asked;

 private:
  RemoteVariant sum_, gemv_;
};

std::vector<std::string> names(const std::vector<VariantListing>& vs) {
  std::vector<std::string> out;
  for (const auto& v : vs) out.push_back(v.name);
  return out;
}

}  // namespace

TEST_CASE("remote variants: a family lists those of its name and type after its own, and only those") {
  const Family* reduce = find_family("reduce");
  REQUIRE(reduce);
  StandIn remote;
  const auto own = reduce->variants(DType::f32, nullptr);
  const auto with = reduce->variants(DType::f32, &remote);
  REQUIRE(with.size() == own.size() + 1);
  for (std::size_t i = 0; i < own.size(); ++i) CHECK(with[i].name == own[i].name);
  CHECK(with.back().name == "zoe/sum");
  CHECK(with.back().origin == "submission zoe");
  CHECK(with.back().source == Source::handwritten);  // graded as a hand-written step, against the library
  CHECK(remote.asked == std::vector<std::string>{"reduce float"});

  // Another type of the same family, and another family: nothing of the stand-in's.
  CHECK(names(reduce->variants(DType::f64, &remote)) == names(reduce->variants(DType::f64, nullptr)));
  const Family* gemv = find_family("gemv");
  REQUIRE(gemv);
  CHECK(names(gemv->variants(DType::f32, &remote)) == names(gemv->variants(DType::f32, nullptr)));
  const auto g = gemv->variants(DType::f64, &remote);
  CHECK(g.back().name == "zoe/gemv");
}
