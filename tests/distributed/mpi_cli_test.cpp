// The ctrl tool across MPI ranks, end to end under `mpirun -np 2` on one machine (the two ranks
// pretend to be two hosts, or share one): a selection written by `ctrl devices`, a profile
// measured on both ranks at once, a front, a run whose output gathered on rank 0 equals a
// one-process run's; and the failures: a rank whose device is absent, a rank killed mid-profile
// (and the profile resumed), a rank that hangs. Every failure must give a clear error on every
// rank, no hang, and no partial result.
#include "run_command.hpp"
#include "scratch_dir.hpp"

#include <ctrl/io/npy.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using Result = ctrl::test::CommandResult;

class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!CTRL_TOOL_HAS_MPI) GTEST_SKIP() << "the ctrl tool was built without MPI";
    if (std::string(CTRL_MPIRUN).empty() || !fs::exists(CTRL_MPIRUN)) GTEST_SKIP() << "no mpirun on this machine";
    // Each rank runs through this script: a host name per rank (CTRL_HOSTNAME, so that two ranks
    // on one machine can be two "hosts"), and a fault planted in rank 1 when the test asks. Faults
    // fire on events, never after a time, so that they land at the same step on any load:
    // FAULT=stop-at-start stops rank 1 before ctrl even starts (it never reaches MPI_Init);
    // FAULT=kill and FAULT=hang kill or stop rank 1's ctrl (SIGKILL, SIGSTOP) once the profile
    // file holds a complete size and rank 1's row of the next (it is in the middle of a profile).
    write(
        "rank.sh",
        "#!/bin/sh\n"
        "r=${OMPI_COMM_WORLD_RANK:-0}\n"
        "[ -n \"$HOSTS\" ] && export CTRL_HOSTNAME=node$r\n"
        // RANK1_APP: rank 1 is given another application than rank 0 (SUBCOMMAND APP ...).
        "if [ \"$r\" = 1 ] && [ -n \"$RANK1_APP\" ]; then sub=$1; shift 2; set -- \"$sub\" \"$RANK1_APP\" \"$@\"; fi\n"
        "if [ \"$r\" = 1 ] && [ \"$FAULT\" = stop-at-start ]; then kill -STOP $$; fi\n"
        "if [ \"$r\" = 1 ] && { [ \"$FAULT\" = kill ] || [ \"$FAULT\" = hang ]; }; then\n"
        "  sig=KILL; [ \"$FAULT\" = hang ] && sig=STOP\n"
        "  (while kill -0 $$ 2>/dev/null; do\n"
        "     [ \"$(grep -c /cpu:1, '" +
            path("p.csv") +
            "' 2>/dev/null)\" -ge 2 ] && exec kill -$sig $$\n"
            "     sleep 0.01\n"
            "   done) &\n"
            "fi\n"
            "exec " CTRL_TOOL " \"$@\"\n");
    fs::permissions(dir_ / "rank.sh", fs::perms::owner_all);
  }

  void write(const std::string& name, const std::string& text) const { std::ofstream(dir_ / name) << text; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // `ctrl ARGS` on two ranks; env: "HOSTS=1", "FAULT=kill", ...
  Result mpirun(const std::vector<std::string>& args, const std::vector<std::string>& env = {}) const {
    std::vector<std::string> argv{"env", "OMPI_ALLOW_RUN_AS_ROOT=1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1",
                                  "OMPI_MCA_btl_vader_single_copy_mechanism=none",
                                  "OMPI_MCA_rmaps_base_oversubscribe=1",
                                  // Ranks the launcher ends get SIGTERM and say so before they
                                  // go: on a loaded machine, 1 s (the default) before SIGKILL
                                  // may pass before a rank runs at all. The launcher waits this
                                  // long (twice) at the end of every failed job, so no more.
                                  "OMPI_MCA_odls_base_sigkill_timeout=3"};
    argv.insert(argv.end(), env.begin(), env.end());
    argv.insert(argv.end(),
                {"timeout", "120", CTRL_MPIRUN, "-np", "2", "--oversubscribe", "--bind-to", "none", path("rank.sh")});
    argv.insert(argv.end(), args.begin(), args.end());
    return ctrl::test::run_command(argv, dir_);
  }
  Result ctrl_alone(const std::vector<std::string>& args) const {
    std::vector<std::string> argv{CTRL_TOOL};
    argv.insert(argv.end(), args.begin(), args.end());
    return ctrl::test::run_command(argv, dir_);
  }

  ctrl::test::ScratchDir dir_{"ctrl-mpi"};
};

// The CPU's energy estimated at 5 W per busy core where no counter measures it, so that the
// profile's front compares energies whatever this machine has (and provenance crosses the ranks).
const std::vector<std::string> quick = {"--min-round", "0.002", "--max-reps",   "4",   "--progress", "plain",
                                        "--cpu-power", "5",     "--min-window", "0.02"};

