// The randomized coherence test with CUDA controllers mixed in: random attach / launch / wait /
// detach sequences over tiles and sub-tiles spread across CPU cores and two controllers on one
// GPU (and internal tiles on the GPUs), checked against a host model of the values and of the
// transfer rules (the Controllers paper §3.2.1): the exact bytes and copies each controller moves.
// CTRL_COHERENCE_SEEDS=n runs n seeds instead of the default few.
#include "cuda_test_support.hpp"
#include "test_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cstdint>
#include <cstdlib>
#include <memory>
#include <optional>
#include <random>
#include <vector>

namespace {

using ctrl::Controller;
using ctrl::Threads;
using ctrl::Tile;
using U = std::uint32_t;

struct ModelTile {
  Tile<U, 1> tile;
  std::vector<U> value;  // what the tile holds, wherever the valid copy is
  int owner = -1;        // controller index, -1 when on the host
  bool host_valid = true, device_valid = false;
};

struct Run {
  std::vector<std::unique_ptr<Controller>> ctl;
  std::vector<bool> separate;
  std::vector<ctrl::TransferStats> expected;
  std::vector<ModelTile> tiles;
  std::vector<std::optional<ModelTile>> internal;  // one per GPU controller
  std::mt19937 gen;

  explicit Run(std::uint32_t seed) : gen(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(gen); }

  // The core's rules, applied to the model at submission.
  void use(int c, ModelTile& t, ctrl::Role role) {
    if (!separate[static_cast<std::size_t>(c)]) return;
    if (ctrl::reads(role) && !t.device_valid) {
      expected[c].bytes_in += t.tile.bytes();
      ++expected[c].copies_in;
      t.device_valid = true;
    }
  }
  void wrote(int c, ModelTile& t) {
    t.device_valid = true;
    if (separate[static_cast<std::size_t>(c)] && t.owner >= 0) t.host_valid = false;
  }

  void detach(ModelTile& t) {
    const int c = t.owner;
    ctl[c]->detach(t.tile);
    if (separate[static_cast<std::size_t>(c)] && !t.host_valid) {
      expected[c].bytes_out += t.tile.bytes();
      ++expected[c].copies_out;
    }
    t.owner = -1;
    t.host_valid = true;
    t.device_valid = false;
    for (std::size_t i = 0; i < t.value.size(); ++i)
      ASSERT_EQ(t.tile[static_cast<ctrl::index_t>(i)], t.value[i]) << "tile " << t.tile.name() << " element " << i;
  }

  // Tiles on controller c (attached ones, and c's internal tile), excluding `not_this`.
  std::vector<ModelTile*> on(int c, const ModelTile* not_this = nullptr) {
    std::vector<ModelTile*> out;
    for (ModelTile& t : tiles)
      if (t.owner == c && &t != not_this) out.push_back(&t);
    if (internal[static_cast<std::size_t>(c)] && &*internal[static_cast<std::size_t>(c)] != not_this)
      out.push_back(&*internal[static_cast<std::size_t>(c)]);
    return out;
  }

