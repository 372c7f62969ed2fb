// gemm_auto's table of steps (handwritten/gemm/gemm_auto_steps.hpp) against what it stands for:
// every row names a configuration of the gemm list (so a run shows what each choice costs, and
// the time model's rows and the measurements find it by that name), every GPU's model rows name
// a row, and a GPU without a model measures every candidate.
#include "common/args/gemm_args.hpp"
#include "handwritten/gemm/gemm_auto_models.hpp"
#include "handwritten/gemm/gemm_auto_plan.hpp"

#include <doctest/doctest.h>

#include <set>
#include <string>
#include <string_view>
#include <vector>

using namespace kl;
using namespace kl::gemm_plan;

TEST_CASE_TEMPLATE("gemm_auto's table: each row's name is a step of the gemm list", T, float, double) {
  std::set<std::string> names;
  bool sm90a = false;
  for (const auto& v : gemm_handwritten<T>()) {
    names.insert(std::string(v.info.name));
    sm90a = sm90a || v.info.name.rfind("gemm13_", 0) == 0 || v.info.name.rfind("gemm14_", 0) == 0;
  }
  int rows = 0;
  for (const StepRow& r : kSteps) {
    if (r.dbl != (sizeof(T) == 8)) continue;
    CAPTURE(std::string(r.name));
    if ((r.needs & kNeedsTma) && !sm90a) continue;  // the TMA steps are listed in sm_90a builds only
    CHECK(names.count(std::string(r.name)) == 1);
    ++rows;
  }
  CHECK(rows > 0);
  if (!sm90a) MESSAGE("no sm_90a steps in this build: the TMA rows' names are not checked");
}

TEST_CASE("gemm_auto's table: the step ids are the rows' places, each name once per type") {
  std::set<std::pair<bool, std::string>> seen;
  for (std::size_t i = 0; i < sizeof(kSteps) / sizeof(kSteps[0]); ++i) {
    CHECK(static_cast<std::size_t>(kSteps[i].step) == i);
    CHECK(&row_of(kSteps[i].step) == &kSteps[i]);
    CHECK(seen.insert({kSteps[i].dbl, std::string(kSteps[i].name)}).second);
    if (kSteps[i].rank.kind != Rank::own) {  // a rank taken from a row of the same type
      bool found = false;
      for (const StepRow& r : kSteps) found = found || (r.dbl == kSteps[i].dbl && r.name == kSteps[i].rank.of);
      CHECK(found);
    }
  }
}

TEST_CASE("gemm_auto's models: one per GPU by its name, every row a table row's") {
  CHECK(model_for("NVIDIA H100 80GB HBM3") == &kModelH100);
  CHECK(model_for("NVIDIA H100 PCIe") == &kModelH100);
  CHECK(model_for("NVIDIA H200") == &kModelH200);
  CHECK(model_for("NVIDIA A100-SXM4-80GB") == nullptr);
  CHECK(model_for("NVIDIA GeForce RTX 4090") == nullptr);
  for (const GpuModel* m : kGpuModels)
    for (std::size_t i = 0; i < m->count; ++i) {
      CAPTURE(std::string(m->gpu));
      CAPTURE(std::string(m->rows[i].step));
      bool found = false;
      for (const StepRow& r : kSteps) found = found || r.name == m->rows[i].step;
      CHECK(found);
      CHECK(m->rows[i].overlap >= 1);
    }
}