std::vector<std::string> with(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

TEST_F(Mpi, WholeLoopAcrossTwoHostsMatchesOneProcess) {
  const Result sel = mpirun({"devices", "--write-selection", path("sel.txt")}, {"HOSTS=1"});
  ASSERT_EQ(sel.code, 0) << sel.out << sel.err;
  const std::string text = ctrl::test::read_file(path("sel.txt"));
  EXPECT_NE(text.find("host node0: cpu"), std::string::npos) << text;
  EXPECT_NE(text.find("host node1: cpu"), std::string::npos) << text;
  // Two "hosts" on one machine would both take every core: give each one its own.
  write("sel.txt", "host node0: cpu:0\nhost node1: cpu:1\n");

  const Result prof = mpirun(with({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "4:16:4", "--cols",
                                   "32", "--out", path("p.csv")},
                                  quick),
                             {"HOSTS=1"});
  ASSERT_EQ(prof.code, 0) << prof.out << prof.err;
  const std::string csv = ctrl::test::read_file(path("p.csv"));
  EXPECT_NE(csv.find("node0/cpu:0,16,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("node1/cpu:1,16,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find(",absent,"), std::string::npos) << "every rank's CPU has energy, measured or estimated:\n" << csv;
  EXPECT_EQ(prof.out.find("node1/cpu:1"), prof.out.rfind("node1/cpu:1")) << "rank 0 alone reports: " << prof.out;

  const Result front = ctrl_alone({"pareto", "--profile", path("p.csv"), "--workload", "24", "--format", "json"});
  ASSERT_EQ(front.code, 0) << front.err;
  write("front.json", front.out);
  const Result run = mpirun(with({"run", "dgemm", "--selection", path("sel.txt"), "--front", path("front.json"),
                                  "--pick", "fastest", "--profile", path("p.csv"), "--output", path("C.npy")},
                                 quick),
                            {"HOSTS=1"});
  ASSERT_EQ(run.code, 0) << run.out << run.err;
  EXPECT_NE(run.out.find("check: passed"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("node0/cpu:0"), std::string::npos) << run.out;

  // The same rows in one process, on one core: the gathered output is the same matrix.
  const Result one =
      ctrl_alone(with({"run", "dgemm", "--split", "cpu:0=24", "--cols", "32", "--output", path("C1.npy")}, quick));
  ASSERT_EQ(one.code, 0) << one.err;
  const auto a = ctrl::npy::load<double>(path("C.npy"));
  const auto b = ctrl::npy::load<double>(path("C1.npy"));
  ASSERT_EQ(a.shape, (std::vector<std::size_t>{24, 32}));
  ASSERT_EQ(a.shape, b.shape);
  for (std::size_t i = 0; i < a.data.size(); ++i)
    ASSERT_NEAR(a.data[i], b.data[i], 1e-12 * (1 + std::fabs(b.data[i]))) << i;

  // A split by name across ranks.
  const Result split = mpirun(with({"run", "fft2d", "--selection", path("sel.txt"), "--split", "node0/cpu:0=5",
                                    "--split", "node1/cpu:1=7", "--cols", "64"},
                                   quick),
                              {"HOSTS=1"});
  ASSERT_EQ(split.code, 0) << split.out << split.err;
  EXPECT_NE(split.out.find("check: passed"), std::string::npos);
  // A processor no rank has is named.
  const Result absent =
      mpirun(with({"run", "fft2d", "--selection", path("sel.txt"), "--split", "node7/cpu:0=5"}, quick), {"HOSTS=1"});
  EXPECT_EQ(absent.code, 2) << absent.err;
  EXPECT_NE(absent.err.find("no rank has node7/cpu:0 in its selection"), std::string::npos) << absent.err;
}

TEST_F(Mpi, RanksOnOneHostNeedTheirOwnDevices) {
  write("same.txt", "*: cpu:0\n");
  const Result r =
      mpirun({"profile", "dgemm", "--selection", path("same.txt"), "--sizes", "4", "--out", path("p.csv")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("rank 0 of 2"), std::string::npos) << "every rank says it: " << r.err;
  EXPECT_NE(r.err.find("rank 1 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("are the same cores or device of host"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("p.csv")));
  // Without a selection under mpirun: told what to give.
  const Result none = mpirun({"profile", "dgemm", "--device", "cpu:0", "--sizes", "4", "--out", path("p.csv")});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("give --selection FILE"), std::string::npos) << none.err;
}

TEST_F(Mpi, ARankWithoutItsDeviceStopsEveryRank) {
  write("sel.txt", "rank 0: cpu:0\nrank 1: cuda:7\n");
  const Result r = mpirun({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "4", "--out", path("p.csv")});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("ctrl: rank 0 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ctrl: rank 1 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("cuda:7"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("p.csv")));
}

TEST_F(Mpi, AKilledRankStopsTheOthersAndTheProfileResumes) {
  write("sel.txt", "rank 0: cpu:0\nrank 1: cpu:1\n");
  const std::vector<std::string> args = with({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "8:2000:8",
                                              "--cols", "64", "--out", path("p.csv")},
                                             {"--min-round", "0.01", "--max-reps", "6", "--progress", "none"});
  const Result r = mpirun(args, {"FAULT=kill"});
  EXPECT_NE(r.code, 0);
  EXPECT_NE(r.err.find("rank 0 of 2 ("), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("stopped by the MPI launcher"), std::string::npos) << r.err;
  // Only complete sizes were kept: every size has both processors' rows.
  const std::string csv = ctrl::test::read_file(path("p.csv"));
  std::size_t zero = 0, one = 0;
  for (std::size_t at = 0; (at = csv.find("/cpu:0,", at)) != std::string::npos; ++at) ++zero;
  for (std::size_t at = 0; (at = csv.find("/cpu:1,", at)) != std::string::npos; ++at) ++one;
  EXPECT_EQ(zero, one) << csv;
  // The same command resumes (a short size list this time would be another profile; keep it).
  const Result again = mpirun(with({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "8:48:8", "--cols",
                                    "64", "--out", path("p2.csv")},
                                   quick));
  ASSERT_EQ(again.code, 0) << again.err;
  const Result resumed = mpirun(with({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "8:64:8", "--cols",
                                      "64", "--out", path("p2.csv")},
                                     quick));
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("6 steps already measured"), std::string::npos) << resumed.err;
}

TEST_F(Mpi, AHungRankEndsTheJobWithinTheTimeout) {
  write("sel.txt", "rank 0: cpu:0\nrank 1: cpu:1\n");
  const Result r =
      mpirun({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "8:4000:8", "--cols", "64", "--out",
              path("p.csv"), "--min-round", "0.01", "--max-reps", "6", "--progress", "none", "--rank-timeout", "3"},
             {"FAULT=hang"});
  EXPECT_EQ(r.code, 4) << r.err;
  EXPECT_NE(r.err.find("no answer from the other ranks within 3 s"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("rank 1 of 2"), std::string::npos) << "the hung rank says it was stopped: " << r.err;
}

TEST_F(Mpi, ARankThatNeverStartsEndsTheJobWithinTheTimeout) {
  // Rank 1 stops before MPI_Init: rank 0 waits there for it, with the same deadline as any step.
  write("sel.txt", "rank 0: cpu:0\nrank 1: cpu:1\n");
  const Result r = mpirun({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "8", "--out", path("p.csv"),
                           "--progress", "none", "--rank-timeout", "3"},
                          {"FAULT=stop-at-start"});
  EXPECT_EQ(r.code, 4) << r.out << r.err;
  EXPECT_NE(r.err.find("rank 0 of 2"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("no answer from the other ranks within 3 s while starting MPI"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("p.csv")));
}

// Ranks started on different applications (a launch with one command per host, one of them
// mistyped) used to measure fft2d in rows labelled dgemm, and to write complex64 bytes as float64
// with "check: passed". Every rank must stop with the error, and nothing is written.
TEST_F(Mpi, RanksThatDisagreeOnTheApplicationStopEveryRank) {
  write("sel.txt", "host node0: cpu:0\nhost node1: cpu:1\n");
  const Result prof = mpirun(with({"profile", "dgemm", "--selection", path("sel.txt"), "--sizes", "4:8:4", "--cols",
                                   "32", "--out", path("p.csv")},
                                  quick),
                             {"HOSTS=1", "RANK1_APP=fft2d"});
  const Result run = mpirun(with({"run", "dgemm", "--selection", path("sel.txt"), "--split", "node0/cpu:0=5", "--split",
                                  "node1/cpu:1=7", "--cols", "64", "--output", path("C.npy")},
                                 quick),
                            {"HOSTS=1", "RANK1_APP=fft2d"});
  for (const Result* r : {&prof, &run}) {
    EXPECT_EQ(r->code, 2) << r->out << r->err;
    EXPECT_NE(r->err.find("ctrl: rank 0 of 2"), std::string::npos) << "every rank says it: " << r->err;
    EXPECT_NE(r->err.find("ctrl: rank 1 of 2"), std::string::npos) << r->err;
    EXPECT_NE(r->err.find("rank 1 of 2: started with 'fft2d"), std::string::npos) << r->err;
    EXPECT_NE(r->err.find("but rank 0 with 'dgemm"), std::string::npos) << r->err;
    EXPECT_EQ(r->out.find("check: passed"), std::string::npos) << r->out;
  }
  EXPECT_FALSE(fs::exists(path("p.csv")));
  EXPECT_FALSE(fs::exists(path("C.npy")));
}

}  // namespace