  void step() {
    const int op = pick(10);
    ModelTile& t = tiles[static_cast<std::size_t>(pick(static_cast<int>(tiles.size())))];
    if (op <= 1) {  // attach / detach
      if (t.owner < 0) {
        t.owner = pick(static_cast<int>(ctl.size()));
        ctl[t.owner]->attach(t.tile);
        t.host_valid = true;
        t.device_valid = !separate[static_cast<std::size_t>(t.owner)];
      } else {
        detach(t);
      }
      return;
    }
    if (op == 2) {
      ctl[static_cast<std::size_t>(pick(static_cast<int>(ctl.size())))]->wait();
      return;
    }
    const int c = pick(static_cast<int>(ctl.size()));
    std::vector<ModelTile*> mine = on(c);
    if (mine.empty()) return;
    ModelTile& dst = *mine[static_cast<std::size_t>(pick(static_cast<int>(mine.size())))];
    const auto n = static_cast<ctrl::index_t>(dst.value.size());
    const U k = static_cast<U>(gen());
    if (op <= 4) {
      ctl[c]->launch<cudatest::SetU>(Threads(n), dst.tile, k);
      for (std::size_t i = 0; i < dst.value.size(); ++i) dst.value[i] = k + static_cast<U>(i);
      wrote(c, dst);
      return;
    }
    if (op <= 6) {
      use(c, dst, ctrl::Role::inout);
      ctl[c]->launch<cudatest::AddU>(Threads(n), dst.tile, k);
      for (U& v : dst.value) v += k;
      wrote(c, dst);
      return;
    }
    std::vector<ModelTile*> others = on(c, &dst);
    if (others.empty()) return;
    ModelTile& src = *others[static_cast<std::size_t>(pick(static_cast<int>(others.size())))];
    const std::size_t ns = src.value.size();
    if (op <= 8) {
      use(c, dst, ctrl::Role::out);
      use(c, src, ctrl::Role::in);
      ctl[c]->launch<cudatest::MixU>(Threads(n), dst.tile, src.tile, k);
      for (std::size_t i = 0; i < dst.value.size(); ++i) dst.value[i] = src.value[i % ns] * 3U + k;
    } else {
      use(c, dst, ctrl::Role::inout);
      use(c, src, ctrl::Role::in);
      ctl[c]->launch<cudatest::AccumulateU>(Threads(n), dst.tile, src.tile);
      for (std::size_t i = 0; i < dst.value.size(); ++i) dst.value[i] += src.value[i % ns];
    }
    wrote(c, dst);
  }
};

void run_seed(std::uint32_t seed) {
  Run r(seed);
  r.ctl.push_back(std::make_unique<Controller>(ctrl::cpu_count(1)));
  r.ctl.push_back(std::make_unique<Controller>(ctrl::cuda(0)));
  r.ctl.push_back(std::make_unique<Controller>(ctrl::cuda(0)));
  for (auto& c : r.ctl) r.separate.push_back(!c->shares_host_memory());
  r.expected.resize(r.ctl.size());
  r.internal.resize(r.ctl.size());
  // Small tiles (pageable copies), tiles above the pinning threshold, and three row blocks of one
  // storage (sub-tiles share pages at their edges).
  auto add = [&](Tile<U, 1> t) {
    ModelTile m{t, std::vector<U>(t.size())};
    for (std::size_t i = 0; i < m.value.size(); ++i)
      m.value[i] = t[static_cast<ctrl::index_t>(i)] = static_cast<U>(r.gen());
    r.tiles.push_back(std::move(m));
  };
  // (append: GCC 12's -Wrestrict misfires on "t" + std::to_string(n))
  for (ctrl::index_t n : {1, 1000, 20000, 300001}) add(Tile<U, 1>({n}, std::string("t").append(std::to_string(n))));
  Tile<U, 1> whole({600000}, "whole");
  add(whole.rows(0, 100003));
  add(whole.rows(100003, 400000));
  add(whole.rows(400000, 600000));
  for (std::size_t c = 1; c < r.ctl.size(); ++c) {
    ModelTile m{Tile<U, 1>({50000}, ctrl::shape_only, "internal" + std::to_string(c)), std::vector<U>(50000, 0)};
    m.owner = static_cast<int>(c);
    m.device_valid = true;
    m.host_valid = false;
    r.ctl[c]->create_internal(m.tile);
    r.ctl[c]->launch<cudatest::SetU>(Threads(50000), m.tile, U{0});
    for (std::size_t i = 0; i < m.value.size(); ++i) m.value[i] = static_cast<U>(i);
    r.internal[c] = std::move(m);
  }
  for (int s = 0; s < 400 && !::testing::Test::HasFatalFailure(); ++s) r.step();
  for (ModelTile& t : r.tiles)
    if (t.owner >= 0 && !::testing::Test::HasFatalFailure()) r.detach(t);
  for (std::size_t c = 0; c < r.ctl.size(); ++c) {
    if (r.internal[c]) r.ctl[c]->destroy_internal(r.internal[c]->tile);
    EXPECT_EQ(r.ctl[c]->transfers(), r.expected[c])
        << "controller " << c << " (" << r.ctl[c]->name() << "), seed " << seed;
  }
}

TEST(CudaCoherence, RandomSequencesMixingCpuAndGpuControllers) {
  CTRL_REQUIRE_GPU();
  int seeds = 6;
  if (const char* env = std::getenv("CTRL_COHERENCE_SEEDS")) seeds = std::atoi(env);
  for (int s = 1; s <= seeds && !HasFatalFailure(); ++s) {
    SCOPED_TRACE("seed " + std::to_string(s));
    run_seed(static_cast<std::uint32_t>(s));
  }
}

}  // namespace
