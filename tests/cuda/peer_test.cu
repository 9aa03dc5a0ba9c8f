// Tiles moving GPU to GPU (Controller::take): between cuda:0 and cuda:1 as a peer copy where the
// two GPUs can reach each other, through the host where they cannot; and a large tile between two
// controllers of one GPU, taken while the kernel that writes it may still run; rows of a tile into
// another's (copy_rows, the halo exchange) the same ways. Values are checked to the byte, counts
// exactly. The two-GPU tests skip on a machine of one GPU.
#include "cuda_test_support.hpp"
#include "test_kernels.hpp"

#include <ctrl/cuda.hpp>

#include <cstdint>

namespace {

using ctrl::TransferStats;

// Two controllers' devices, or a skip: GTEST_SKIP() must run in the test's own body.
int cuda_devices() {
  int n = 0;
  return cudaGetDeviceCount(&n) == cudaSuccess ? n : 0;
}

bool reaches(int from, int to) {
  int can = 0;
  return cudaDeviceCanAccessPeer(&can, to, from) == cudaSuccess && can != 0;
}

// 0 .. n-1 as set_u writes them plus k, element by element.
::testing::AssertionResult counts_up(const ctrl::Tile<std::uint32_t, 1>& t, std::uint32_t v) {
  for (ctrl::index_t i = 0; i < t.extent(0); ++i) {
    if (t(i) != v + static_cast<std::uint32_t>(i)) {
      return ::testing::AssertionFailure() << "element " << i << " is " << t(i) << ", not " << v + i;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(CudaPeer, TileWrittenOnOneGpuIsReadOnTheOther) {
  CTRL_REQUIRE_GPU();
  if (cuda_devices() < 2) GTEST_SKIP() << "needs a second GPU (this machine has " << cuda_devices() << ")";
  ctrl::Controller g0(ctrl::cuda(0)), g1(ctrl::cuda(1));
  const ctrl::index_t n = (ctrl::index_t{1} << 22) + 3;  // 16 MiB and an odd tail
  ctrl::Tile<std::uint32_t, 1> t({n}, "t"), r({n}, "r");
  g0.attach(t);
  g0.launch<cudatest::SetU>(ctrl::Threads(n), t, 17U);
  g1.take(t);
  g1.attach(r);
  g1.launch<cudatest::MixU>(ctrl::Threads(n), r, t, 0U);  // r = 3 t
  g1.launch<cudatest::AddU>(ctrl::Threads(n), t, 1U);
  g1.detach(t, r);
  EXPECT_TRUE(counts_up(t, 18U));
  for (ctrl::index_t i = 0; i < n; ++i) ASSERT_EQ(r(i), 3U * (17U + static_cast<std::uint32_t>(i))) << i;
  const std::uint64_t b = t.bytes();
  if (reaches(0, 1)) {
    EXPECT_EQ(g0.transfers(), TransferStats{});
    EXPECT_EQ(g1.transfers(), (TransferStats{0, 0, 2 * b, 2, b, 1}));
  } else {  // no peer access between these two GPUs: out of cuda:0 to the host, in to cuda:1
    EXPECT_EQ(g0.transfers(), (TransferStats{0, 0, b, 1}));
    EXPECT_EQ(g1.transfers(), (TransferStats{b, 1, 2 * b, 2}));
  }
}

TEST(CudaPeer, InternalTileGoesToTheOtherGpuAndBack) {
  CTRL_REQUIRE_GPU();
  if (cuda_devices() < 2) GTEST_SKIP() << "needs a second GPU (this machine has " << cuda_devices() << ")";
  ctrl::Controller g0(ctrl::cuda(0)), g1(ctrl::cuda(1));
  const ctrl::index_t n = 1000003;
  ctrl::Tile<std::uint32_t, 1> s({n}, ctrl::shape_only, "s"), r({n}, "r");
  g0.create_internal(s);
  g0.launch<cudatest::SetU>(ctrl::Threads(n), s, 5U);
  g1.take(s);
  g1.launch<cudatest::AddU>(ctrl::Threads(n), s, 2U);
  g0.take(s);
  g0.attach(r);
  g0.launch<cudatest::MixU>(ctrl::Threads(n), r, s, 1U);  // r = 3 s + 1
  g0.detach(r);
  g0.destroy_internal(s);
  for (ctrl::index_t i = 0; i < n; ++i) ASSERT_EQ(r(i), 3U * (7U + static_cast<std::uint32_t>(i)) + 1U) << i;
  const std::uint64_t b = s.bytes();
  if (reaches(0, 1) && reaches(1, 0)) {
    EXPECT_EQ(g0.transfers(), (TransferStats{0, 0, b, 1, b, 1}));
    EXPECT_EQ(g1.transfers(), (TransferStats{0, 0, 0, 0, b, 1}));
  } else {  // through a host buffer, each way
    EXPECT_EQ(g0.transfers(), (TransferStats{b, 1, 2 * b, 2}));
    EXPECT_EQ(g1.transfers(), (TransferStats{b, 1, b, 1}));
  }
}

// 256 MiB written by a kernel that is still running when take is called (it returns at once): the
// copy must wait for it, and the taker's kernel for the copy.
TEST(CudaPeer, LargeTileBetweenTwoControllersOfOneGpu) {
  CTRL_REQUIRE_GPU();
  ctrl::Controller a(ctrl::cuda(0)), b(ctrl::cuda(0));
  const ctrl::index_t n = ctrl::index_t{1} << 26;
  ctrl::Tile<std::uint32_t, 1> t({n}, ctrl::shape_only, "t"), r({n}, "r");
  a.create_internal(t);
  a.launch<cudatest::SetU>(ctrl::Threads(n), t, 100U);
  for (int k = 0; k < 4; ++k) a.launch<cudatest::AddU>(ctrl::Threads(n), t, 1U);
  b.take(t);
  b.attach(r);
  b.launch<cudatest::MixU>(ctrl::Threads(n), r, t, 0U);
  b.detach(r);
  b.destroy_internal(t);
  for (ctrl::index_t i = 0; i < n; ++i) ASSERT_EQ(r(i), 3U * (104U + static_cast<std::uint32_t>(i))) << i;
  EXPECT_EQ(a.transfers(), TransferStats{});
  EXPECT_EQ(b.transfers(), (TransferStats{0, 0, r.bytes(), 1, t.bytes(), 1}));
}

// Controller::copy_rows between two controllers of one GPU (the loop's halo exchange): the rows
// are copied within the device after the kernels that write them, which may still run when it is
// called; the source's next kernels come after the copy.
TEST(CudaPeer, RowsWrittenByAKernelStillRunningGoToAnotherControllerOfTheGpu) {
  CTRL_REQUIRE_GPU();
  ctrl::Controller a(ctrl::cuda(0)), b(ctrl::cuda(0));
  const ctrl::index_t n = ctrl::index_t{1} << 26, half = n / 2;
  ctrl::Tile<std::uint32_t, 1> t({n}, "t"), r({n}, "r");
  a.attach(t);
  b.attach(r);
  a.launch<cudatest::SetU>(ctrl::Threads(n), t, 100U);
  for (int k = 0; k < 4; ++k) a.launch<cudatest::AddU>(ctrl::Threads(n), t, 1U);
  b.launch<cudatest::SetU>(ctrl::Threads(n), r, 7U);
  b.copy_rows(r, 0, half, t, half);
  a.launch<cudatest::AddU>(ctrl::Threads(n), t, 1000U);  // after the copy: not seen in r
  b.launch<cudatest::AddU>(ctrl::Threads(n), r, 1U);
  a.detach(t);
  b.detach(r);
  EXPECT_TRUE(counts_up(t, 1104U));
  for (ctrl::index_t i = 0; i < half; ++i) ASSERT_EQ(r(i), 105U + static_cast<std::uint32_t>(half + i)) << i;
  for (ctrl::index_t i = half; i < n; ++i) ASSERT_EQ(r(i), 8U + static_cast<std::uint32_t>(i)) << i;
  const std::uint64_t rows = static_cast<std::uint64_t>(half) * sizeof(std::uint32_t);
  EXPECT_EQ(a.transfers(), (TransferStats{0, 0, t.bytes(), 1}));
  EXPECT_EQ(b.transfers(), (TransferStats{0, 0, r.bytes(), 1, rows, 1}));
}

// Between two GPUs: a peer copy of the rows where cuda:1 reaches cuda:0; where it cannot, out of
// cuda:0 into the source tile's host rows (cuda:0 counts it) and in to cuda:1.
TEST(CudaPeer, RowsOfATileOnOneGpuGoIntoATileOnTheOther) {
  CTRL_REQUIRE_GPU();
  if (cuda_devices() < 2) GTEST_SKIP() << "needs a second GPU (this machine has " << cuda_devices() << ")";
  ctrl::Controller g0(ctrl::cuda(0)), g1(ctrl::cuda(1));
  const ctrl::index_t n = (ctrl::index_t{1} << 20) + 3, k = 4099;
  ctrl::Tile<std::uint32_t, 1> a({n}, "a"), b({n}, "b");
  g0.attach(a);
  g1.attach(b);
  g0.launch<cudatest::SetU>(ctrl::Threads(n), a, 0U);
  g1.launch<cudatest::SetU>(ctrl::Threads(n), b, 1000U);
  g1.copy_rows(b, 0, k, a, n - k);
  g1.launch<cudatest::AddU>(ctrl::Threads(n), b, 1U);
  g0.detach(a);
  g1.detach(b);
  EXPECT_TRUE(counts_up(a, 0U));
  for (ctrl::index_t i = 0; i < k; ++i) ASSERT_EQ(b(i), static_cast<std::uint32_t>(n - k + i) + 1U) << i;
  for (ctrl::index_t i = k; i < n; ++i) ASSERT_EQ(b(i), 1001U + static_cast<std::uint32_t>(i)) << i;
  const std::uint64_t rows = k * sizeof(std::uint32_t);
  if (reaches(0, 1)) {
    EXPECT_EQ(g0.transfers(), (TransferStats{0, 0, a.bytes(), 1}));
    EXPECT_EQ(g1.transfers(), (TransferStats{0, 0, b.bytes(), 1, rows, 1}));
  } else {
    EXPECT_EQ(g0.transfers(), (TransferStats{0, 0, rows + a.bytes(), 2}));
    EXPECT_EQ(g1.transfers(), (TransferStats{rows, 1, b.bytes(), 1}));
  }
}

}  // namespace