// A model file records the command that regenerates it. Reports named by a plain path are rewritten
// each time their stage runs, after which that command fits other data: every report it names must
// be COMMIT:PATH (fit_gemm_model.py reads it through git show), and there must be at least one.
TEST_CASE("gemm_auto's models: the command of each names its reports as they were at a commit") {
  for (const GpuModel* m : kGpuModels) {
    CAPTURE(std::string(m->gpu));
    int reports = 0;
    std::string_view rest = m->command;
    while (!rest.empty()) {
      const std::size_t space = rest.find(' ');
      const std::string_view word = rest.substr(0, space);
      rest = space == std::string_view::npos ? std::string_view{} : rest.substr(space + 1);
      if (!word.ends_with(".json") && !word.ends_with(".json.gz")) continue;
      CAPTURE(std::string(word));
      ++reports;
      const std::size_t colon = word.find(':');
      REQUIRE(colon != std::string_view::npos);
      CHECK(colon >= 7);
      CHECK(word.substr(0, colon).find_first_not_of("0123456789abcdef") == std::string_view::npos);
    }
    CHECK(reports >= 1);
  }
}

TEST_CASE("gemm_auto's borrowed constants: only from a step with the same block work, and fitted where they are borrowed") {
  for (const ModelLike& l : kModelLike) {
    const StepRow& step = row_of(l.step);
    const StepRow& like = row_of(l.like);
    CAPTURE(std::string(step.name));
    CAPTURE(std::string(like.name));
    // The same type, outputs per block and k tile: the constants per block and per k tile carry over;
    // the tile's shape is the step's own.
    CHECK(step.dbl == like.dbl);
    CHECK(step.bm * step.bn == like.bm * like.bn);
    CHECK(step.bk == like.bk);
    CHECK((step.bm != like.bm || step.bn != like.bn));
    for (const GpuModel* m : kGpuModels) {
      CAPTURE(std::string(m->gpu));
      AutoFeatures f;
      f.vec = true;
      f.model = m;
      const auto own = model_of(l.step, f), theirs = model_of(l.like, f);
      REQUIRE(theirs.has_value());  // every GPU with a model has the borrowed row
      REQUIRE(own.has_value());
      CHECK(own->bm == step.bm);
      CHECK(own->bn == step.bn);
      // A row of its own, once fitted, is what it takes; until then the borrowed one.
      if (!m->find(step.name, Path::vec)) {
        CHECK(own->block_us == theirs->block_us);
        CHECK(own->ktile_us == theirs->ktile_us);
        CHECK(own->overlap == theirs->overlap);
      }
    }
  }
}

TEST_CASE("gemm_auto's borrowed constants: a shortlisted step on a borrowed row brings the step it borrows from") {
  for (const GpuModel* m : kGpuModels)
    for (const bool vec : {true, false})
      for (int M : {31, 150, 263, 1000, 4096, 12000})
        for (int N : {33, 130, 3600, 9128})
          for (int K : {24, 289, 700}) {
            AutoFeatures f;
            f.vec = vec;
            f.huge = f.dmma_large = true;
            f.model = m;
            for (const bool dbl : {false, true}) {
              const std::vector<StepChoice> l = auto_shortlist({M, N, K}, dbl, f);
              for (const StepChoice& c : l) {
                const std::optional<Step> like = borrowed_from(c.step, f);
                if (!like) continue;
                CAPTURE(std::string(m->gpu));
                CAPTURE(M);
                CAPTURE(N);
                CAPTURE(K);
                CAPTURE(std::string(row_of(c.step).name));
                CHECK(std::any_of(l.begin(), l.end(), [&](const StepChoice& o) { return o.step == *like; }));
              }
            }
          }
}

TEST_CASE("gemm_auto without a model: every candidate is measured, in the table's order") {
  AutoFeatures f;
  f.vec = f.tma = f.huge = f.dmma_large = true;
  for (const bool dbl : {false, true})
    for (GemmShape sh : {GemmShape{4096, 4096, 4096}, GemmShape{513, 257, 129}, GemmShape{1000, 1000, 1000},
                         GemmShape{4097, 4095, 17}}) {
      const std::vector<StepChoice> c = auto_candidates(sh, dbl, f), l = auto_shortlist(sh, dbl, f);
      REQUIRE(c.size() == l.size());
      for (std::size_t i = 0; i < c.size(); ++i) {
        CHECK(c[i].step == l[i].step);
        CHECK(c[i].splits == l[i].splits);
      }
    }
}
